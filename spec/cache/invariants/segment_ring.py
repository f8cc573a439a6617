"""CACHE-SEGMENT-RING (segmented): entries up to a segment are cached; rotation is the only eviction."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge, pass_op
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants._declare import SEGMENTED, Invariant
from ledgerspec.spec.cache.segmented import geometry

ALIGNMENT = 63
"""The most one entry's alignment adds to the ring's size (align64)."""


class SegmentRing(Check):
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
    check=SegmentRing(),
    events={"*": frozenset({"insert", "insert_refused", "remove", "size_sample", "pass_start", "pass_end"})},
    soundness="one ring of segments per broker",
)
