"""CACHE-SEGMENT-PLACEMENT in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/segment_placement.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import HIT, INSERT, PASS_END, PASS_START, REMOVE, SIZE_PASS, SIZE_SAMPLE
from ledgerspec.spec.cache.invariants.segment_placement import Position, Ring
from ledgerspec.spec.cache.segmented import geometry
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView


class _SegmentPlacement(Accelerator):
    def events(self, view: EventsView) -> None:
        ring = view.state()
        if ring is None:
            count, size = geometry(view.config)
            ring = Ring(count, size, segments=[{} for _ in range(count)])
            view.keep_state(ring)
        c = view.c
        interesting = np.flatnonzero(c.of_kinds(INSERT, HIT, REMOVE, PASS_START, PASS_END, SIZE_SAMPLE))
        kinds, ledgers, entries, sizes = c.kind.tolist(), c.ledger.tolist(), c.entry.tolist(), c.size.tolist()
        for i in interesting.tolist():
            kind, at = kinds[i], (ledgers[i], entries[i])
            if kind == PASS_START and c.reason[i] == SIZE_PASS and ledgers[i] != NULL:
                ring.rotation = set()
            elif kind == REMOVE and ring.rotation is not None:
                ring.rotation.add(at)
            elif kind == INSERT and sizes[i] <= ring.size:
                self._insert(view, ring, i, at, sizes[i])
            elif kind == SIZE_SAMPLE and sizes[i] != ring.reported():
                view.report_at(i, f"reported size {sizes[i]}, the ring holds {ring.reported()}")
            elif kind == HIT and sizes[i] != NULL:
                copy = ring.segments[ring.newest[at]].get(at) if at in ring.newest else None
                if copy is not None and copy != sizes[i]:
                    view.report_at(i, f"read of {at} answered {sizes[i]} bytes, its newest copy has {copy}")

    @staticmethod
    def _insert(view: EventsView, ring: Ring, i: int, at: Position, size: int) -> None:
        seen, ring.rotation = ring.rotation, None
        evicted = ring.put(at, size)
        if evicted is None:
            if seen:
                view.report_at(i, f"inserting {at} ({size} bytes) rotated the ring, but the entry fits")
            return
        missing, extra = evicted - (seen or set()) - {at}, (seen or set()) - evicted
        if missing or extra:
            view.report_at(
                i,
                f"inserting {at} ({size} bytes) rotates the ring: it evicts {sorted(evicted)}, "
                f"the trace shows {sorted(seen or set())}",
            )


INVARIANT_ID = "CACHE-SEGMENT-PLACEMENT"
ACCELERATOR = _SegmentPlacement()
