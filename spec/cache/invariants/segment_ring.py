"""CACHE-SEGMENT-RING (segmented): entries up to a segment are cached; rotation is the only eviction."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, PASS_END, REFUSED, SIZE_PASS, SIZE_SAMPLE
from ledgerspec.spec.cache.invariants._chunk import NULL
from ledgerspec.spec.cache.invariants._common import position
from ledgerspec.spec.cache.invariants._declare import SEGMENTED, Check, EventsView, Invariant, PassView
from ledgerspec.spec.cache.segmented import geometry


class _SegmentRing(Check):
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


INVARIANT = Invariant(
    order=15,
    id="CACHE-SEGMENT-RING",
    statement=(
        "An entry no larger than a segment is always cached and readable right after its insert; a larger "
        "one is never cached and changes nothing; the size never exceeds segmentCount * segmentSize plus "
        "one alignment unit (63 bytes); rotation on insert is the only way an entry leaves."
    ),
    citation="apache/bookkeeper 9590a97f67 bookie/storage/ldb/ReadCache.java (put, size)",
    profiles=(SEGMENTED,),
    check=_SegmentRing(),
    events={"*": frozenset({"insert", "insert_refused", "remove", "size_sample", "pass_start", "pass_end"})},
    soundness="one ring of segments per broker",
)
