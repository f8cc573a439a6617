"""Profile ``pulsar-master``: the entry cache as merged by apache/pulsar PR #24623.

Sources: PR #24623 at 490ba0cca1 and later fixes up to fbcfacf324 (PR #25988), ``managed-ledger/src/
main/java/org/apache/bookkeeper/mledger/impl/cache/RangeCacheRemovalQueue.java`` and its neighbours.
Bounded requeue to the tail instead of a stash (D1); the ``accessed`` flag set by reads and its TTL
extension; one TTL with strict ``<``; size eviction ignores timestamps (D6); duplicate inserts refused
(D4); ``markRead`` with no floor, and one more ``markRead`` when the cache's own value is deallocated
after removal (D7; the D numbers are those of DEVIATIONS.md). A handler exists only for a count > 0.

Complexity (n cached entries, k removed, r requeued by the operation): insert, get, release,
replay_increment O(log n); get_range O(k log n) for k positions; invalidate_before O((k + 1) log n);
invalidate_ledger and clear O(k log n); evict_timestamp and evict_size O((k + r + 1) log n).
Requeues are paid for: an entry requeues for its count at most ``max_requeue`` times in its life, and
for ``accessed`` at most once per read, so passes are amortized O(max_requeue * log n).
"""

from __future__ import annotations

from ledgerspec.reference.cache._base import EntryRow, require
from ledgerspec.reference.cache._ledger import ManagedLedgerLayer
from ledgerspec.reference.cache._queued import QueuedCache
from ledgerspec.reference.cache._range_cache import RangeCaches, RangeRows
from ledgerspec.reference.cache._read_count import MergedReadCount
from ledgerspec.reference.cache._removal_queue import RemovalQueue, Wrapper


