"""CACHE-OLDEST-FIRST in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/oldest_first.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

from ledgerspec.spec.cache._events import SIZE_LIKE
from ledgerspec.traces.cache.bulk._common import order_violations
from ledgerspec.traces.cache.bulk._views import Accelerator, PassView


class _OldestFirst(Accelerator):
    def pass_end(self, view: PassView) -> None:
        if view.kind in SIZE_LIKE:
            view.report(order_violations(view, "size eviction"))


INVARIANT_ID = "CACHE-OLDEST-FIRST"
ACCELERATOR = _OldestFirst()
