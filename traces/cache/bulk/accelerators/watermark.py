"""CACHE-WATERMARK in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/watermark.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import SIZE_PASS
from ledgerspec.spec.cache.invariants._declare import PIP430
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._common import protected_unexpired
from ledgerspec.traces.cache.bulk._views import Accelerator, PassView


class _Watermark(Accelerator):
    def pass_end(self, view: PassView) -> None:
        if view.kind != SIZE_PASS or view.ledger != NULL:  # a ring's rotation inside an insert is not a pass
            return
        trigger, watermark = view.config.trigger_size, view.config.watermark_size
        removed = view.removed
        if view.before <= trigger:
            if len(removed):
                view.report([f"size {view.before} is not above the trigger {trigger}, yet {len(removed)} entries went"])
            return
        if view.after > watermark:
            excused = view.profile == PIP430 and bool(
                protected_unexpired(view.counts, view.table.ts, view.now, view.config.ttl_max).all()
            )
            if not excused:
                view.report(
                    [
                        (
                            f"size {view.before} was above the trigger {trigger}; "
                            f"after eviction {view.after} > watermark {watermark}"
                        )
                    ]
                )
        elif len(removed) and view.after + int(np.max(removed.size)) <= watermark:
            view.report(
                [
                    (
                        f"evicted down to {view.after}, more than needed: the watermark {watermark} was reached "
                        "before the last entry removed"
                    )
                ]
            )


INVARIANT_ID = "CACHE-WATERMARK"
ACCELERATOR = _Watermark()
