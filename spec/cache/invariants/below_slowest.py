"""CACHE-BELOW-SLOWEST: legacy mode invalidates below the slowest cursor when it moves; tracking mode never.

A trace shows the invalidation a cursor made as an ``invalidate`` pass naming that cursor (traces/FORMAT.md):
its events check says such a pass is legacy mode's only, and bounded by the slowest cursor the cursor
events placed; and that one removing entries comes right after a cursor operation that changed the
ledger's slowest position (since the operation began, or since its last invalidation), removed a cursor,
or moved a cursor the trace had not placed: a move that leaves the slowest in place removes nothing.
The operation, not its last move alone, because a read across a reopen is several moves whose
invalidation may come once, after the last. Whether a move that had to invalidate did, and that it
removed exactly what it must, needs the step (conformance).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At, Event, Pass
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, moved, removed
from ledgerspec.spec.cache.invariants._rules_counts import tracking


def _bound_of(value: int | None) -> str:
    return "none (the whole ledger)" if value is None else str(value)


@dataclass
class _Operation:
    """One ledger's cursors as the rule follows them, and the cursor operation under way on it.

    An operation is one cursor's events: a seek, a removal, or a read (``cursor_read`` then ``cursor_seek``,
    again for each BookKeeper ledger of a read across a reopen); its invalidation comes right after it.
    Two reads of one cursor in a row look like one read across a reopen: taken as one, which can only
    miss a violation, never make one up.
    """

    slowest: int | None = None
    """The slowest active read position after the ledger's last cursor event (None: none known)."""
    placed: set[str] = field(default_factory=set)
    """The cursors whose position the events showed (added or moved); another may have been the slowest."""
    cursor: str | None = None
    """The cursor whose operation is under way (None: none, or an arrival)."""
    last: str = ""
    """The kind of that operation's last cursor event."""
    before: int | None = None
    """The slowest before the operation, or since its last invalidation."""
    seq: int = 0
    """The seq where :attr:`before` was taken."""
    moved: bool = False
    """The slowest changed since :attr:`before`, a cursor left, or a cursor the events never placed moved."""

    def follow(self, event: Event, slowest: int | None) -> None:
        """A cursor's move, read or departure: the next step of the operation under way, or a new one."""
        cursor, kind = event.cursor or "", event.kind
        ends_read = kind == "cursor_seek" and self.last == "cursor_read"
        reads_on = kind == "cursor_read" and self.last == "cursor_seek"
        if not (self.cursor == cursor and (ends_read or reads_on)):
            self.cursor, self.before, self.seq, self.moved = cursor, self.slowest, event.seq, False
        self.last = kind
        self.moved |= kind == "cursor_remove" or cursor not in self.placed or slowest != self.before
        if kind == "cursor_seek":
            self.placed.add(cursor)
        elif kind == "cursor_remove":
            self.placed.discard(cursor)


