"""Mutants of the reference caches: each one plausible bug that the conformance suite must kill.

A mutant subclasses the reference cache of one profile and overrides the smallest method (or swaps
the smallest building block) that turns correct behaviour into a bug someone could write: an
off-by-one comparison, a forgotten line, the wrong end of a deque. Each docstring names the bug and
the invariant it should break. ``ledgerspec mutants`` runs the conformance suite against every
mutant and prints the kill matrix; tests/quality/test_mutants.py checks each one is killed.

Mutants keep the snapshot/observation contract of the reference: they are judged on behaviour
only. Where a bug would livelock a size pass (a requeue that never ends), the mutant carries a
watchdog that ends the pass after a whole cycle without progress, so that the harness sees the bug
instead of hanging; the watchdog changes nothing until the livelock.
"""

from __future__ import annotations

from typing import ClassVar

from ledgerspec.conformance._mutants import Mutant
from ledgerspec.reference.cache import (
    ActiveCursors,
    EntryRow,
    LegacyCache,
    MergedReadCount,
    Pip430Cache,
    Pip430ReadCount,
    PulsarMasterCache,
    RangeCaches,
    RemovalQueue,
    SegmentedCache,
    Stash,
    Wrapper,
)
from ledgerspec.reference.cache._legacy import LegacyEntry

# --- pip430 -----------------------------------------------------------------------------------------


class _LifoQueue(RemovalQueue):
    """A removal queue served from the tail: ``deque.pop()`` where ``popleft()`` was meant."""

    def peek(self) -> Wrapper | None:
        queue = self._queue
        while queue and queue[-1].removed:
            queue.pop()
        return queue[-1] if queue else None

    def poll(self) -> Wrapper:
        return self._queue.pop()


class Pip430NewestFirst(Pip430Cache):
    """Newest-first eviction: the passes take the queue's tail, so the newest entry goes first.

    Breaks CACHE-OLDEST-FIRST (a size pass removes an entry while older ones stay) and CACHE-FIFO.
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _LifoQueue()


class Pip430NoStash(Pip430Cache):
    """No stash: the size pass removes the queue head whatever its read count.

    Breaks CACHE-PROTECT-UNTIL-EXPIRED: a protected entry younger than ``ttl_max`` is evicted by size.
    """

    def _free(self, to_free: int, expiry: int) -> None:
        removed = 0
        while removed < to_free and (stashed := self._stash.next_for_size(expiry)) is not None:
            self._stash.discard(stashed)
            self._evict(stashed, "removed_size")
            removed += stashed.size
        while removed < to_free and (head := self._queue.peek()) is not None:
            self._queue.poll()
            self._evict(head, "removed_size")  # bug: no ``can_evict() or ts < expiry`` test, no stash
            removed += head.size


class _WriteOnlyStash(Stash):
    """A stash that entries enter but that no pass scans again."""

    def take_expired(self, threshold: int, threshold_max: int) -> list[Wrapper]:
        return []

    def next_for_size(self, expiry: int) -> Wrapper | None:
        return None


class Pip430StashForever(Pip430Cache):
    """Stash forever: stashed entries are never reconsidered, not when they pass ``ttl_max``, not when
    their count falls to 0.

    Breaks CACHE-TTL (a timestamp pass keeps a stashed entry past ``ttl_max``) and CACHE-WATERMARK.
    """

    def _setup(self) -> None:
        super()._setup()
        self._stash = _WriteOnlyStash(lambda wrapper: wrapper.handler.can_evict())


class _SwapsHandler(Pip430Cache):
    """Base of the handler mutants: a new entry gets a handler of class ``HANDLER``."""

    HANDLER: ClassVar[type[Pip430ReadCount]] = Pip430ReadCount

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int = 0) -> bool:
        inserted = super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)
        if inserted:
            wrapper = self._ranges.get(ledger, entry)
            assert wrapper is not None
            wrapper.handler = self.HANDLER(wrapper.handler.count)
        return inserted


class _ReadAfterEvicted(Pip430ReadCount):
    """``markRead()`` without the EVICTED test: ``count--`` always."""

    __slots__ = ()

    def mark_read(self) -> None:
        self.count -= 1


class Pip430MarkEvictedNotFinal(_SwapsHandler):
    """markEvicted not final: releasing a copy after a forced removal decrements the EVICTED value.

    Breaks CACHE-EVICTED-FINAL (an EVICTED handler must stay EVICTED).
    """

    HANDLER = _ReadAfterEvicted


class _IncrementAfterEvicted(Pip430ReadCount):
    """``incrementExpectedReadCount(n)`` without the EVICTED test: adds and answers true always."""

    __slots__ = ()

    def increment(self, n: int = 1) -> bool:
        self.count += n
        return True


class Pip430IncrementAfterEvicted(_SwapsHandler):
    """Increment after EVICTED succeeds: a Key_Shared replay through a copy of a removed entry returns
    true and revives the count.

    Breaks CACHE-EVICTED-FINAL (the increment must return false and leave EVICTED).
    """

    HANDLER = _IncrementAfterEvicted


class Pip430DuplicateReplaces(Pip430Cache):
    """Duplicate insert replaces: ``put`` instead of merge, so a second insert of a cached position
    drops the cached entry (its count, size and timestamp) for the new one.

    Breaks CACHE-DUPLICATE-MERGE (the counts must add up) and CACHE-SIZE-ACCOUNTING.
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int = 0) -> bool:
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        previous = self._ranges.get(ledger, entry)
        if previous is not None:
            self._ranges.pop(ledger, entry)
            self._unlink(previous)
        return super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)


