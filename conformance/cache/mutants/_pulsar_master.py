"""Mutants of the pulsar-master reference cache (``ledgerspec.reference.cache``): see the package docstring."""

from __future__ import annotations

from collections import deque

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import (
    ActiveCursors,
    MergedReadCount,
    PulsarMasterCache,
    Wrapper,
)


class LivelockWatchdog(PulsarMasterCache):
    """Ends a size pass after a whole cycle of requeues with no removal.

    Only the mutants whose bug makes the requeue endless use it: the real code would spin forever
    there; the watchdog lets the harness see the state instead. Without a livelock it never fires:
    more consecutive requeues than cached entries means every entry has come round again.
    """

    def _free(self, to_free: int, now: int) -> tuple[int, int]:
        removed, spins, entries = 0, 0, 0
        while (head := self._queue.peek()) is not None and removed < to_free:
            if self._should_requeue(head):
                spins += 1
                if spins > len(self._ranges):
                    break
                self._requeue(now)
            else:
                spins = 0
                self._evict_head(head, "removed_size")
                removed, entries = removed + head.size, entries + 1
        return entries, removed


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


class PulsarMasterUnboundedRequeue(LivelockWatchdog):
    """Unbounded requeue: an entry with expected reads is requeued whatever its requeue count.

    Breaks CACHE-BOUNDED-PROTECTION (requeues for expected reads alone stop at ``max_requeue``).
    """

    def _should_requeue(self, wrapper: Wrapper) -> bool:
        if self._config.extend_ttl and wrapper.accessed:
            return True
        return wrapper.handler is not None and wrapper.handler.has_expected_reads()  # bug: no budget test


class PulsarMasterTombstoneNotQueued(PulsarMasterCache):
    """A forced removal takes the wrapper out of the queue at once instead of leaving a tombstone, so
    the queue's length no longer counts the stale wrappers a pass has yet to drain.

    Breaks CACHE-QUEUE-ACCOUNTING (off a pass the queue grows by exactly its inserts; needs
    observe_queue_length).
    """

    def _force_remove(self, doomed: list[Wrapper], reason: str) -> None:
        super()._force_remove(doomed, reason)
        gone = {id(wrapper) for wrapper in doomed}
        self._queue._queue = deque(w for w in self._queue._queue if id(w) not in gone)  # noqa: SLF001 - the bug


class PulsarMasterFreeStopsBeforeTombstones(PulsarMasterCache):
    """The size walk tests the bytes freed before it peeks, so once enough is freed it never drops the
    tombstones in front of the next live entry (managed-ledger 4.2.4 decides MISSING before any verdict).

    Breaks CACHE-MODEL (``queue_length``: the stale wrappers the pass had to drain; needs
    observe_queue_length). Found by the targeted-removal rule's ``behind`` aim.
    """

    def _free(self, to_free: int, now: int) -> tuple[int, int]:
        removed, entries = 0, 0
        while removed < to_free and (head := self._queue.peek()) is not None:  # bug: the operands swapped
            if self._should_requeue(head):
                self._requeue(now)
            else:
                self._evict_head(head, "removed_size")
                removed, entries = removed + head.size, entries + 1
        return entries, removed


class PulsarMasterNonEvictableThePipWay(PulsarMasterCache):
    """``getNonEvictableSize`` computed the PIP way (``!canEvict()``): an entry without a handler is not
    counted, where managed-ledger 4.2.4 counts it (E5).

    Breaks CACHE-NON-EVICTABLE-SIZE (needs observe_non_evictable_size).
    """

    def queue_fields(self) -> dict[str, int]:
        fields = super().queue_fields()
        fields["non_evictable_size"] = sum(  # bug: no ``handler is None or``
            w.size for w in self._ranges.values() if w.handler is not None and w.handler.has_expected_reads()
        )
        return fields