class BelowSlowest(Check):
    """Only legacy mode invalidates by cursor, below the slowest cursor, and only when the slowest moved.

    An ``invalidate`` pass naming a cursor is the invalidation that cursor's operation made: never with
    expected-read-count tracking on; bounded by the slowest active cursor the cursor events placed; and
    removing something only after an operation that moved the ledger's slowest position (since it began,
    or since its last invalidation), removed a cursor, or moved a cursor the events had not placed.
    """

    kinds = frozenset(
        {"cursor_add", "cursor_seek", "cursor_remove", "cursor_read", "ledger_close", "pass_start", "config"}
    )
    """The cursor events, the invalidations, and a configuration (with tracking on, what was followed is forgotten)."""

    def event(self, at: At, judge: Judge) -> None:
        """Follow the ledger's cursor operations (legacy mode); judge an invalidation a cursor made."""
        event = at.event
        made = event.kind == "pass_start" and event.reason == "invalidate" and event.cursor is not None
        ledgers: dict[int, _Operation] = judge.memory.setdefault("ledgers", {})
        if tracking(judge):
            ledgers.clear()  # back in legacy mode, each cursor's first move counts as moving the slowest
            if made:
                judge.report(f"{_made_by(event)}: with expected-read-count tracking on, cursors invalidate nothing")
            return
        if event.kind == "config" or (event.kind == "pass_start" and not made):
            return
        ledger = event.ledger if event.ledger is not None else -1
        if event.kind == "ledger_close":
            ledgers.pop(ledger, None)
            return
        operation = ledgers.setdefault(ledger, _Operation())
        if made:
            self._made(at, operation, judge)
            return
        if event.kind == "cursor_add":
            operation.cursor = None  # an arrival moves nothing
            operation.placed.add(event.cursor or "")
        else:
            operation.follow(event, at.slowest)
        operation.slowest = at.slowest

    @staticmethod
    def _made(at: At, operation: _Operation, judge: Judge) -> None:
        """An invalidation a cursor made: bounded by the slowest cursor; note it if the slowest stayed in place."""
        event = at.event
        if event.entry != at.slowest:
            judge.report(
                f"{_made_by(event)} is bounded by {_bound_of(event.entry)}; the slowest active cursor is at "
                f"{_bound_of(at.slowest)}"
            )
        if operation.cursor == event.cursor and not operation.moved and at.in_pass is not None:
            since = f"at {_bound_of(operation.before)} since seq {operation.seq}"
            unmoved: dict[int, str] = judge.memory.setdefault("unmoved", {})
            unmoved[at.in_pass.rank] = f"{_made_by(event)} with the slowest cursor in place ({since})"
        operation.before, operation.seq, operation.moved = operation.slowest, event.seq, False

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """An invalidation made with the slowest cursor in place removes nothing."""
        what = judge.memory.get("unmoved", {}).pop(done.rank, None)
        if what is not None and done.removed:
            gone = sorted(entry.position for entry, _ in done.removed)
            judge.report(f"{what} removed {gone}; a move that leaves the slowest in place removes nothing")

    def step(self, view: StepView) -> None:
        """Whether a move that had to invalidate did, and removed exactly the entries below the bound."""
        op = view.op
        if not moved(op):
            return
        ledger = op.ledger  # type: ignore[attr-defined]  # every cursor operation names its ledger
        runs, bound = invalidated(view)
        if runs and bound is None:
            return  # the last cursor left: CACHE-LEDGER-CLOSE
        gone = removed(view)
        want = (
            sorted(p for p in view.before.by_position() if p[0] == ledger and p[1] < bound)
            if runs and bound is not None
            else []
        )
        if gone != want:
            where = f"below the slowest cursor at {bound}" if runs else "nothing (the slowest cursor did not move)"
            view.report([f"{op.describe()} removed {gone}; it must remove {where}: {want}"])


def _made_by(event: Event) -> str:
    return f"the invalidation cursor {event.cursor!r} made on ledger {event.ledger}"


BELOW_SLOWEST = BelowSlowest()


INVARIANT = Invariant(
    order=25,
    id="CACHE-BELOW-SLOWEST",
    statement=(
        "With expected-read-count tracking off (legacy: always), when the slowest active cursor of a ledger "
        "moves or a cursor leaves, exactly the ledger's entries strictly before the slowest cursor are "
        "removed (invalidateEntries); otherwise, and always with tracking on, cursor moves remove nothing."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/ManagedLedgerImpl.invalidateEntriesUpToSlowestReaderPosition, "
        "updateActiveCursor, deactivateCursor; impl/ActiveManagedCursorContainerImpl.java"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=BELOW_SLOWEST,
    needs={"*": frozenset({LEDGER})},
    events={
        "*": frozenset(
            {"cursor_add", "cursor_seek", "cursor_remove", "cursor_read", "ledger_close", "pass_start", "remove"}
        )
    },
    soundness=(
        "a ledger's cursors and its invalidations are all in the broker that holds its cache; the cursor "
        "events place the slowest cursor, and an invalidation a cursor made names it"
    ),
    conformance_only=(
        "whether a cursor move that had to invalidate (the slowest moved, or a cursor left) did, and that it "
        "removed exactly the entries below the bound: a step shows a move that removed nothing"
    ),
)