class Pip430TtlStopsAtProtected(Pip430Cache):
    """TTL pass that stops at the first protected entry (the text's ``ts < T ? REMOVE : STOP`` read
    for a protected head), so expired unprotected entries behind it stay.

    Breaks CACHE-TTL (a timestamp pass removes exactly the expired entries).
    """

    def evict_timestamp(self, *, now: int) -> None:
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
            else:
                break  # bug: a protected entry past ``ttl`` should be stashed and the walk go on
        self._pass_end("ttl")


# --- pulsar-master ------------------------------------------------------------------------------


class _LivelockWatchdog(PulsarMasterCache):
    """Ends a size pass after a whole cycle of requeues with no removal.

    Only the mutants whose bug makes the requeue endless use it: the real code would spin forever
    there; the watchdog lets the harness see the state instead. Without a livelock it never fires:
    more consecutive requeues than cached entries means every entry has come round again.
    """

    def _free(self, to_free: int, now: int) -> None:
        removed, spins = 0, 0
        while removed < to_free and (head := self._queue.peek()) is not None:
            if self._should_requeue(head):
                spins += 1
                if spins > len(self._ranges):
                    return
                self._requeue(now)
            else:
                spins = 0
                self._evict_head(head, "removed_size")
                removed += head.size


class PulsarMasterTtlInclusive(PulsarMasterCache):
    """``<=`` instead of ``<`` in the TTL pass: an entry exactly ``ttl`` old is already expired.

    Breaks CACHE-TTL (legacy's comparison, L3, in the merged code).
    """

    def evict_timestamp(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        threshold = now - self._config.ttl
        self._pass_start("ttl", value=float(threshold))
        while (head := self._queue.peek()) is not None and head.ts <= threshold:  # bug: <=
            if self._should_requeue(head):
                self._requeue(now)
            else:
                self._evict_head(head, "removed_ttl")
        self._pass_end("ttl")


class PulsarMasterUnboundedRequeue(_LivelockWatchdog):
    """Unbounded requeue: an entry with expected reads is requeued whatever its requeue count.

    Breaks CACHE-BOUNDED-PROTECTION (requeues for expected reads alone stop at ``max_requeue``).
    """

    def _should_requeue(self, wrapper: Wrapper) -> bool:
        if self._config.extend_ttl and wrapper.accessed:
            return True
        return wrapper.handler is not None and wrapper.handler.has_expected_reads()  # bug: no budget test


class _KeepsAccessedQueue(RemovalQueue):
    """``markRequeued()`` that forgets to clear ``accessed``."""

    def requeue(self, now: int) -> Wrapper:
        head = self._queue.popleft()
        head.ts = now  # bug: no ``head.accessed = False``
        head.requeues += 1
        self._queue.append(head)
        return head


class PulsarMasterAccessedNeverCleared(_LivelockWatchdog):
    """Accessed flag never cleared: one read extends an entry's TTL on every pass, for ever.

    Breaks CACHE-TTL / CACHE-MODEL (an entry read once is requeued again on the next pass instead of
    removed).
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _KeepsAccessedQueue()


class _KeepsTimestampQueue(RemovalQueue):
    """``markRequeued()`` that moves the wrapper to the tail but forgets to stamp ``now``."""

    def requeue(self, now: int) -> Wrapper:
        head = self._queue.popleft()
        head.accessed = False  # bug: no ``head.ts = now``
        head.requeues += 1
        self._queue.append(head)
        return head


class PulsarMasterRequeueKeepsTimestamp(PulsarMasterCache):
    """Requeue that keeps the old timestamp: the entry goes to the tail still looking expired, so the
    same pass meets it again and spends its whole requeue budget at once.

    Breaks CACHE-FIFO (timestamps change on requeue) and CACHE-TTL.
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _KeepsTimestampQueue()


class PulsarMasterNoReleaseDecrement(PulsarMasterCache):
    """Without D7's extra ``markRead()``: removing an entry does not release the cache's own value.

    Breaks CACHE-READ-COUNT (open copies must see one more decrement when the entry leaves).
    """

    def _removed(self, wrapper: Wrapper, reason: str) -> None:
        self._count(reason)  # bug: no ``wrapper.handler.mark_read()``
        self._emit(
            "remove",
            ledger=wrapper.ledger,
            entry=wrapper.entry,
            size=wrapper.size,
            timestamp=wrapper.ts,
            count=self._copy_count(wrapper.handler),
            reason=reason.removeprefix("removed_"),
        )


class PulsarMasterSizeBelowTrigger(PulsarMasterCache):
    """Size eviction below the trigger: the pass runs as soon as the size is above the watermark.

    Breaks CACHE-WATERMARK (nothing is evicted while the size is at or below the trigger).
    """

    def evict_size(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if size > self._config.watermark_size:  # bug: the watermark where the trigger was meant
            self._free(size - self._config.watermark_size, now)
        self._pass_end("size")


class PulsarMasterWatermarkFromTrigger(PulsarMasterCache):
    """Watermark taken from the trigger: a size pass frees only down to the trigger size.

    Breaks CACHE-WATERMARK (above the trigger, the pass must go down to the watermark).
    """

    def evict_size(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if size > self._config.trigger_size:
            self._free(size - self._config.trigger_size, now)  # bug: trigger_size for watermark_size
        self._pass_end("size")


class PulsarMasterDuplicateMerges(PulsarMasterCache):
    """Count merge on duplicate: the PIP text's merge kept in the merged code, so a refused duplicate
    still adds its expected reads to the cached entry.

    Breaks CACHE-DUPLICATE-REFUSED (a duplicate insert changes nothing, D4).
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int = 0) -> bool:
        previous = self._ranges.get(ledger, entry)
        if previous is not None and not self._disabled and expected_reads > 0:
            self._check_clock(now)
            self._check_insert(size, expected_reads)
            if previous.handler is None:
                previous.handler = MergedReadCount(expected_reads)
            else:
                previous.handler.count += expected_reads
        return super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)


class _SamePositionExcluded(ActiveCursors):
    """``bisect_left`` for ``bisect_right``: cursors at the same position, itself included, not counted."""

    def count_at_or_before(self, ledger: int, cursor: str) -> int:
        position = self.position(ledger, cursor)
        if position is None:
            return 0
        return self._by_ledger[ledger].bisect_left(position)


class PulsarMasterCursorCountExcludesSamePosition(PulsarMasterCache):
    """Cursor count that excludes the cursors at the same position (``getNumberOfCursorsAtSamePosition
    OrBefore`` computed as strictly before).

    Breaks CACHE-CURSOR-COUNT.
    """

    def _setup(self) -> None:
        super()._setup()
        self._cursors = _SamePositionExcluded()


# --- legacy -----------------------------------------------------------------------------------------


class LegacyInsertNotRefusedAtMax(LegacyCache):
    """Legacy insert not refused at the maximum: ``hasSpaceInCache()`` schedules the eviction but its
    answer is ignored.

    Breaks CACHE-MODEL (legacy refuses inserts once the size reaches ``max_size``, L5).
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int = 0) -> bool:
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        self._now = now
        if self._disabled:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
            return False
        before = self._ranges.total_size
        if before > self._config.trigger_size and self._pending is None:
            self._pending = before
        if self._ranges.get(ledger, entry) is not None:  # bug: no ``before < max_size`` test
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
            return False
        self._ranges.put(ledger, entry, LegacyEntry(ledger, entry, size, now))
        self._sync_head(ledger)
        self._count("inserted")
        self._emit("insert", ledger=ledger, entry=entry, size=size, timestamp=now)
        return True


class LegacyTtlExclusive(LegacyCache):
    """``<`` instead of the legacy walk's ``<=``: an entry exactly ``ttl`` old stays one pass longer.

    Breaks CACHE-MODEL (legacy removes ``timestamp <= now - ttl``, §7.4).
    """

    def evict_timestamp(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        max_timestamp = now - self._config.ttl
        self._pass_start("ttl", value=float(max_timestamp))
        while self._heads and self._heads[0][0] < max_timestamp:  # bug: <
            ledger = self._heads[0][1]
            while (first := self._ranges.first(ledger)) is not None and first[1].ts < max_timestamp:  # bug: <
                self._ranges.pop(ledger, first[0])
                self._count("removed_ttl")
                self._removal_events([first[1]], "ttl")
            self._sync_head(ledger)
        self._pass_end("ttl")


class LegacyTtlWalkSkipsUnexpired(LegacyCache):
    """TTL walk that steps over an unexpired entry: every expired entry of a ledger goes, also those above
    a newer, lower-positioned one (L2 "fixed" inside the walk, which then no longer walks from the lowest
    position to the first unexpired entry).

    Breaks CACHE-TTL-WALK (the walk stops at a ledger's first unexpired entry).
    """

    def evict_timestamp(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        max_timestamp = now - self._config.ttl
        self._pass_start("ttl", value=float(max_timestamp))
        for ledger in sorted(self._ranges.ledger_sizes()):
            expired = [v for v in self._ranges.values() if v.ledger == ledger and v.ts <= max_timestamp]
            for value in expired:  # bug: no stop at the first unexpired entry
                self._ranges.pop(ledger, value.entry)
                self._count("removed_ttl")
                self._removal_events([value], "ttl")
            self._sync_head(ledger)
        self._pass_end("ttl")


class _HighestFirstRanges(RangeCaches[LegacyEntry]):
    """``first()`` as ``SortedDict.peekitem()``, whose default index is -1: the highest position."""

    def first(self, ledger: int) -> tuple[int, LegacyEntry] | None:
        cache = self._ledgers.get(ledger)
        return None if cache is None else cache.peekitem()


class LegacyEvictsHighestPositions(LegacyCache):
    """Eviction from the highest positions: the policy frees a cache's newest entries, not its lowest.

    Breaks CACHE-MODEL (the policy removes each selected cache's lowest positions, §7.3); the TTL
    walk starts from the wrong end too.
    """

    def _setup(self) -> None:
        super()._setup()
        self._ranges = _HighestFirstRanges()


class _DriftingRanges(RangeCaches[LegacyEntry]):
    """``pop_before`` that forgets ``total_size -= size`` (the per-ledger sizes stay right)."""

    def pop_before(self, ledger: int, entry: int) -> list[LegacyEntry]:
        values = super().pop_before(ledger, entry)
        self.total_size += sum(value.size for value in values)
        return values


class LegacyInvalidateSizeDrift(LegacyCache):
    """Size drift on invalidate: ``invalidateEntries`` removes the entries but the reported size is not
    reduced, so the cache looks fuller than it is (and later refuses inserts).

    Breaks CACHE-SIZE-ACCOUNTING (size = the sum of the cached entries' sizes).
    """

    def _setup(self) -> None:
        super()._setup()
        self._ranges = _DriftingRanges()


# --- segmented --------------------------------------------------------------------------------------


class SegmentedRotationKeepsIndex(SegmentedCache):
    """Segmented rotation that does not clear the index: the next segment is reused, but the entries
    indexed there stay readable over bytes that are being overwritten.

    Breaks CACHE-SEGMENT-RING / CACHE-MODEL (rotation evicts the whole segment).
    """

    def _rotate(self, aligned: int, before: int) -> None:
        self._emit("pass_start", reason="size", size=before)
        self._current = (self._current + 1) % self._segment_count
        self._offset = aligned  # bug: the segment's index is not cleared
        self._pass_end("size")


class SegmentedOldestSegmentFirst(SegmentedCache):
    """Segmented lookup oldest-segment-first: a position cached in two segments answers with the older
    copy, not the newest.

    Breaks CACHE-MODEL (the newest segment wins, §2.3).
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
            rows.append((position[0], position[1], found[1], None, None))
        return rows


class SegmentedNoAlign(SegmentedCache):
    """The fast path reserves ``size`` instead of ``align64(size)``: entries pack tighter than
    ``ReadCache`` places them, so the offset (and the size) and the rotation points differ.

    Breaks CACHE-MODEL (segmented §2.2).
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int = 0) -> bool:
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        self._now = now
        if size > self._segment_size:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
            return False
        before = self._size()
        offset = self._offset
        self._offset += size  # bug: align64(size)
        if offset + size > self._segment_size:
            offset = self._offset
            self._offset += size
            if offset + size > self._segment_size:
                self._rotate(size, before)
                offset = 0
        index = self._segments[self._current]
        if not index:
            self._non_empty += 1
        index[ledger, entry] = (offset, size)
        self._newest[ledger, entry] = self._current
        self._count("inserted")
        self._emit("insert", ledger=ledger, entry=entry, size=size, timestamp=now)
        return True


class SegmentedSizeCountsCurrentFull(SegmentedCache):
    """``size()`` as the non-empty segments times the segment size: the current segment counts as full.

    Breaks CACHE-MODEL (``ReadCache.size()`` counts the current segment's offset, §2.4).
    """

    def _size(self) -> int:
        return self._non_empty * self._segment_size


# --- the registry ---------------------------------------------------------------------------------

MUTANTS: list[Mutant] = [
    Mutant("pip430-newest-first", "pip430", "passes take the queue's tail (deque.pop for popleft)", Pip430NewestFirst),
    Mutant("pip430-no-stash", "pip430", "size pass removes protected entries instead of stashing them", Pip430NoStash),
    Mutant("pip430-stash-forever", "pip430", "stashed entries are never reconsidered", Pip430StashForever),
    Mutant(
        "pip430-mark-evicted-not-final", "pip430", "markRead decrements an EVICTED handler", Pip430MarkEvictedNotFinal
    ),
    Mutant(
        "pip430-increment-after-evicted",
        "pip430",
        "incrementExpectedReadCount succeeds after EVICTED",
        Pip430IncrementAfterEvicted,
    ),
    Mutant(
        "pip430-duplicate-replaces", "pip430", "a duplicate insert replaces the cached entry", Pip430DuplicateReplaces
    ),
    Mutant(
        "pip430-ttl-stops-at-protected",
        "pip430",
        "TTL pass stops at the first protected entry",
        Pip430TtlStopsAtProtected,
    ),
    Mutant(
        "pulsar-master-ttl-inclusive", "pulsar-master", "TTL pass compares ts <= now - ttl", PulsarMasterTtlInclusive
    ),
    Mutant(
        "pulsar-master-unbounded-requeue",
        "pulsar-master",
        "requeue for expected reads ignores max_requeue",
        PulsarMasterUnboundedRequeue,
    ),
    Mutant(
        "pulsar-master-accessed-never-cleared",
        "pulsar-master",
        "requeue does not clear the accessed flag",
        PulsarMasterAccessedNeverCleared,
    ),
    Mutant(
        "pulsar-master-requeue-keeps-timestamp",
        "pulsar-master",
        "requeue does not stamp now",
        PulsarMasterRequeueKeepsTimestamp,
    ),
    Mutant(
        "pulsar-master-no-release-decrement",
        "pulsar-master",
        "no D7 extra markRead on removal",
        PulsarMasterNoReleaseDecrement,
    ),
    Mutant(
        "pulsar-master-size-below-trigger",
        "pulsar-master",
        "size pass runs above the watermark",
        PulsarMasterSizeBelowTrigger,
    ),
    Mutant(
        "pulsar-master-watermark-from-trigger",
        "pulsar-master",
        "size pass frees down to the trigger",
        PulsarMasterWatermarkFromTrigger,
    ),
    Mutant(
        "pulsar-master-duplicate-merges",
        "pulsar-master",
        "a refused duplicate merges its count",
        PulsarMasterDuplicateMerges,
    ),
    Mutant(
        "pulsar-master-cursor-count-same-position",
        "pulsar-master",
        "cursor count excludes cursors at the same position",
        PulsarMasterCursorCountExcludesSamePosition,
    ),
    Mutant("legacy-insert-not-refused-at-max", "legacy", "insert not refused at max_size", LegacyInsertNotRefusedAtMax),
    Mutant("legacy-ttl-exclusive", "legacy", "TTL walk compares ts < now - ttl", LegacyTtlExclusive),
    Mutant(
        "legacy-ttl-walk-skips-unexpired",
        "legacy",
        "TTL walk removes expired entries above an unexpired one",
        LegacyTtlWalkSkipsUnexpired,
    ),
    Mutant(
        "legacy-evicts-highest-positions",
        "legacy",
        "policy frees the highest positions first",
        LegacyEvictsHighestPositions,
    ),
    Mutant(
        "legacy-invalidate-size-drift",
        "legacy",
        "invalidateEntries does not reduce the size",
        LegacyInvalidateSizeDrift,
    ),
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
]
"""Every mutant, by profile; ``ledgerspec mutants`` and test_mutants.py iterate over it."""
