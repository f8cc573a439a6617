"""Profile ``segmented``: one broker-wide ring of segments, as BookKeeper's ``ReadCache``.

Source: apache/bookkeeper ``bookkeeper-server/src/main/java/org/apache/bookkeeper/bookie/storage/ldb/
ReadCache.java`` at 9590a97f67, the design PIP-174 (apache/pulsar#15954, never merged) borrowed.
Geometry is fixed at start (``segmentsCount = max(2, maxCacheSize / maxSegmentSize)``, ``segmentSize =
maxCacheSize / segmentsCount``); a put takes the fast path if it fits, else the slow path, which
sequentially always rotates: the next segment's index is cleared and its entries are evicted together.
Lookups go from the newest segment to the oldest; an entry larger than a segment is not cached; there
are no TTLs, read counts or per-ledger invalidation, and the ring cannot be resized.

Besides one index per segment, a map from position to the newest segment holding it answers lookups
in O(1) instead of probing every segment: a put goes to the current segment, which is the newest; a
rotation clears the oldest segment, and a position whose newest copy is there is in no other segment.

Complexity: insert O(1) amortized (a rotation clears k entries, each paid for by its insert); get O(1);
get_range O(k) for k positions; size O(1) (a running count of non-empty segments); invalidations,
clear and eviction passes O(1) (they do nothing).
"""

from __future__ import annotations

from typing import Any

from ledgerspec.reference.cache._base import EntryRow, ReferenceCache, require

Position = tuple[int, int]
"""(ledgerId, entryId)."""


def align64(size: int) -> int:
    """``WriteCache.align64``: round up to a multiple of 64 (BookKeeper ReadCache at 9590a97f67)."""
    return (size + 63) & ~63


