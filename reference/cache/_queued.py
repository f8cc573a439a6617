"""What the two PIP-430 caches share: per-ledger range caches in front of one removal queue.

Forced removals (invalidate a position, a ledger, clear) are the same walk in both; what happens to
each removed wrapper differs (pip430 marks its handler EVICTED, the merged code leaves a tombstone
and releases the cache's value), so each profile provides ``_force_remove``.

Complexity: invalidate_before O((k + 1) log n); invalidate_ledger and clear O(k log n).
"""

from __future__ import annotations

import abc
from typing import ClassVar, TypeVar

from ledgerspec.reference.cache._base import ReferenceCache
from ledgerspec.reference.cache._range_cache import RangeCaches
from ledgerspec.reference.cache._removal_queue import RemovalQueue, Wrapper

C = TypeVar("C")


class QueuedCache(ReferenceCache[C]):
    """A reference cache with range caches (``_ranges``) and a removal queue (``_queue``)."""

    _ranges: RangeCaches[Wrapper]
    _queue: RemovalQueue
    TOMBSTONES_SHOWN: ClassVar[bool] = False
    """Whether the queue's length is observed: then ``clear`` keeps the tombstones it leaves, as Pulsar does."""

    def _cache(self, wrapper: Wrapper, expected_reads: int | None) -> bool:
        """Cache a new entry: in its ledger's range cache, at the queue's tail (``RangeCache.put``); True."""
        self._ranges.put(wrapper.ledger, wrapper.entry, wrapper)
        self._queue.offer(wrapper)
        self._count("inserted")
        if self._listener is not None:
            self._emit(
                "insert",
                ledger=wrapper.ledger,
                entry=wrapper.entry,
                size=wrapper.size,
                count=expected_reads,
                timestamp=wrapper.ts,
            )
        return True

    @abc.abstractmethod
    def _force_remove(self, doomed: list[Wrapper], reason: str) -> None:
        """Finish removing wrappers the range caches no longer map (counting them under ``reason``)."""

    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:
        """``invalidateEntries(pos)``: ``removeRange`` of the ledger's entries strictly before it (PR #24623)."""
        self._check_clock(now)
        self._now = now
        self._pass_start("invalidate", ledger=ledger, entry=entry)
        self._force_remove(self._ranges.pop_before(ledger, entry), "removed_invalidate")
        self._pass_end("invalidate")

    def remove_range(self, *, now: int, ledger: int, first: int, last: int, inclusive: bool) -> tuple[int, int]:
        """``RangeCache.removeRange(first, last, lastInclusive)`` of one ledger; (entries, bytes) freed (PR #24623)."""
        end = self._range_start(now, ledger, first, last, inclusive)
        doomed = self._ranges.pop_range(ledger, first, end)
        self._force_remove(doomed, "removed_invalidate")
        self._pass_end("range")
        return len(doomed), sum(w.size for w in doomed)

    def invalidate_ledger(self, *, now: int, ledger: int) -> None:
        """``invalidateAllEntries(ledgerId)``: ledger deletion or a read failure."""
        self._check_clock(now)
        self._now = now
        self._pass_start("invalidate", ledger=ledger)
        self._force_remove(self._ranges.pop_ledger(ledger), "removed_invalidate")
        self._pass_end("invalidate")

    def clear(self, *, now: int) -> None:
        """``clear()``: every queued wrapper is then a tombstone; dropped at once unless the queue's length shows."""
        self._check_clock(now)
        self._now = now
        self._pass_start("clear")
        self._force_remove(self._ranges.pop_all(), "removed_clear")
        if not self.TOMBSTONES_SHOWN:
            self._queue.clear()
        self._pass_end("clear")
