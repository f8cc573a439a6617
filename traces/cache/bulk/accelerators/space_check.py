"""CACHE-SPACE-CHECK in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/space_check.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, REFUSED
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView


class _SpaceCheck(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        fresh = ~f.live
        limit = view.config.max_size if view.enabled else 0
        view.report(
            np.flatnonzero((c.kind == INSERT) & fresh & (f.total >= limit)),
            lambda i: f"cached {view.position(i)} while the size {f.total[i]} was not below maxSize {limit}",
        )
        view.report(
            np.flatnonzero((c.kind == REFUSED) & fresh & (f.total < limit)),
            lambda i: f"refused {view.position(i)} while the size {f.total[i]} was below maxSize {limit}",
        )


INVARIANT_ID = "CACHE-SPACE-CHECK"
ACCELERATOR = _SpaceCheck()
