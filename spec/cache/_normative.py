"""The normative checks: each invariant's rule in plain Python, run over one broker's events.

A :class:`Check` judges one event with the shadow's facts just before it (:meth:`Check.event`, given an
:class:`~ledgerspec.spec.cache._shadow.At`), a finished pass with the cache right after it
(:meth:`Check.pass_end`), an observed step (:meth:`Check.step`, conformance only: counters and counts no
event shows) and the end of the events (:meth:`Check.finish`). :class:`Judge` runs the rules of the
chosen invariants over a broker's events, one at a time, on one :class:`~ledgerspec.spec.cache._shadow.Shadow`.
The conformance monitor feeds it the events it derives from each step; the trace checkers' bulk
replay is an accelerator of it, held equal by the differential tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledgerspec.spec.cache._shadow import At, Event, Pass, Shadow, StructureError

if TYPE_CHECKING:
    from ledgerspec.spec.cache._config import CacheConfig
    from ledgerspec.spec.cache.invariants._declare import StepView

_OP_OF_KIND = {
    "config": "Configure",
    "insert": "Insert",
    "insert_refused": "Insert",
    "merge": "Insert",
    "hit": "Get",
    "miss": "Get",
    "release": "Release",
    "replay_increment": "ReplayIncrement",
    "cursor_add": "CursorAdd",
    "cursor_remove": "CursorRemove",
    "cursor_seek": "CursorSeek",
    "cursor_count": "CursorCount",
    "append": "Append",
    "ledger_close": "LedgerClose",
    "cursor_read": "CursorRead",
}
_OP_OF_PASS = {
    "size": "EvictSize",
    "ttl": "EvictTimestamp",
    "invalidate": "InvalidateBefore",
    "clear": "Clear",
    "bytes": "EvictBytes",
    "cutoff": "EvictBefore",
    "range": "RemoveRange",
}


class Check:
    """An invariant's normative check. Each hook reports what breaks through the :class:`Judge`."""

    kinds: frozenset[str] = frozenset()
    """The event kinds :meth:`event` judges (it is called for no other)."""

    def event(self, at: At, judge: Judge) -> None:
        """Judge one event; ``at`` holds the shadow's facts before it, ``judge.shadow`` the cache after it."""

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """Judge a finished pass; ``judge.shadow`` is the cache right after it."""

    def step(self, view: StepView) -> None:
        """Judge an observed step (conformance only: a trace has no observations)."""

    def finish(self, judge: Judge) -> str | None:
        """What the end of the events leaves unjudged (an event only a later one judges), or None."""


@dataclass(frozen=True)
class Finding:
    """A violation: which invariant, at which event (seq, row), why, and where it began if earlier.

    ``first``: (seq, row) of the event where the events first parted from the shadow, when that is an
    earlier event than the one that shows it (a size drift shows at the next size report). The trace
    checkers' accelerators report the same record.
    """

    invariant: str
    broker: str
    seq: int
    row: int
    message: str
    first: tuple[int, int] | None = None


class TraceStructureError(Exception):
    """The events of a broker do not form a well-bracketed trace (e.g. a removal outside a pass).

    The normative checks and the accelerators refuse the same events with it, at the same event.
    """

    def __init__(self, broker: str, seq: int, row: int, message: str) -> None:
        super().__init__(f"row {row}: broker {broker!r}, seq {seq}: {message}")
        self.broker, self.seq, self.row = broker, seq, row


