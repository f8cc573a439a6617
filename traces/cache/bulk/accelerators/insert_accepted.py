"""CACHE-INSERT-ACCEPTED in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/insert_accepted.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, REFUSED, SIZE_PASS
from ledgerspec.spec.cache.invariants._declare import PIP430
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._common import position
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView, show


class _InsertAccepted(Accelerator):
    def events(self, view: EventsView) -> None:
        if not view.enabled:
            return
        c, f = view.c, view.f
        view.report(
            np.flatnonzero((c.kind == REFUSED) & ~f.live),
            lambda i: f"insert of uncached {view.position(i)} returned False (size {f.total[i]})",
        )
        asked = (c.kind == INSERT) & ~f.live & (c.value == c.value)  # an insert that says what it asked for
        reads = np.nan_to_num(c.value).astype(np.int64)
        want = reads if view.profile == PIP430 else np.where(reads > 0, reads, NULL)
        view.report(
            np.flatnonzero(asked & (c.count != NULL) & (c.count != want)),
            lambda i: (
                f"inserted {view.position(i)} with {reads[i]} expected reads, but its count is {show(int(c.count[i]))}"
            ),
        )

    def pass_end(self, view: PassView) -> None:
        if view.kind == SIZE_PASS and view.ledger != NULL and len(view.removed):
            gone = sorted(position(lg, en) for lg, en in zip(view.removed.ledger, view.removed.entry, strict=True))
            view.report([f"inserting {position(view.ledger, view.entry)} also removed {gone}"])


INVARIANT_ID = "CACHE-INSERT-ACCEPTED"
ACCELERATOR = _InsertAccepted()
