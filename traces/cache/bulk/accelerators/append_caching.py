"""CACHE-APPEND-CACHING in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/append_caching.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import APPEND, INSERT, MERGE, REFUSED
from ledgerspec.spec.cache.invariants._ledger import Due, legacy_mode
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._ledger import judged_by_next
from ledgerspec.traces.cache.bulk._views import Accelerator, EndView, EventsView


class _AppendCaching(Accelerator):
    def events(self, view: EventsView) -> None:
        c, readers = view.c, view.cursor_counts
        appends = np.flatnonzero(c.kind == APPEND)
        if not len(appends) and view.state() is None:
            return
        tracking = not legacy_mode(view)

        def facts(i: int) -> tuple[int, int, int]:
            return int(c.ledger[i]), int(c.entry[i]), int(readers[i])

        for event, after in judged_by_next(view, appends, facts):
            ledger, entry, active = event.facts
            what = f"append of {(ledger, entry)} with {active} active cursor(s) on the ledger"
            kind, count = int(c.kind[after]), int(c.count[after])
            offered = kind in (INSERT, REFUSED, MERGE) and view.position(after) == (ledger, entry)
            cached = offered and kind == INSERT
            if offered != (active > 0):
                view.report_at(after, f"{what}: {'offered to' if offered else 'not offered to'} the cache")
            elif cached and count != NULL and not tracking:
                view.report_at(after, f"{what}: cached with count {count}, want no read-count handler")
            elif cached and count not in (NULL, active):
                view.report_at(after, f"{what}: cached with count {count}, want {active}")

    def finish(self, view: EndView) -> str | None:
        """An append last in the trace with an active cursor: the event offering it may be cut off."""
        pending: Due | None = view.state()
        if pending is None or pending.facts[2] == 0:
            return None  # nothing after an append with no active cursor is what it must do
        ledger, entry, active = pending.facts
        return (
            f"the trace ends right after the append of {(ledger, entry)} (seq {pending.seq}) with {active} "
            "active cursor(s) on the ledger: the event offering it to the cache would come next"
        )


INVARIANT_ID = "CACHE-APPEND-CACHING"
ACCELERATOR = _AppendCaching()
