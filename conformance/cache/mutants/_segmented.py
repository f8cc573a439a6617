"""Mutants of the segmented reference cache (``ledgerspec.reference.cache``): see the package docstring."""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import (
    EntryRow,
    SegmentedCache,
)


class SegmentedRotationKeepsIndex(SegmentedCache):
    """Segmented rotation that does not clear the index: the next segment is reused, but the entries
    indexed there stay readable over bytes that are being overwritten.

    Breaks CACHE-SEGMENT-RING / CACHE-MODEL (rotation evicts the whole segment).
    """

    _current: int

    def _rotate(self, aligned: int, before: int) -> None:
        self._emit("pass_start", reason="size", size=before)
        self._current = (self._current + 1) % self._segment_count
        self._offset = aligned  # bug: the segment's index is not cleared
        self._pass_end("size")


class SegmentedOldestSegmentFirst(SegmentedCache):
    """Segmented lookup oldest-segment-first: a position cached in two segments answers with the older
    copy, not the newest.

    Breaks CACHE-MODEL (the newest segment wins, BookKeeper ReadCache at 9590a97f67).
    """

    def _lookup(self, position: tuple[int, int]) -> tuple[int, int] | None:
        """Probe from the segment after the current one (the oldest) round to the current one."""
        for step in range(1, self._segment_count + 1):
            found = self._segments[(self._current + step) % self._segment_count].get(position)
            if found is not None:
                return found
        return None

    def _entry_rows(self) -> list[EntryRow]:
        rows: list[EntryRow] = []
        for position in sorted(self._newest):
            found = self._lookup(position)
            assert found is not None
            rows.append((position[0], position[1], found[1], None, None, None, None))
        return rows


class SegmentedNoAlign(SegmentedCache):
    """The fast path reserves ``size`` instead of ``align64(size)``: entries pack tighter than
    ``ReadCache`` places them, so the offset (and the size) and the rotation points differ.

    Breaks CACHE-MODEL (BookKeeper ReadCache at 9590a97f67).
    """

    def _reserved(self, size: int) -> int:
        return size  # bug: align64(size)


class SegmentedSizeCountsCurrentFull(SegmentedCache):
    """``size()`` as the non-empty segments times the segment size: the current segment counts as full.

    Breaks CACHE-MODEL (``ReadCache.size()`` counts the current segment's offset, BookKeeper ReadCache at 9590a97f67).
    """

    def _size(self) -> int:
        return self._non_empty * self._segment_size


class SegmentedFitsExclusive(SegmentedCache):
    """``>=`` for ``>`` in the fast path's fit test: an entry that ends exactly at the segment's end is
    taken not to fit, and the ring rotates one entry early.

    Breaks CACHE-MODEL / CACHE-SEGMENT-RING (BookKeeper ReadCache at 9590a97f67 rotates when
    ``offset + size > segmentSize``).
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        if size <= self._segment_size and self._offset + size == self._segment_size:
            self._offset = self._segment_size  # bug: the exact fit is treated as a miss, so the put rotates
        return super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)


class SegmentedHitNotCounted(SegmentedCache):
    """A counter not incremented: a hit answers its copy but forgets ``hits++``.

    Breaks CACHE-MODEL (the counters are part of the observation).
    """

    def _count(self, counter: str, n: int = 1) -> None:
        if counter != "hits":  # bug: the hit path's increment is missing
            super()._count(counter, n)


MUTANTS: list[Mutant] = [
    Mutant(
        "segmented-rotation-keeps-index",
        "segmented",
        "rotation does not clear the segment's index",
        SegmentedRotationKeepsIndex,
    ),
    Mutant(
        "segmented-oldest-segment-first",
        "segmented",
        "lookup probes the oldest segment first",
        SegmentedOldestSegmentFirst,
    ),
    Mutant("segmented-no-align", "segmented", "fast path reserves size, not align64(size)", SegmentedNoAlign),
    Mutant(
        "segmented-size-counts-current-full",
        "segmented",
        "size() counts the current segment as full",
        SegmentedSizeCountsCurrentFull,
    ),
    Mutant(
        "segmented-fits-exclusive", "segmented", "an entry ending at the segment's end rotates", SegmentedFitsExclusive
    ),
    Mutant("segmented-hit-not-counted", "segmented", "a hit is not counted", SegmentedHitNotCounted),
]
