"""CACHE-LEDGER-CLOSE in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/ledger_close.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CURSOR_REMOVE, INVALIDATE_PASS, LEDGER_CLOSE, PASS_START
from ledgerspec.spec.cache.invariants._ledger import Due, legacy_mode
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._common import positions
from ledgerspec.traces.cache.bulk._ledger import judged_by_next
from ledgerspec.traces.cache.bulk._views import Accelerator, EndView, EventsView


class _LedgerClose(Accelerator):
    def events(self, view: EventsView) -> None:
        c = view.c
        due = c.kind == LEDGER_CLOSE
        if legacy_mode(view):
            due |= (c.kind == CURSOR_REMOVE) & (view.cursor_counts == 1) & (view.slowest == NULL)

        def facts(i: int) -> tuple[int, str]:
            ledger = int(c.ledger[i])
            if c.kind[i] == LEDGER_CLOSE:
                return ledger, f"closing ledger {ledger}"
            return ledger, f"its last active cursor {c.cursor_names[c.cursor[i]]!r} leaving"

        for event, after in judged_by_next(view, np.flatnonzero(due), facts):
            ledger, what = event.facts
            starts = c.kind[after] == PASS_START and c.reason[after] == INVALIDATE_PASS and c.ledger[after] == ledger
            if starts and c.entry[after] == NULL:
                continue  # the whole ledger's invalidation: CACHE-NO-STALE-READ judges that it leaves nothing
            left = view.cached(after, ledger)
            if len(left):
                view.report_event(event.seq, event.row, f"{what} left {positions(left)} of ledger {ledger} cached")

    def finish(self, view: EndView) -> str | None:
        """A close or departure last in the trace, its ledger still cached: its invalidation may be cut off."""
        pending: Due | None = view.state()
        if pending is None:
            return None
        ledger, what = pending.facts
        left = view.cached_in(ledger)
        if not len(left):
            return None
        return (
            f"the trace ends right after {what} (seq {pending.seq}), with {positions(left)} of ledger {ledger} "
            "cached: the invalidation would come next"
        )


INVARIANT_ID = "CACHE-LEDGER-CLOSE"
ACCELERATOR = _LedgerClose()
