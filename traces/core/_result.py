"""What a trace check reports, whatever the system: the violations with their events, and the verdict.

Each system's checker subclasses :class:`TraceResult` with the statuses of its own catalogue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance._verdict import Status, Verdict

KEEP_PER_INVARIANT = 100
"""Violations kept (with context) per invariant; all are counted."""


CONTEXT = 2
"""Events of the same broker shown before and after a violating event."""


@dataclass
class TraceViolation:
    """One violation, with the event that shows it, the events around it, and where the divergence began."""

    invariant: str
    broker: str
    seq: int
    row: int
    message: str
    event: dict[str, Any] = field(default_factory=dict)
    context: list[dict[str, Any]] = field(default_factory=list)
    first: dict[str, Any] | None = None
    """The first divergence, when an earlier event than this one began it: its ``seq``, ``row``, ``line``
    and ``event`` (``Finding.first``: a size drift shows at a size report, the insert that made it is named)."""
    line: int | None = None
    """A JSON-lines trace's file line of the event (None for Parquet: the row is the position)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON reports."""
        return {
            "invariant": self.invariant,
            "broker": self.broker,
            "seq": self.seq,
            "row": self.row,
            "line": self.line,
            "message": self.message,
            "event": self.event,
            "context": self.context,
            "first_divergence": self.first,
        }

    def where(self) -> str:
        """The event's position: ``line L (event R)`` in a JSON-lines trace, ``row R`` in Parquet."""
        return position(self.row, self.line)

    @classmethod
    def of(cls, finding: Any, events: dict[Any, Any], contexts: dict[Any, Any]) -> TraceViolation:
        """A replay finding with its event and context, looked up by (broker, seq); empty if unknown."""
        key = (finding.broker, finding.seq)
        first = None
        if finding.first is not None:
            seq, row = finding.first
            first = {"seq": seq, "row": row, "line": None, "event": events.get((finding.broker, seq), {})}
        return cls(
            invariant=finding.invariant,
            broker=finding.broker,
            seq=finding.seq,
            row=finding.row,
            message=finding.message,
            event=events.get(key, {}),
            context=contexts.get(key, []),
            first=first,
        )


def position(row: int, line: int | None) -> str:
    """Where an event is: ``line L (event R)`` when the file's line is known (JSON lines), else ``row R``."""
    return f"row {row}" if line is None else f"line {line} (event {row})"


@dataclass
class TraceResult:
    """The outcome of checking one trace (each system's subclass gives :meth:`statuses`)."""

    path: str
    engine: str
    profile: str
    events: int = 0
    brokers: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    violations: list[TraceViolation] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def verdict(self) -> Verdict:
        """VIOLATION if anything broke, else UNKNOWN if the trace could not be checked to its end, else OK."""
        if any(self.counts.values()):
            return Verdict.VIOLATION
        return Verdict.UNKNOWN if self.unknown else Verdict.OK

    def statuses(self) -> dict[str, Status]:
        """Per invariant of the system's catalogue: its status on this trace."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """The JSON report."""
        return {
            "path": self.path,
            "engine": self.engine,
            "profile": self.profile,
            "verdict": self.verdict,
            "events": self.events,
            "brokers": self.brokers,
            "seconds": round(self.seconds, 3),
            "invariants": self.statuses(),
            "counts": {k: v for k, v in self.counts.items() if v},
            "violations": [v.to_dict() for v in self.violations],
            "unknown": self.unknown,
        }


def by_row(violations: list[TraceViolation], catalogue: Sequence[str]) -> list[TraceViolation]:
    """The violations earliest first: by row (then catalogue order), whatever their invariant."""
    order = {invariant: index for index, invariant in enumerate(catalogue)}
    return sorted(violations, key=lambda v: (v.row, order.get(v.invariant, len(order)), v.message))
