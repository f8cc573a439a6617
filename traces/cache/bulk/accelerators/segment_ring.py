"""CACHE-SEGMENT-RING in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/segment_ring.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, PASS_END, REFUSED, SIZE_PASS, SIZE_SAMPLE
from ledgerspec.spec.cache.segmented import geometry
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._common import position
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView


class _SegmentRing(Accelerator):
    def events(self, view: EventsView) -> None:
        c = view.c
        count, segment = geometry(view.config)
        bound = count * segment + 63
        view.report(
            np.flatnonzero(c.of_kinds(SIZE_SAMPLE, PASS_END) & (c.size > bound)),
            lambda i: f"size {c.size[i]} exceeds {count} segments of {segment} bytes",
        )
        view.report(
            np.flatnonzero((c.kind == INSERT) & (c.size > segment)),
            lambda i: f"an entry of {c.size[i]} bytes, larger than a segment ({segment}), was cached or evicted others",
        )
        view.report(
            np.flatnonzero((c.kind == REFUSED) & (c.size <= segment)),
            lambda i: f"an entry of {c.size[i]} bytes (segment {segment}) was not cached",
        )

    def pass_end(self, view: PassView) -> None:
        rotation = view.kind == SIZE_PASS and view.ledger != NULL
        if len(view.removed) and not rotation:
            gone = [position(lg, en) for lg, en in zip(view.removed.ledger, view.removed.entry, strict=True)]
            view.report([f"{view.label} removed {sorted(gone)}; only rotation may"])


INVARIANT_ID = "CACHE-SEGMENT-RING"
ACCELERATOR = _SegmentRing()
