"""What both trace checkers share: which invariants a trace can show, the verdict, and the report.

``CACHE-MODEL`` is not checked on traces: it needs the model's allowed outcomes for each operation,
and a trace records effects, not the operations' inputs. Every other invariant of the catalogue is
checked by the broker replay (``_replay.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance._verdict import Status, Verdict
from ledgerspec.spec.cache import CATALOGUE, claimed
from ledgerspec.spec.cache.invariants import Check, Invariant
from ledgerspec.traces.cache._io import TraceFile
from ledgerspec.traces.cache._jsonl import jsonl_lines
from ledgerspec.traces.cache._replay import Finding

NOT_ON_TRACES = {i.id: i.soundness for i in CATALOGUE if not i.on_traces}
"""Invariants the replay does not check (their declaration says why)."""
KEEP_PER_INVARIANT = 100
"""Violations kept (with context) per invariant; all are counted."""
CONTEXT = 2
"""Events of the same broker shown before and after a violating event."""

PARTITIONS: dict[str, tuple[str, str]] = {i.id: (i.partition, i.soundness) for i in CATALOGUE if i.on_traces}
"""The partition each invariant is checked on and why that is sound (also in FORMAT.md)."""


JUDGED = {"event": "each event", "pass_end": "each pass, at its pass_end", "finish": "the broker's last event"}
"""What a check's methods judge (``Check``): the granularity FORMAT.md's table gives per invariant."""


def judged_at(invariant: Invariant) -> list[str]:
    """Where the replay judges ``invariant`` on a trace: per event, per pass, at a broker's end (:data:`JUDGED`)."""
    kind = type(invariant.check)
    return [what for method, what in JUDGED.items() if getattr(kind, method) is not getattr(Check, method)]


def trace_invariants(profile: str) -> list[str]:
    """The invariants a trace of this profile is checked against, in catalogue order."""
    return [i.id for i in claimed(profile) if i.id not in NOT_ON_TRACES]


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


def wanted_seqs(findings: list[Finding]) -> dict[str, set[int]]:
    """Per broker, the seqs whose events a report shows: each finding's, and its first divergence's."""
    wanted: dict[str, set[int]] = {}
    for finding in findings:
        wanted.setdefault(finding.broker, set()).add(finding.seq)
        if finding.first is not None:
            wanted[finding.broker].add(finding.first[0])
    return wanted


def locate(trace: TraceFile, violations: list[TraceViolation]) -> list[TraceViolation]:
    """In a JSON-lines trace, the file line of each violation's event and of its first divergence."""
    if trace.format != "jsonl" or not violations:
        return violations
    rows = {v.row for v in violations} | {v.first["row"] for v in violations if v.first is not None}
    lines = jsonl_lines(trace.path, rows)
    for violation in violations:
        violation.line = lines.get(violation.row)
        if violation.first is not None:
            violation.first["line"] = lines.get(violation.first["row"])
    return violations


@dataclass
class CheckResult:
    """The outcome of checking one trace."""

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
        """Per invariant of the catalogue: ok, violation, unknown, not claimed, not checkable on traces."""
        checked = trace_invariants(self.profile)
        result = {}
        for invariant in CATALOGUE:
            if not invariant.claimed_by(self.profile):
                result[invariant.id] = Status.NOT_CLAIMED
            elif invariant.id not in checked:
                result[invariant.id] = Status.NOT_ON_TRACES
            elif self.counts.get(invariant.id):
                result[invariant.id] = Status.VIOLATION
            else:
                result[invariant.id] = Status.UNKNOWN if self.unknown else Status.OK
        return result

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


def select(findings: list[Finding], counts: dict[str, int]) -> list[Finding]:
    """The violations to report: each invariant's earliest (by row), a bounded number each.

    Listed in catalogue order, then by broker and seq; the plain text shows them by row (:func:`by_row`).
    """
    order = {invariant.id: index for index, invariant in enumerate(CATALOGUE)}
    chosen: list[Finding] = []
    kept: dict[str, int] = {}
    for finding in sorted(findings, key=lambda f: (order[f.invariant], f.row, f.message)):
        if kept.get(finding.invariant, 0) < KEEP_PER_INVARIANT:
            kept[finding.invariant] = kept.get(finding.invariant, 0) + 1
            chosen.append(finding)
    del counts
    return sorted(chosen, key=lambda f: (order[f.invariant], f.broker, f.seq, f.message))


def by_row(violations: list[TraceViolation]) -> list[TraceViolation]:
    """The violations earliest first: by row (then catalogue order), whatever their invariant."""
    order = {invariant.id: index for index, invariant in enumerate(CATALOGUE)}
    return sorted(violations, key=lambda v: (v.row, order.get(v.invariant, len(order)), v.message))