class PulsarMasterCache(RangeRows[Wrapper], ManagedLedgerLayer, QueuedCache[MergedReadCount | None]):
    """The merged cache: one queue with requeue, accessed flag, one TTL, duplicates refused.

    An open copy remembers the handler it shares (None for an entry inserted with no expected reads).
    """

    PROFILE = "pulsar-master"
    STATS = ("evictions", "hit_bytes")
    TOMBSTONES_SHOWN = True

    def _setup(self) -> None:
        self._ranges: RangeCaches[Wrapper] = RangeCaches()
        self._queue = RemovalQueue()

    def _shared_of(self, ledger: int, entry: int) -> MergedReadCount | None:
        """A copy shares the cached entry's handler."""
        wrapper = self._ranges.get(ledger, entry)
        return None if wrapper is None else wrapper.handler

    # --- observation ------------------------------------------------------------------------------

    def _row(self, wrapper: Wrapper) -> EntryRow:
        """Timestamps are the insertion time or the last requeue time."""
        handler = wrapper.handler
        count = None if handler is None else handler.count
        return (wrapper.ledger, wrapper.entry, wrapper.size, count, wrapper.ts, wrapper.requeues, wrapper.accessed)

    def queue_fields(self) -> dict[str, int]:
        """``queue_length`` (tombstones included) in O(1); ``non_evictable_size`` as ``getNonEvictableSize()`` in O(n).

        ``getNonEvictableSize`` counts an entry without a handler as non-evictable (E5), although no
        pass treats it so (managed-ledger 4.2.4 ``RangeCacheRemovalQueue``).
        """
        non_evictable = sum(
            w.size for w in self._ranges.values() if w.handler is None or w.handler.has_expected_reads()
        )
        return {"queue_length": len(self._queue), "non_evictable_size": non_evictable}

    def _size(self) -> int:
        return self._ranges.total_size

    def _copy_count(self, shared: MergedReadCount | None) -> int | None:
        return None if shared is None else shared.count

    # --- insert and reads -------------------------------------------------------------------------

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        """``RangeCache.put``: put-if-absent, stamped ``now``, offered at the tail (apache/pulsar#24623).

        A duplicate is refused and changes nothing: not its count, timestamp or ``accessed`` (D4).
        Inserts are never refused for size.
        """
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        self._now = now
        if self._disabled or self._ranges.get(ledger, entry) is not None:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size, count=expected_reads)
            return False
        wrapper = Wrapper(ledger, entry, size, now, MergedReadCount.maybe_create(expected_reads or 0))
        return self._cache(wrapper, expected_reads)

    def _read_one(self, ledger: int, entry: int) -> int | None:
        """Look up one position; a hit sets ``accessed`` and dispatches a copy sharing the handler (PR #24623)."""
        wrapper = self._ranges.get(ledger, entry)
        if wrapper is None:
            self._count("misses")
            if self._listener is not None:
                self._read_event(ledger, entry, None, None)
            return None
        wrapper.accessed = True
        self._count("hits")
        self._count("hit_bytes", wrapper.size)
        copy = self._make_copy(wrapper.handler)
        if self._listener is not None:
            self._read_event(ledger, entry, copy, self._copy_count(wrapper.handler))
        return copy

    def release(self, *, now: int, copy: int) -> None:
        """Releasing a dispatch copy (flag true) calls ``markRead()``: -1, no floor (apache/pulsar#24623)."""
        self._check_clock(now)
        handler = self._open_copy(copy, "release")
        self._now = now
        del self._copies[copy]
        if handler is not None:
            handler.mark_read()
        if self._listener is not None:
            self._emit("release", copy=copy, count=self._copy_count(handler))

    def replay_increment(self, *, now: int, copy: int) -> None:
        """``incrementExpectedReadCount()``: +1 if there is a handler; returns nothing (D3)."""
        self._check_clock(now)
        handler = self._open_copy(copy, "replay_increment")
        self._now = now
        if handler is not None:
            handler.increment()
        if self._listener is not None:
            self._emit("replay_increment", copy=copy, count=self._copy_count(handler))

    # --- removal ----------------------------------------------------------------------------------

    def _release(self, wrapper: Wrapper) -> None:
        """The cache's own value released as the entry leaves: one more ``markRead()`` of the handler (D7)."""
        if wrapper.handler is not None:
            wrapper.handler.mark_read()

    def _removed(self, wrapper: Wrapper, reason: str) -> None:
        """Finish ``removeEntry`` of an unmapped wrapper: count it, and ``markRead()`` once more.

        The cache's own value has ``decreaseReadCountOnRelease`` true, so deallocating it decrements
        the shared handler once more (apache/pulsar#24623, D7); only open copies can see it.
        """
        self._count(reason)
        self._release(wrapper)
        if self._listener is not None:
            self._emit(
                "remove",
                ledger=wrapper.ledger,
                entry=wrapper.entry,
                size=wrapper.size,
                timestamp=wrapper.ts,
                count=self._copy_count(wrapper.handler),
                reason=reason.removeprefix("removed_"),
            )

    def _force_remove(self, doomed: list[Wrapper], reason: str) -> None:
        """``removeRange`` / ``clear``: the wrappers stay queued as tombstones (apache/pulsar#24623)."""
        for wrapper in doomed:
            self._queue.tombstone(wrapper)
            self._removed(wrapper, reason)

    # --- eviction ---------------------------------------------------------------------------------

    def _should_requeue(self, wrapper: Wrapper) -> bool:
        """``shouldRequeue`` (apache/pulsar#24623): accessed with extend-TTL on, or expected reads and budget left."""
        config = self._config
        if config.extend_ttl and wrapper.accessed:
            return True
        handler = wrapper.handler
        return handler is not None and handler.has_expected_reads() and wrapper.requeues < config.max_requeue

    def _evict_head(self, head: Wrapper, reason: str) -> None:
        self._queue.poll()
        self._ranges.pop(head.ledger, head.entry)
        self._removed(head, reason)

    def evict_timestamp(self, *, now: int) -> None:
        """``evictLEntriesBeforeTimestamp(now - ttl)`` (apache/pulsar#24623): strict ``<``; requeue or remove; STOP.

        A requeued entry is stamped ``now`` (>= ``now - ttl``), so when it comes round again in the
        same pass it stops the walk: the pass always ends.

        Micro-scenario: ttl 10, max_requeue 1; A (count 1, ts 0), B (count 0, ts 1). Pass at now 20
        (threshold 10): A requeued (ts 20, requeues 1), B removed, A again: 20 >= 10, stop.
        Pass at now 40 (threshold 30): A has used its requeue, removed.
        """
        self._check_clock(now)
        self._now = now
        threshold = now - self._config.ttl
        self._pass_start("ttl", value=float(threshold))
        self._before(threshold, now)
        self._pass_end("ttl")

    def evict_before(self, *, now: int, cutoff: int) -> tuple[int, int]:
        """``evictLEntriesBeforeTimestamp(cutoff)`` called with an explicit cutoff (PR #24623); (entries, bytes)."""
        self._check_clock(now)
        self._now = now
        self._pass_start("cutoff", value=float(cutoff))
        freed = self._before(cutoff, now)
        self._pass_end("cutoff")
        return freed

    def _before(self, threshold: int, now: int) -> tuple[int, int]:
        """The TTL walk: requeue or remove while the head's ``ts < threshold``; (entries, bytes) removed."""
        entries, removed = 0, 0
        while (head := self._queue.peek()) is not None and head.ts < threshold:
            if self._should_requeue(head):
                self._requeue(now)
            else:
                self._evict_head(head, "removed_ttl")
                entries, removed = entries + 1, removed + head.size
        return entries, removed

    # peek() drops the tombstones before the live head first (MISSING is decided before any verdict,
    # managed-ledger 4.2.4 evaluateEvictionPredicate), so a size pass that has freed enough still
    # drains the tombstones in front of the entry it stops at.

    def _requeue(self, now: int) -> None:
        head = self._queue.requeue(now)
        if self._listener is not None:
            self._emit(
                "requeue", ledger=head.ledger, entry=head.entry, timestamp=now, count=self._copy_count(head.handler)
            )

    def evict_size(self, *, now: int) -> None:
        """``doEvictToWatermarkWhenOverThreshold``, then ``evictLeastAccessedEntries(toFree)`` (apache/pulsar#24623).

        Above ``(long)(max_size * 0.98)`` (strict), free ``size - (long)(max_size * watermark)``. The
        walk ends when the queue is empty or enough is freed; timestamps are not consulted; an entry
        with expected reads is requeued until its requeue count reaches ``max_requeue``, then removed
        whatever its count.

        Micro-scenario: max 100 -> trigger 98, watermark 0.5 -> 50, max_requeue 1; A (60, count 1),
        B (50, count 0): size 110 > 98, free 60: A requeued, B removed (50), A removed (110 >= 60).
        """
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if size > self._config.trigger_size and size > self._config.watermark_size:
            self._free(size - self._config.watermark_size, now)
            self._count("evictions")
        self._pass_end("size")

    def evict_bytes(self, *, now: int, bytes: int) -> tuple[int, int]:  # noqa: A002 - the operation's field name
        """``evictLeastAccessedEntries(bytes)`` called directly: ``bytes > 0`` (PR #24623); (entries, bytes)."""
        self._check_clock(now)
        require(bytes > 0, f"evict_bytes: bytes must be > 0, got {bytes!r}")
        self._now = now
        self._pass_start("bytes", value=float(bytes))
        freed = self._free(bytes, now)
        self._pass_end("bytes")
        return freed

    def _free(self, to_free: int, now: int) -> tuple[int, int]:
        """Requeue or remove from the head until ``to_free`` bytes are gone or the queue is empty; (entries, bytes)."""
        removed, entries = 0, 0
        while (head := self._queue.peek()) is not None and removed < to_free:
            if self._should_requeue(head):
                self._requeue(now)
            else:
                self._evict_head(head, "removed_size")
                removed, entries = removed + head.size, entries + 1
        return entries, removed
