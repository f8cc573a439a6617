"""CACHE-DUPLICATE-MERGE in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/duplicate_merge.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, MERGE, REFUSED
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, show


class _DuplicateMerge(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        view.report(
            np.flatnonzero((c.kind == INSERT) & f.live),
            lambda i: f"insert of cached {view.position(i)} returned True, expected False",
        )
        reads = np.nan_to_num(c.value).astype(np.int64)  # a merge adds its value
        reads = np.where(c.kind == REFUSED, np.where(c.count == NULL, 0, c.count), reads)  # refused: count
        before = np.where(f.count == NULL, 0, f.count)
        unchanged = (f.count == EVICTED) | (f.handler < 0)  # EVICTED refuses the merge; no handler: nothing to add to
        expected = np.where(unchanged, f.count, before + reads)
        got = np.where(c.kind == MERGE, c.count, f.count)
        duplicate = c.of_kinds(MERGE, REFUSED) & f.live & (got != expected)
        view.report(
            np.flatnonzero(duplicate),
            lambda i: (
                f"insert of cached {view.position(i)} with {reads[i]} reads: count {show(int(got[i]))}, "
                f"expected {expected[i]}"
            ),
        )


INVARIANT_ID = "CACHE-DUPLICATE-MERGE"
ACCELERATOR = _DuplicateMerge()
