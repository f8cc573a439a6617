"""Profile ``pip430``: the entry cache as the PIP-430 text states it.

Source: apache/pulsar ``pip/pip-430.md`` at cf3d7d17d9 (PR #24444). One broker-wide FIFO removal queue
with a stash beside it; two TTLs, ``ttl`` for entries that may go by count and ``ttl_max`` for
protected ones; a final EVICTED state set by ``markEvicted`` on forced removal; a duplicate insert
merges its expected reads into the cached entry. Every entry has a handler unless created without one.

Complexity (n cached entries, k removed by the operation): insert, get, release, replay_increment
O(log n); get_range O(k log n) for k positions; invalidate_before O((k + 1) log n);
invalidate_ledger and clear O(k log n); evict_timestamp and evict_size O((k + s + 1) log n) where s
entries move from the queue to the stash (each entry moves once in its life), so amortized O(log n).
"""

from __future__ import annotations

from ledgerspec.reference.cache._base import EntryRow, require
from ledgerspec.reference.cache._ledger import ManagedLedgerLayer
from ledgerspec.reference.cache._queued import QueuedCache
from ledgerspec.reference.cache._range_cache import RangeCaches, RangeRows
from ledgerspec.reference.cache._read_count import NoReadCount, Pip430ReadCount
from ledgerspec.reference.cache._removal_queue import RemovalQueue, Stash, Wrapper


def _can_evict(wrapper: Wrapper) -> bool:
    handler: Pip430ReadCount | NoReadCount = wrapper.handler
    return handler.can_evict()


