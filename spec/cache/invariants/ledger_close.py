"""CACHE-LEDGER-CLOSE: a closed ledger, or one whose last cursor left in legacy mode, has nothing cached.

On traces: a ``ledger_close``, and in legacy mode a ``cursor_remove`` that leaves its ledger without an
active cursor, is followed by the invalidation it made (a whole-ledger ``invalidate`` pass, judged by
CACHE-NO-STALE-READ; a departure's names the cursor, judged by CACHE-BELOW-SLOWEST too), or finds nothing
of the ledger cached. A trace ending on one, its ledger still cached, is UNKNOWN: the invalidation would
come next.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._ops import LedgerClose
from ledgerspec.spec.cache._shadow import At, Event, Position
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, removed
from ledgerspec.spec.cache.invariants._rules_counts import EVERY_KIND, tracking


@dataclass(frozen=True)
class _Emptying:
    """A close or a last departure waiting for the event after it, and what of its ledger was cached then."""

    event: Event
    ledger: int
    what: str
    left: list[Position]


class LedgerClosed(Check):
    """A closed ledger, or one whose last active cursor left in legacy mode, has nothing cached.

    Right after a ``ledger_close`` (and, with tracking off, a ``cursor_remove`` leaving its ledger no active
    cursor) comes the whole ledger's invalidation (an ``invalidate`` pass naming the ledger and no bound,
    judged by CACHE-NO-STALE-READ), or nothing of the ledger was cached.
    """

    kinds = EVERY_KIND

    def event(self, at: At, judge: Judge) -> None:
        """Judge the close or departure before this event, if any; remember this one if it is one."""
        event, memory = at.event, judge.memory
        waiting: _Emptying | None = memory.pop("emptying", None)
        if waiting is not None and waiting.left and not _invalidates_ledger(event, waiting.ledger):
            judge.report(f"{waiting.what} left {waiting.left} of ledger {waiting.ledger} cached", at=waiting.event)
        what = _empties(at, judge)
        if what is not None:
            ledger = event.ledger if event.ledger is not None else -1
            left = [entry.position for entry in judge.shadow.cached_in(ledger)]
            memory["emptying"] = _Emptying(event, ledger, what, left)

    def finish(self, judge: Judge) -> str | None:
        """A close or departure last in the events, its ledger still cached: its invalidation may be cut off."""
        waiting: _Emptying | None = judge.memory.get("emptying")
        if waiting is None:
            return None
        left = [entry.position for entry in judge.shadow.cached_in(waiting.ledger)]
        if not left:
            return None
        return (
            f"the trace ends right after {waiting.what} (seq {waiting.event.seq}), with {left} of ledger "
            f"{waiting.ledger} cached: the invalidation would come next"
        )

    def step(self, view: StepView) -> None:
        """That a close or the last cursor's departure removed no entry of another ledger."""
        op = view.op
        runs, bound = invalidated(view)
        if not isinstance(op, LedgerClose) and not (runs and bound is None):
            return
        ledger = op.ledger  # type: ignore[attr-defined]  # a close or a cursor operation names its ledger
        left = sorted(p for p in view.after.by_position() if p[0] == ledger)
        others = [p for p in removed(view) if p[0] != ledger]
        what = "closing the ledger" if isinstance(op, LedgerClose) else "its last active cursor leaving"
        messages = [f"{what} left {left} of ledger {ledger} cached"] if left else []
        messages += [f"{what} also removed {others} of other ledgers"] if others else []
        view.report(messages)


def _empties(at: At, judge: Judge) -> str | None:
    """What the event is, if it must leave its ledger uncached: a close, or (tracking off) a last departure."""
    event = at.event
    if event.kind == "ledger_close":
        return f"closing ledger {event.ledger}"
    if event.kind == "cursor_remove" and not tracking(judge) and at.cursor_count == 1 and at.slowest is None:
        return f"its last active cursor {event.cursor!r} leaving"
    return None


def _invalidates_ledger(event: Event, ledger: int) -> bool:
    """The event starts the invalidation of a whole ledger."""
    return (
        event.kind == "pass_start" and event.reason == "invalidate" and event.ledger == ledger and event.entry is None
    )


LEDGER_CLOSED = LedgerClosed()


INVARIANT = Invariant(
    order=26,
    id="CACHE-LEDGER-CLOSE",
    statement=(
        "After a managed ledger closes (the manager removes its cache), and after its last active cursor "
        "leaves with expected-read-count tracking off (legacy: always; clear()), no entry of that ledger is "
        "cached, and no entry of another ledger was removed."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/ManagedLedgerImpl.close / deactivateCursor, "
        "impl/cache/RangeEntryCacheManagerImpl.removeEntryCache"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=LEDGER_CLOSED,
    needs={"*": frozenset({LEDGER})},
    events={
        "*": frozenset({"ledger_close", "cursor_add", "cursor_seek", "cursor_remove", "pass_start", "insert", "remove"})
    },
    soundness=(
        "a ledger's cursors, its close and its cache are all in one broker: a close or its last cursor "
        "leaving is judged there"
    ),
    conformance_only="that a close or the last cursor's departure removed no entry of another ledger",
)