def geometry(max_size: int, segment_size_max: int) -> tuple[int, int]:
    """(segment count, segment size) of ``ReadCache`` (BookKeeper ReadCache at 9590a97f67), in integer division."""
    count = max(2, max_size // segment_size_max)
    return count, max_size // count


class SegmentedCache(ReferenceCache[None]):
    """The ring of segments: each segment's index maps a position to (offset, length)."""

    PROFILE = "segmented"

    def _setup(self) -> None:
        config = self._config
        self._segment_count, self._segment_size = geometry(config.max_size, config.segment_size_max)
        self._segments: list[dict[Position, tuple[int, int]]] = [{} for _ in range(self._segment_count)]
        self._current = 0
        """``currentSegmentIdx``."""
        self._offset = 0
        """``currentSegmentOffset``."""
        self._newest: dict[Position, int] = {}
        """Position -> index of the newest segment whose index holds it."""
        self._non_empty = 0
        """Number of segments whose index is not empty."""
        self._inserting: Position = (0, 0)
        """The position whose insert rotates the ring (its events name it)."""

    @property
    def segment_count(self) -> int:
        """``segmentsCount``."""
        return self._segment_count

    @property
    def segment_size(self) -> int:
        """``segmentSize``."""
        return self._segment_size

    # --- observation ------------------------------------------------------------------------------

    def _entry_rows(self) -> list[EntryRow]:
        """Visible entries (the newest segment wins); no read counts and no timestamps."""
        return [self._row(position, segment) for position, segment in sorted(self._newest.items())]

    def _entry_row(self, ledger: int, entry: int) -> EntryRow | None:
        segment = self._newest.get((ledger, entry))
        return None if segment is None else self._row((ledger, entry), segment)

    def _row(self, position: Position, segment: int) -> EntryRow:
        return (*position, self._segments[segment][position][1], None, None, None, None)

    def _size(self) -> int:
        """``ReadCache.size()`` (ReadCache): the current offset plus a full segment per other non-empty one."""
        others = self._non_empty - (1 if self._segments[self._current] else 0)
        return self._offset + others * self._segment_size

    def _copy_count(self, shared: None) -> None:
        return shared

    # --- operations -------------------------------------------------------------------------------

    def _check_changes(self, changes: dict[str, Any]) -> None:
        """Refuse a new ``max_size``: the ring cannot be resized; other fields are kept but unused."""
        max_size = changes.get("max_size")
        require(
            max_size is None or max_size == self._config.max_size,
            f"configure: the ring cannot be resized, got max_size={max_size!r}",
        )

    def _reserved(self, size: int) -> int:
        """What the fast path reserves for an entry of ``size`` bytes: ``align64(size)``."""
        return align64(size)

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        """``ReadCache.put`` (BookKeeper ReadCache at 9590a97f67), sequentially: fast path if it fits, else rotate.

        The fast path reserves ``align64(size)``; when the entry does not fit, the slow path reserves
        ``size`` more, which sequentially never fits either, and rotates: ``current`` moves on, the
        offset becomes ``align64(size)``, the segment's index is cleared (its entry count goes to
        ``removed_size``) and the entry goes at offset 0. A repeated key overwrites within a segment.

        Micro-scenario: segment 128; put 100 -> offset 0, reserved 128; put 10 -> 128 + 10 > 128,
        rotate to segment 1, offset 64; the 100 stays readable in segment 0 until the ring comes round.
        """
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        self._now = now
        if size > self._segment_size:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
            return False
        aligned = self._reserved(size)
        before = self._size() if self._listener is not None else 0
        offset = self._offset
        self._offset += aligned
        if offset + size > self._segment_size:
            offset = self._offset
            self._offset += size
            if offset + size > self._segment_size:
                self._inserting = (ledger, entry)
                self._rotate(aligned, before)
                offset = 0
        index = self._segments[self._current]
        if not index:
            self._non_empty += 1
        index[ledger, entry] = (offset, size)
        self._newest[ledger, entry] = self._current
        self._count("inserted")
        if self._listener is not None:
            self._emit("insert", ledger=ledger, entry=entry, size=size, timestamp=now)
        return True

    def _rotate(self, aligned: int, before: int) -> None:
        """Move to the next segment and clear its index: every entry in it is evicted at once.

        A listener sees a size pass bracketing the removals, starting at ``before``, the size before
        this insert (the reservations in between are transient), naming the position being inserted.
        """
        listening = self._listener is not None
        if listening:
            ledger, entry = self._inserting
            self._emit("pass_start", reason="size", size=before, ledger=ledger, entry=entry)
        self._current = (self._current + 1) % self._segment_count
        self._offset = aligned
        index = self._segments[self._current]
        if index:
            self._non_empty -= 1
            self._count("removed_size", len(index))
            for position, (_, length) in index.items():
                if self._newest[position] == self._current:
                    del self._newest[position]
                    if listening:
                        self._emit("remove", ledger=position[0], entry=position[1], size=length, reason="size")
            self._segments[self._current] = {}
        if listening:
            self._pass_end("size")

    def _read_one(self, ledger: int, entry: int) -> int | None:
        copy = None
        if (ledger, entry) in self._newest:
            self._count("hits")
            copy = self._make_copy(None)
        else:
            self._count("misses")
        if self._listener is not None:
            self._read_event(ledger, entry, copy, None)
        return copy

    def _nothing(self, now: int) -> None:
        """Per-ledger invalidation, clear and TTL/size passes do nothing: rotation is the only eviction."""
        self._check_clock(now)
        self._now = now

    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:  # noqa: ARG002 - a no-op here
        """No per-ledger invalidation (PIP-174, apache/pulsar#15954)."""
        self._nothing(now)

    def invalidate_ledger(self, *, now: int, ledger: int) -> None:  # noqa: ARG002 - a no-op here
        """No per-ledger invalidation (PIP-174, apache/pulsar#15954)."""
        self._nothing(now)

    def clear(self, *, now: int) -> None:
        """No clear: only rotation evicts (PIP-174, apache/pulsar#15954)."""
        self._nothing(now)

    def evict_timestamp(self, *, now: int) -> None:
        """No TTL (PIP-174, apache/pulsar#15954)."""
        self._nothing(now)

    def evict_size(self, *, now: int) -> None:
        """No size pass: the ring never exceeds its segments (BookKeeper ReadCache at 9590a97f67)."""
        self._nothing(now)