class Pip430Cache(RangeRows[Wrapper], ManagedLedgerLayer, QueuedCache[Wrapper]):
    """The PIP text's cache: queue + stash, two TTLs, EVICTED sentinel, merged duplicates.

    An open copy remembers the wrapper it was dispatched from, whose handler it shares, so that a
    count change through the copy can re-file a stashed entry.
    """

    PROFILE = "pip430"
    STATS = ("evictions", "hit_bytes")

    def _setup(self) -> None:
        self._ranges: RangeCaches[Wrapper] = RangeCaches()
        self._queue = RemovalQueue()
        self._stash = Stash(_can_evict)
        self._inserts = 0

    def _shared_of(self, ledger: int, entry: int) -> Wrapper | None:
        """A copy shares the cached wrapper (and through it the handler)."""
        return self._ranges.get(ledger, entry)

    # --- observation ------------------------------------------------------------------------------

    def _row(self, wrapper: Wrapper) -> EntryRow:
        return (wrapper.ledger, wrapper.entry, wrapper.size, wrapper.handler.count, wrapper.ts, None, None)

    def queue_fields(self) -> dict[str, int]:
        """``non_evictable_size``: the bytes of the entries ``canEvict()`` refuses (pip-430.md at cf3d7d17d9); O(n)."""
        return {"non_evictable_size": sum(w.size for w in self._ranges.values() if not _can_evict(w))}

    def _size(self) -> int:
        return self._ranges.total_size

    def _copy_count(self, shared: Wrapper) -> int | None:
        count: int | None = shared.handler.count
        return count

    # --- insert and reads -------------------------------------------------------------------------

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        """``RangeEntryCacheImpl.insert`` of the PIP text (pip-430.md at cf3d7d17d9).

        A duplicate merges its expected reads into the cached handler and returns false (size and
        timestamp unchanged). Were that handler EVICTED, the merge is refused and the put-if-absent
        fails too, so the result is false either way (pip-430.md at cf3d7d17d9; unreachable, a forced removal unmaps).
        """
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        self._now = now
        if self._disabled:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size, count=expected_reads)
            return False
        previous = self._ranges.get(ledger, entry)
        if previous is not None:
            if expected_reads is None:  # no handler: the normal path, put-if-absent fails
                self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
                return False
            previous.handler.increment(expected_reads)
            self._stash.refresh(previous)
            if self._listener is not None:
                count = previous.handler.count
                self._emit("merge", ledger=ledger, entry=entry, count=count, value=float(expected_reads))
            return False
        handler = NoReadCount() if expected_reads is None else Pip430ReadCount(expected_reads)
        wrapper = Wrapper(ledger, entry, size, now, handler, seq=self._inserts)
        self._inserts += 1
        return self._cache(wrapper, expected_reads)

    def _read_one(self, ledger: int, entry: int) -> int | None:
        """Look up one position; a hit dispatches a copy sharing the entry's handler, nothing else changes."""
        wrapper = self._ranges.get(ledger, entry)
        if wrapper is None:
            self._count("misses")
            if self._listener is not None:
                self._read_event(ledger, entry, None, None)
            return None
        self._count("hits")
        self._count("hit_bytes", wrapper.size)
        copy = self._make_copy(wrapper)
        if self._listener is not None:
            self._read_event(ledger, entry, copy, wrapper.handler.count)
        return copy

    def release(self, *, now: int, copy: int) -> None:
        """Releasing a dispatch copy calls ``markRead()`` (pip-430.md at cf3d7d17d9): -1, unless EVICTED."""
        self._check_clock(now)
        wrapper = self._open_copy(copy, "release")
        self._now = now
        del self._copies[copy]
        wrapper.handler.mark_read()
        self._stash.refresh(wrapper)
        if self._listener is not None:
            self._emit("release", copy=copy, count=wrapper.handler.count)

    def replay_increment(self, *, now: int, copy: int) -> bool:
        """``incrementExpectedReadCount()``: false and unchanged once EVICTED (pip-430.md at cf3d7d17d9)."""
        self._check_clock(now)
        wrapper = self._open_copy(copy, "replay_increment")
        self._now = now
        accepted: bool = wrapper.handler.increment(1)
        self._stash.refresh(wrapper)
        if self._listener is not None:
            self._emit("replay_increment", copy=copy, count=wrapper.handler.count, result=int(accepted))
        return accepted

    # --- removal ----------------------------------------------------------------------------------

    def _unlink(self, wrapper: Wrapper) -> None:
        """Take an unmapped wrapper out of the stash, or leave it in the queue as a tombstone."""
        if wrapper.stashed:
            self._stash.discard(wrapper)
        else:
            self._queue.tombstone(wrapper)

    def _force_remove(self, doomed: list[Wrapper], reason: str) -> None:
        """Remove by force: the caller has unmapped them; mark their handlers EVICTED (pip-430.md at cf3d7d17d9)."""
        for wrapper in doomed:
            wrapper.handler.mark_evicted()
            self._unlink(wrapper)
            if self._listener is not None:
                self._removal_events(wrapper, reason)
        self._count(reason, len(doomed))

    def _removal_events(self, wrapper: Wrapper, counter: str) -> None:
        """MarkEvicted (forced removals only) and the removal, with the count the handler keeps."""
        reason = counter.removeprefix("removed_")
        if reason in ("invalidate", "clear"):  # forced: a removed range counts as invalidation
            self._emit("mark_evicted", ledger=wrapper.ledger, entry=wrapper.entry)
        self._emit(
            "remove",
            ledger=wrapper.ledger,
            entry=wrapper.entry,
            size=wrapper.size,
            timestamp=wrapper.ts,
            count=wrapper.handler.count,
            reason=reason,
        )

    # --- eviction (normal eviction does not call markEvicted) -------------------------------------

    def _evict(self, wrapper: Wrapper, reason: str) -> None:
        """Remove a wrapper that an eviction pass has already taken out of the queue or the stash."""
        self._ranges.pop(wrapper.ledger, wrapper.entry)
        self._count(reason)
        if self._listener is not None:
            self._removal_events(wrapper, reason)

    def _stash_entry(self, wrapper: Wrapper) -> None:
        self._stash.add(wrapper)
        if self._listener is not None:
            self._emit("stash", ledger=wrapper.ledger, entry=wrapper.entry)

    def evict_timestamp(self, *, now: int) -> None:
        """Timestamp pass, ``evictEntries(predicate, processAllEntriesInStash=true)`` (the PIP text).

        ``processAllEntriesInStash`` is named by unmerged drafts of apache/pulsar#24623.

        REMOVE iff ``ts < now - ttl_max``, or the entry may go by count and ``ts < now - ttl``;
        otherwise a queued entry past ``ttl`` is STASHed and the walk goes on, and the first queued
        entry not past ``ttl`` STOPs it. The whole stash is scanned first; its survivors stay.

        Micro-scenario: ttl 10, ttl_max 50; A (count 0, ts 0), B (count 1, ts 1), C (count 0, ts 2);
        pass at now 20 (thresholds 10 and -30): A removed, B stashed, C removed.
        """
        self._check_clock(now)
        self._now = now
        threshold = now - self._config.ttl
        threshold_max = now - self._config.ttl_max
        self._pass_start("ttl", value=float(threshold))
        for wrapper in self._stash.take_expired(threshold, threshold_max):
            self._evict(wrapper, "removed_ttl")
        while (head := self._queue.peek()) is not None:
            if head.ts < threshold_max or (head.handler.can_evict() and head.ts < threshold):
                self._queue.poll()
                self._evict(head, "removed_ttl")
            elif head.ts < threshold and self._stashes_protected():
                self._queue.poll()
                self._stash_entry(head)
            else:
                break
        self._pass_end("ttl")

    def _stashes_protected(self) -> bool:
        """A protected entry past ``ttl`` is STASHed and the walk goes on (the PIP text), rather than STOPping it."""
        return True

    def evict_size(self, *, now: int) -> None:
        """``doEvictToWatermarkWhenOverThreshold`` then ``evictEntries(sizeToEvict, now - ttl_max)`` (the PIP text).

        Only above ``(long)(max_size * trigger)``; frees ``size - (long)(max_size * watermark)``. Stash
        first, then queue; the pass ends as soon as enough is freed (``processAll = false``). An entry
        is removed if it may go by count or ``ts < now - ttl_max``; otherwise it is stashed (queue)
        or stays stashed (stash).

        Micro-scenario: max 100, trigger 0.98 -> 98, watermark 0.5 -> 50; A (40, count 1),
        B (40, count 0), C (30, count 0): size 110 > 98, free 60: A stashed, B removed (40),
        C removed (70 >= 60).
        """
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if size > self._config.trigger_size and size > self._config.watermark_size:
            self._free(size - self._config.watermark_size, now - self._config.ttl_max)
            self._count("evictions")
        self._pass_end("size")

    def evict_bytes(self, *, now: int, bytes: int) -> tuple[int, int]:  # noqa: A002 - the operation's field name
        """``evictLeastAccessedEntries(bytes, now - ttl_max)`` called directly (the PIP text); (entries, bytes)."""
        self._check_clock(now)
        require(bytes > 0, f"evict_bytes: bytes must be > 0, got {bytes!r}")
        self._now = now
        self._pass_start("bytes", value=float(bytes))
        freed = self._free(bytes, now - self._config.ttl_max)
        self._pass_end("bytes")
        return freed

    def _free(self, to_free: int, expiry: int) -> tuple[int, int]:
        """Stash first, then queue, until ``to_free`` bytes are gone (the size pass's walk); (entries, bytes)."""
        removed, entries = 0, 0
        while removed < to_free and (stashed := self._stash.next_for_size(expiry)) is not None:
            self._stash.discard(stashed)
            self._evict(stashed, "removed_size")
            removed, entries = removed + stashed.size, entries + 1
        while removed < to_free and (head := self._queue.peek()) is not None:
            self._queue.poll()
            if head.handler.can_evict() or head.ts < expiry:
                self._evict(head, "removed_size")
                removed, entries = removed + head.size, entries + 1
            else:
                self._stash_entry(head)
        return entries, removed

    def stash_size(self) -> int:
        """Count the stashed entries (for tests and coverage statistics). Not an operation."""
        return len(self._stash)
