"""CACHE-LEDGER-CLOSE: a closed ledger, or one whose last cursor left in legacy mode, has nothing cached.

A trace has no close, but it has the cursors: in legacy mode the ``cursor_remove`` that leaves a ledger
without an active cursor is followed by the invalidation it made (a whole-ledger ``invalidate`` pass
naming it, judged by CACHE-NO-STALE-READ and CACHE-BELOW-SLOWEST), or finds nothing of the ledger cached.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CURSOR_REMOVE, INVALIDATE_PASS, PASS_START
from ledgerspec.spec.cache._ops import LedgerClose
from ledgerspec.spec.cache.invariants._chunk import NULL
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, EventsView, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, removed


def _made_by(view: EventsView, i: int, ledger: int) -> bool:
    """Event ``i`` starts the invalidation a cursor of ``ledger`` made."""
    c = view.c
    started = c.kind[i] == PASS_START and c.reason[i] == INVALIDATE_PASS
    return bool(started and c.cursor[i] >= 0 and c.ledger[i] == ledger)


class _LedgerClose(Check):
    def events(self, view: EventsView) -> None:
        c = view.c
        pending: tuple[int, str, int] | None = view.state()
        if pending is not None:  # the last departure of the previous segment: its next event is this one's first
            view.keep_state(None)
            ledger, name, seq = pending
            if not _made_by(view, 0, ledger):
                self._judge(view, 0, ledger, f"its last active cursor {name!r} leaving (seq {seq})", 0)
        if view.profile != LEGACY and view.config.track_reads:
            return
        for i in np.flatnonzero((c.kind == CURSOR_REMOVE) & (view.slowest == NULL)).tolist():
            ledger, name = int(c.ledger[i]), c.cursor_names[c.cursor[i]]
            if i + 1 == len(c):
                view.keep_state((ledger, name, int(c.seq[i])))
            elif not _made_by(view, i + 1, ledger):
                self._judge(view, i, ledger, f"its last active cursor {name!r} leaving", i + 1)

    @staticmethod
    def _judge(view: EventsView, i: int, ledger: int, what: str, limit: int) -> None:
        table = view.cached(limit, ledger)
        if len(table):
            order = np.argsort(table.entry, kind="stable")
            left = [(ledger, int(entry)) for entry in table.entry[order].tolist()]
            view.report_at(i, f"{what} left {left} of ledger {ledger} cached")

    def step(self, view: StepView) -> None:
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
    check=_LedgerClose(),
    needs={"*": frozenset({LEDGER})},
    events={"*": frozenset({"cursor_add", "cursor_seek", "cursor_remove", "pass_start", "insert", "remove"})},
    soundness="a ledger's cursors and its cache are all in one broker: its last cursor leaving is judged there",
    conformance_only=(
        "closing a ledger (an operation, not an event), and that the last cursor's departure removed no "
        "entry of another ledger"
    ),
)
