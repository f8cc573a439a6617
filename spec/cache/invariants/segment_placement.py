"""CACHE-SEGMENT-PLACEMENT (segmented): entries go into the ring exactly where ReadCache puts them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ledgerspec.spec.cache._events import KINDS
from ledgerspec.spec.cache._kernels import align64
from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import SEGMENTED, Invariant
from ledgerspec.spec.cache.invariants._rules_queue import show
from ledgerspec.spec.cache.segmented import geometry

Position = tuple[int, int]


@dataclass
class Ring:
    """ReadCache's placement: the current segment, its offset, and each segment's index (position -> size)."""

    count: int
    size: int
    current: int = 0
    offset: int = 0
    segments: list[dict[Position, int]] = field(default_factory=list)
    newest: dict[Position, int] = field(default_factory=dict)
    """Position -> the segment of its newest copy."""
    rotation: set[Position] | None = None
    """The removals of the rotation pass just seen, until the insert it belongs to."""

    def put(self, position: Position, size: int) -> set[Position] | None:
        """Place an entry (``ReadCache.put``); the positions a rotation evicts, or None if it did not rotate."""
        aligned = align64(size)
        offset = self.offset
        self.offset += aligned
        evicted = None
        if offset + size > self.size:
            offset = self.offset
            self.offset += size
            if offset + size > self.size:
                self.current = (self.current + 1) % self.count
                self.offset = aligned
                cleared = self.segments[self.current]
                evicted = {p for p in cleared if self.newest.get(p) == self.current}
                for p in evicted:
                    del self.newest[p]
                self.segments[self.current] = {}
        self.segments[self.current][position] = size
        self.newest[position] = self.current
        return evicted

    def newest_size(self, position: Position) -> int | None:
        """The size of a position's newest copy in the ring (None: not in the ring)."""
        segment = self.newest.get(position)
        return None if segment is None else self.segments[segment].get(position)

    def reported(self) -> int:
        """``ReadCache.size()``: the current offset plus a full segment per other non-empty segment."""
        others = sum(1 for i, index in enumerate(self.segments) if i != self.current and index)
        return self.offset + others * self.size


class SegmentPlacement(Check):
    """Follow ReadCache's ring (:class:`Ring`) and hold the events to it.

    The ring is laid out once, with the configuration in force when the broker's events begin (a ring
    cannot be resized). A rotation's removals (a size pass naming a position) must be exactly what the
    insert they belong to evicts; an insert that fits its segment rotates nothing; a reported size is
    the ring's; a read answers with the newest copy's size.
    """

    kinds = frozenset(KINDS)
    """Every kind: the first event lays the ring out."""

    def event(self, at: At, judge: Judge) -> None:
        """One event against the ring."""
        ring = judge.memory.get("ring")
        if ring is None:
            count, size = geometry(judge.config)
            ring = judge.memory["ring"] = Ring(count, size, segments=[{} for _ in range(count)])
        event, kind = at.event, at.event.kind
        if kind == "pass_start" and event.reason == "size" and event.ledger is not None:
            ring.rotation = set()
        elif kind == "remove" and ring.rotation is not None:
            ring.rotation.add(event.position)
        elif kind == "insert" and event.size is not None and event.size <= ring.size:
            self.insert(ring, event.position, event.size, judge)
        elif kind == "size_sample" and event.size != ring.reported():
            judge.report(f"reported size {show(event.size)}, the ring holds {ring.reported()}")
        elif kind == "hit" and event.size is not None:
            newest = ring.newest_size(event.position)
            if newest is not None and newest != event.size:
                judge.report(f"read of {event.position} answered {event.size} bytes, its newest copy has {newest}")

    @staticmethod
    def insert(ring: Ring, at: Position, size: int, judge: Judge) -> None:
        """Place the entry; what it evicts must be what the rotation pass before it removed."""
        seen, ring.rotation = ring.rotation or set(), None
        evicted = ring.put(at, size)
        if evicted is None:
            if seen:
                judge.report(f"inserting {at} ({size} bytes) rotated the ring, but the entry fits")
            return
        if evicted - seen - {at} or seen - evicted:
            judge.report(
                f"inserting {at} ({size} bytes) rotates the ring: it evicts {sorted(evicted)}, "
                f"the trace shows {sorted(seen)}"
            )


INVARIANT = Invariant(
    order=18,
    id="CACHE-SEGMENT-PLACEMENT",
    statement=(
        "Entries are placed as ReadCache places them: an insert reserves align64(size) bytes in the "
        "current segment, or, if the entry does not fit, rotates to the next segment, which it clears "
        "(every entry whose newest copy was there leaves) and starts at align64(size); the reported size "
        "is the current offset plus a full segment for every other non-empty segment; a read answers "
        "with the newest copy."
    ),
    citation="apache/bookkeeper 9590a97f67 bookie/storage/ldb/ReadCache.java (put, get, size)",
    profiles=(SEGMENTED,),
    check=SegmentPlacement(),
    events={"*": frozenset({"insert", "remove", "hit", "size_sample", "pass_start", "pass_end"})},
    soundness="one ring of segments per broker",
)
