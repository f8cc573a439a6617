"""CACHE-DUPLICATE-REFUSED in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/duplicate_refused.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, MERGE
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, show


class _DuplicateRefused(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        view.report(
            np.flatnonzero((c.kind == INSERT) & f.live),
            lambda i: f"insert of cached {view.position(i)} returned True, expected False",
        )
        view.report(
            np.flatnonzero((c.kind == MERGE) & f.live),
            lambda i: (
                f"insert of cached {view.position(i)} changed its count from {show(int(f.count[i]))} to {c.count[i]}"
            ),
        )


INVARIANT_ID = "CACHE-DUPLICATE-REFUSED"
ACCELERATOR = _DuplicateRefused()
