"""CACHE-BELOW-SLOWEST: legacy mode invalidates below the slowest cursor when it moves; tracking mode never.

A trace shows the invalidation a cursor made as an ``invalidate`` pass naming that cursor (traces/FORMAT.md):
its events check says such a pass is legacy mode's only, and bounded by the slowest cursor the cursor
events placed. Whether a move had to invalidate, and what it removed, needs the step (conformance).
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INVALIDATE_PASS, PASS_START
from ledgerspec.spec.cache.invariants._chunk import NULL
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, EventsView, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, moved, removed


def _bound(value: int) -> str:
    return "none (the whole ledger)" if value == NULL else str(value)


class _BelowSlowest(Check):
    def events(self, view: EventsView) -> None:
        c = view.c
        made = np.flatnonzero((c.kind == PASS_START) & (c.reason == INVALIDATE_PASS) & (c.cursor >= 0))
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
            lambda i: f"{who(i)} is bounded by {_bound(int(c.entry[i]))}; the slowest active cursor is at "
            f"{_bound(int(view.slowest[i]))}",
        )

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
        "whether a cursor move had to invalidate (the slowest moved, or a cursor left), and that it removed "
        "exactly the entries below the bound: a step shows a move that removed nothing"
    ),
)