class PulsarMasterNoReleaseDecrement(PulsarMasterCache):
    """Without D7's extra ``markRead()``: removing an entry does not release the cache's own value.

    Breaks CACHE-READ-COUNT (open copies must see one more decrement when the entry leaves).
    """

    def _release(self, wrapper: Wrapper) -> None:
        pass  # bug: no ``wrapper.handler.mark_read()``


class _SizePass(PulsarMasterCache):
    """Base of the size-pass mutants: the pass of the reference with its test and its goal as methods."""

    def _starts(self, size: int) -> bool:
        return size > self._config.trigger_size

    def _goal(self) -> int:
        return self._config.watermark_size

    def evict_size(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if self._starts(size):
            self._free(size - self._goal(), now)
            self._count("evictions")  # recordCacheEviction, as the pass ran with bytes to free
        self._pass_end("size")


class PulsarMasterSizeBelowTrigger(_SizePass):
    """Size eviction below the trigger: the pass runs as soon as the size is above the watermark.

    Breaks CACHE-WATERMARK (nothing is evicted while the size is at or below the trigger).
    """

    def _starts(self, size: int) -> bool:
        return size > self._config.watermark_size  # bug: the watermark where the trigger was meant


class PulsarMasterWatermarkFromTrigger(_SizePass):
    """Watermark taken from the trigger: a size pass frees only down to the trigger size.

    Breaks CACHE-WATERMARK (above the trigger, the pass must go down to the watermark).
    """

    def _goal(self) -> int:
        return self._config.trigger_size  # bug: trigger_size for watermark_size


class PulsarMasterDuplicateMerges(PulsarMasterCache):
    """Count merge on duplicate: the PIP text's merge kept in the merged code, so a refused duplicate
    still adds its expected reads to the cached entry.

    Breaks CACHE-DUPLICATE-REFUSED (a duplicate insert changes nothing, D4).
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        previous = self._ranges.get(ledger, entry)
        if previous is not None and not self._disabled and expected_reads:
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
        return int(self._by_ledger[ledger].bisect_left(position))


class PulsarMasterCursorCountExcludesSamePosition(PulsarMasterCache):
    """Cursor count that excludes the cursors at the same position (``getNumberOfCursorsAtSamePosition
    OrBefore`` computed as strictly before).

    Breaks CACHE-CURSOR-COUNT.
    """

    def _setup(self) -> None:
        super()._setup()
        self._cursors = _SamePositionExcluded()


class PulsarMasterTriggerInclusive(_SizePass):
    """``>=`` instead of ``>`` at the size trigger: a size exactly ``(long)(maxSize * trigger)`` already
    starts a size pass.

    Breaks CACHE-WATERMARK (nothing is evicted while the size is at or below the trigger).
    """

    def _starts(self, size: int) -> bool:
        return size >= self._config.trigger_size  # bug: >=


class PulsarMasterExtendTtlIgnored(PulsarMasterCache):
    """The TTL-extension flag ignored: a read entry is requeued by a pass even with ``extend_ttl`` off.

    Breaks CACHE-MODEL (with the flag off only expected reads, within the budget, requeue an entry).
    """

    def _should_requeue(self, wrapper: Wrapper) -> bool:
        if wrapper.accessed:  # bug: no ``config.extend_ttl`` test
            return True
        handler = wrapper.handler
        return handler is not None and handler.has_expected_reads() and wrapper.requeues < self._config.max_requeue


class PulsarMasterCutoffIgnoresRequeue(PulsarMasterCache):
    """A pass with an explicit cutoff (``evictLEntriesBeforeTimestamp(cutoff)``) removes every entry before
    it, as if it were a forced removal: the requeue rule is applied by the periodic TTL pass only.

    Breaks CACHE-BOUNDED-PROTECTION (an entry ``shouldRequeue`` keeps is requeued, not removed). Written
    blind, by someone who had not seen this catalogue (BENCHMARKS.md, "Mutant power").
    """

    def evict_before(self, *, now: int, cutoff: int) -> tuple[int, int]:
        self._check_clock(now)
        self._now = now
        self._pass_start("cutoff", value=float(cutoff))
        entries, removed = 0, 0
        while (head := self._queue.peek()) is not None and head.ts < cutoff:
            self._evict_head(head, "removed_ttl")  # bug: no shouldRequeue
            entries, removed = entries + 1, removed + head.size
        self._pass_end("cutoff")
        return entries, removed


class PulsarMasterInvalidateInclusive(PulsarMasterCache):
    """Inclusive invalidation: ``invalidateEntries(pos)`` removes the position itself too (``removeRange``
    with the upper bound inclusive).

    Breaks CACHE-MODEL (the entries strictly before the position go; the cursor still has to read it).
    """

    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:
        super().invalidate_before(now=now, ledger=ledger, entry=entry + 1)  # bug: the bound taken inclusive


class PulsarMasterMissNotCounted(PulsarMasterCache):
    """A counter not incremented: a lookup that misses forgets ``misses++`` (the hit path counts).

    Breaks CACHE-MODEL (the counters are part of the observation).
    """

    def _read_one(self, ledger: int, entry: int) -> int | None:
        if self._ranges.get(ledger, entry) is None:
            if self._listener is not None:
                self._read_event(ledger, entry, None, None)
            return None  # bug: no ``misses`` count
        return super()._read_one(ledger, entry)


class _SamePositionOnce(ActiveCursors):
    """Counts the distinct positions at or before the cursor: cursors sharing a position count once."""

    def count_at_or_before(self, ledger: int, cursor: str) -> int:
        position = self.position(ledger, cursor)
        if position is None:
            return 0
        return len({p for p in self._by_ledger[ledger] if p <= position})


class PulsarMasterSamePositionCountedOnce(PulsarMasterCache):
    """Same-position cursors counted once: ``getNumberOfCursorsAtSamePositionOrBefore`` walks a map keyed by
    position and adds one per key, not the cursors under it.

    Breaks CACHE-CURSOR-COUNT.
    """

    def _setup(self) -> None:
        super()._setup()
        self._cursors = _SamePositionOnce()


MUTANTS: list[Mutant] = [
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
    Mutant(
        "pulsar-master-trigger-inclusive",
        "pulsar-master",
        "size pass starts at size >= trigger",
        PulsarMasterTriggerInclusive,
    ),
    Mutant(
        "pulsar-master-extend-ttl-ignored",
        "pulsar-master",
        "a read entry is requeued whatever extend_ttl says",
        PulsarMasterExtendTtlIgnored,
    ),
    Mutant(
        "pulsar-master-cutoff-ignores-requeue",
        "pulsar-master",
        "a pass with an explicit cutoff never requeues",
        PulsarMasterCutoffIgnoresRequeue,
    ),
    Mutant(
        "pulsar-master-invalidate-inclusive",
        "pulsar-master",
        "invalidateEntries(pos) removes pos too",
        PulsarMasterInvalidateInclusive,
    ),
    Mutant("pulsar-master-miss-not-counted", "pulsar-master", "a miss is not counted", PulsarMasterMissNotCounted),
    Mutant(
        "pulsar-master-tombstone-not-queued",
        "pulsar-master",
        "a forced removal leaves no tombstone in the queue",
        PulsarMasterTombstoneNotQueued,
    ),
    Mutant(
        "pulsar-master-free-stops-before-tombstones",
        "pulsar-master",
        "a size pass that has freed enough leaves the tombstones at the head",
        PulsarMasterFreeStopsBeforeTombstones,
    ),
    Mutant(
        "pulsar-master-non-evictable-pip-way",
        "pulsar-master",
        "getNonEvictableSize leaves out entries without a handler",
        PulsarMasterNonEvictableThePipWay,
    ),
    Mutant(
        "pulsar-master-same-position-counted-once",
        "pulsar-master",
        "cursors at one position count once",
        PulsarMasterSamePositionCountedOnce,
    ),
]
