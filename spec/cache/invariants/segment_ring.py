"""CACHE-SEGMENT-RING (segmented): entries up to a segment are cached; rotation is the only eviction."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, PASS_END, REFUSED, SIZE_PASS, SIZE_SAMPLE
from ledgerspec.spec.cache._normative import Judge, Rule, pass_op
from ledgerspec.spec.cache._shadow import At, Pass
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


ALIGNMENT = 63
"""The most one entry's alignment adds to the ring's size (align64)."""


class SegmentRing(Rule):
    """Entries up to a segment are cached, larger ones are not; the size stays within the ring; only rotation evicts."""

    kinds = frozenset({"size_sample", "pass_end", "insert", "insert_refused"})

    def event(self, at: At, judge: Judge) -> None:
        """A reported size within the ring; an insert cached exactly when it fits a segment."""
        event = at.event
        count, segment = geometry(judge.config)
        size = event.size
        if event.kind in ("size_sample", "pass_end"):
            if size is not None and size > count * segment + ALIGNMENT:
                judge.report(f"size {size} exceeds {count} segments of {segment} bytes")
        elif event.kind == "insert":
            if size is not None and size > segment:
                judge.report(
                    f"an entry of {size} bytes, larger than a segment ({segment}), was cached or evicted others"
                )
        elif size is None or size <= segment:  # a refused insert (one of unknown size counts as small)
            judge.report(f"an entry of {size} bytes (segment {segment}) was not cached")

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """Only a ring's rotation (a size pass inside an insert) removes entries."""
        if done.removed and not done.inside_insert:
            gone = sorted(entry.position for entry, _ in done.removed)
            label = judge.label if judge.label is not None else pass_op(done)
            judge.report(f"{label} removed {gone}; only rotation may")


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
    rule=SegmentRing(),
    events={"*": frozenset({"insert", "insert_refused", "remove", "size_sample", "pass_start", "pass_end"})},
    soundness="one ring of segments per broker",
)
