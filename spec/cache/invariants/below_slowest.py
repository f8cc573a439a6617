"""CACHE-BELOW-SLOWEST: legacy mode invalidates below the slowest cursor when it moves; tracking mode never.

A trace shows the invalidation a cursor made as an ``invalidate`` pass naming that cursor (traces/FORMAT.md):
its events check says such a pass is legacy mode's only, and bounded by the slowest cursor the cursor
events placed; and that one removing entries follows a change of the ledger's slowest position or a
departure since the ledger's last such pass (or cursor arrival): a move that leaves the slowest in place
removes nothing. The window, not the last move alone, because a read across a reopen is several moves
whose invalidation may come once, after the last. Whether a move that had to invalidate did, and that it
removed exactly what it must, needs the step (conformance).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from ledgerspec.spec.cache._events import (
    CURSOR_ADD,
    CURSOR_READ,
    CURSOR_REMOVE,
    CURSOR_SEEK,
    INVALIDATE_PASS,
    LEDGER_CLOSE,
    PASS_START,
)
from ledgerspec.spec.cache.invariants._chunk import NULL
from ledgerspec.spec.cache.invariants._declare import (
    LEGACY,
    MASTER,
    PIP430,
    Check,
    EventsView,
    Invariant,
    PassView,
    StepView,
)
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, legacy_mode, moved, removed


def _bound(value: int) -> str:
    return "none (the whole ledger)" if value == NULL else str(value)


@dataclass
class _Window:
    """A ledger's cursor events since its last invalidation by a cursor, or its last cursor arrival."""

    slowest: int
    """The slowest active read position when the window opened (NULL: none active)."""
    seq: int
    moved: bool = False
    """The slowest changed in the window, or a cursor left."""


@dataclass
class _Windows:
    """What the check keeps per broker: each ledger's window, and the passes to judge at their end."""

    ledgers: dict[int, _Window] = field(default_factory=dict)
    unmoved: dict[int, str] = field(default_factory=dict)
    """Rank of a pass a cursor made with the slowest in place -> what made it (judged by what it removes)."""


_WINDOW_KINDS = (CURSOR_ADD, CURSOR_SEEK, CURSOR_REMOVE, CURSOR_READ, LEDGER_CLOSE, PASS_START)


class _BelowSlowest(Check):
    def events(self, view: EventsView) -> None:
        c = view.c
        made = np.flatnonzero((c.kind == PASS_START) & (c.reason == INVALIDATE_PASS) & (c.cursor >= 0))
        if legacy_mode(view):
            self._windows(view)
        if not len(made):
            return

        def who(i: int) -> str:
            return f"the invalidation cursor {c.cursor_names[c.cursor[i]]!r} made on ledger {c.ledger[i]}"

        if view.profile != LEGACY and view.config.track_reads:
            view.report(made, lambda i: f"{who(i)}: with expected-read-count tracking on, cursors invalidate nothing")
            return
        wrong = made[c.entry[made] != view.slowest[made]]
        view.report(
            wrong,
            lambda i: (
                f"{who(i)} is bounded by {_bound(int(c.entry[i]))}; the slowest active cursor is at "
                f"{_bound(int(view.slowest[i]))}"
            ),
        )

    def _windows(self, view: EventsView) -> None:
        """Open, widen and close each ledger's window; note the passes a cursor made with the slowest in place."""
        c, windows = view.c, view.state() or _Windows()
        view.keep_state(windows)
        kinds, ledgers, slowest = c.kind.tolist(), c.ledger.tolist(), view.slowest.tolist()
        for i in np.flatnonzero(c.of_kinds(*_WINDOW_KINDS)).tolist():
            kind, ledger = kinds[i], ledgers[i]
            window = windows.ledgers.get(ledger)
            if kind == LEDGER_CLOSE:
                windows.ledgers.pop(ledger, None)
            elif kind == CURSOR_ADD or (kind == PASS_START and c.reason[i] == INVALIDATE_PASS and c.cursor[i] >= 0):
                if kind == PASS_START and window is not None and not window.moved:
                    made = f"the invalidation cursor {c.cursor_names[c.cursor[i]]!r} made on ledger {ledger}"
                    since = f"at {_bound(window.slowest)} since seq {window.seq}"
                    windows.unmoved[view.f.base + i] = f"{made} with the slowest active cursor in place ({since})"
                windows.ledgers[ledger] = _Window(slowest[i], int(c.seq[i]))
            elif kind in (CURSOR_SEEK, CURSOR_READ, CURSOR_REMOVE):
                if window is None:  # opened before the trace: no cursor known, so the first placement moves it
                    window = windows.ledgers[ledger] = _Window(NULL, int(c.seq[i]))
                window.moved |= kind == CURSOR_REMOVE or slowest[i] != window.slowest

    def pass_end(self, view: PassView) -> None:
        windows: _Windows | None = view.state()
        what = windows.unmoved.pop(view.rank, None) if windows is not None else None
        if what is not None and len(view.removed):
            removed = sorted(zip(view.removed.ledger.tolist(), view.removed.entry.tolist(), strict=True))
            view.report([f"{what} removed {removed}; a move that leaves the slowest in place removes nothing"])

    def step(self, view: StepView) -> None:
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
    check=_BelowSlowest(),
    needs={"*": frozenset({LEDGER})},
    events={"*": frozenset({"cursor_add", "cursor_seek", "cursor_remove", "pass_start"})},
    soundness=(
        "a ledger's cursors and its invalidations are all in the broker that holds its cache; the cursor "
        "events place the slowest cursor, and an invalidation a cursor made names it"
    ),
    conformance_only=(
        "whether a cursor move that had to invalidate (the slowest moved, or a cursor left) did, and that it "
        "removed exactly the entries below the bound: a step shows a move that removed nothing"
    ),
)