class Judge:
    """Runs the rules of the chosen invariants over one broker's events (see the module docstring)."""

    def __init__(
        self, broker: str, profile: str, config: CacheConfig, rules: Iterable[tuple[str, Check]], *, keep: int | None
    ) -> None:
        """``rules``: (invariant id, rule); keep the first ``keep`` findings of each invariant (None: all)."""
        self.broker, self.profile, self.keep = broker, profile, keep
        self.shadow = Shadow(profile, config)
        self.rules = list(rules)
        self._by_kind: dict[str, list[tuple[str, Check]]] = {}
        for invariant, rule in self.rules:
            for kind in rule.kinds:
                self._by_kind.setdefault(kind, []).append((invariant, rule))
        self.findings: list[Finding] = []
        self.counts: dict[str, int] = {}
        self.label: str | None = None
        """The operation the events being fed came from, when known (the monitor knows it)."""
        self.invariant = ""
        self._event: Event | None = None
        self._memory: dict[str, dict[str, Any]] = {}

    @property
    def config(self) -> CacheConfig:
        """The configuration in force (a ``config`` event's value holds from the next event on)."""
        return self.shadow.config

    @property
    def enabled(self) -> bool:
        """The cache was enabled when the events began (``max_size > 0``)."""
        return bool(self.shadow.enabled)

    @property
    def memory(self) -> dict[str, Any]:
        """What the current invariant's rule remembers for this broker between events."""
        return self._memory.setdefault(self.invariant, {})

    def feed(self, events: Iterable[Event], label: str | None = None) -> None:
        """Judge the broker's next events, in ``seq`` order."""
        self.label = label
        shadow, by_kind = self.shadow, self._by_kind
        for event in events:
            self._event = event
            try:
                at = shadow.apply(event)
            except StructureError as error:
                raise TraceStructureError(self.broker, event.seq, event.row, str(error)) from None
            for invariant, rule in by_kind.get(event.kind, ()):
                self.invariant = invariant
                rule.event(at, self)
            if event.kind == "pass_end" and shadow.last_pass is not None:
                for invariant, rule in self.rules:
                    self.invariant = invariant
                    rule.pass_end(shadow.last_pass, self)

    def report(self, message: str, *, at: Event | None = None, first: tuple[int, int] | None = None) -> None:
        """The current invariant fails at ``at`` (default: the event being judged).

        ``first``: (seq, row) of an earlier event where the divergence it shows began.
        """
        event = at if at is not None else self._event
        assert event is not None, "a report names an event"
        count = self.counts.get(self.invariant, 0) + 1
        self.counts[self.invariant] = count
        if self.keep is None or count <= self.keep:
            self.findings.append(Finding(self.invariant, self.broker, event.seq, event.row, message, first))

    def op(self, at: At) -> str:
        """The name of the operation an event came from, as far as events tell (the monitor knows it)."""
        if self.label is not None:
            return self.label
        return operation(None, None, None, at.event.kind) if at.in_pass is None else pass_op(at.in_pass)

    def finish(self) -> str | None:
        """End of the broker's events: why the verdict cannot be complete, or None."""
        reasons = []
        if self.shadow.open_pass is not None:
            reasons.append(f"the trace ends inside a {self.shadow.open_pass.kind} pass")
        for invariant, rule in self.rules:
            self.invariant = invariant
            reason = rule.finish(self)
            if reason:
                reasons.append(f"{invariant}: {reason}")
        return f"broker {self.broker!r}: " + "; ".join(reasons) if reasons else None


def operation(during: str | None, ledger: int | None, entry: int | None, kind: str) -> str:
    """The operation an event of ``kind`` came from, as far as events tell (the monitor knows it exactly).

    ``during``: the kind of the pass the event is in (None: none), whose operation made it; a size
    pass naming a position is a ring's rotation inside the insert of that position, an invalidation
    with no bound a whole ledger's.
    """
    if during is None:
        return _OP_OF_KIND.get(kind, "an event")
    if during == "invalidate" and entry is None:
        return "InvalidateLedger"
    if during == "size" and ledger is not None:
        return "Insert"
    return _OP_OF_PASS[during]


def pass_op(done: Pass) -> str:
    """The operation a pass came from (:func:`operation`)."""
    return operation(done.kind, done.ledger, done.entry, "pass_start")


__all__ = ["Check", "Finding", "Judge", "TraceStructureError", "operation", "pass_op"]
