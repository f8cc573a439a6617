"""Mutants of the pip430 reference cache (``ledgerspec.reference.cache``): see the package docstring."""

from __future__ import annotations

from typing import ClassVar

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import (
    Pip430Cache,
    Pip430ReadCount,
    RemovalQueue,
    Stash,
    Wrapper,
)


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

    def _free(self, to_free: int, expiry: int) -> tuple[int, int]:
        removed, entries = 0, 0
        while removed < to_free and (stashed := self._stash.next_for_size(expiry)) is not None:
            self._stash.discard(stashed)
            self._evict(stashed, "removed_size")
            removed, entries = removed + stashed.size, entries + 1
        while removed < to_free and (head := self._queue.peek()) is not None:
            self._queue.poll()
            self._evict(head, "removed_size")  # bug: no ``can_evict() or ts < expiry`` test, no stash
            removed, entries = removed + head.size, entries + 1
        return entries, removed


class _WriteOnlyStash(Stash):
    """A stash that entries enter but that no pass scans again."""

    def take_expired(self, threshold: int, threshold_max: int) -> list[Wrapper]:  # noqa: ARG002 - the bug: the argument is ignored
        return []

    def next_for_size(self, expiry: int) -> Wrapper | None:  # noqa: ARG002 - the bug: the argument is ignored
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

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        inserted = super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)
        if inserted:
            wrapper = self._ranges.get(ledger, entry)
            assert wrapper is not None
            if isinstance(wrapper.handler, Pip430ReadCount):  # an entry without a handler keeps none
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

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
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

    def _stashes_protected(self) -> bool:
        return False  # bug: a protected entry past ``ttl`` should be stashed and the walk go on


class Pip430TriggerInclusive(Pip430Cache):
    """``>=`` instead of ``>`` at the size trigger: a size exactly ``(long)(maxSize * trigger)`` already
    starts a size pass.

    Breaks CACHE-WATERMARK (nothing is evicted while the size is at or below the trigger).
    """

    def evict_size(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if size >= self._config.trigger_size:  # bug: >=
            self._free(size - self._config.watermark_size, now - self._config.ttl_max)
            self._count("evictions")
        self._pass_end("size")


class Pip430WatermarkFromTrigger(Pip430Cache):
    """Watermark taken from the trigger: a size pass frees only down to ``(long)(maxSize * trigger)``.

    Breaks CACHE-WATERMARK (above the trigger, the pass must go down to the watermark).
    """

    def evict_size(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        self._pass_start("size", value=float(self._config.watermark_size))
        size = self._ranges.total_size
        if size > self._config.trigger_size:
            self._free(size - self._config.trigger_size, now - self._config.ttl_max)  # bug: trigger for watermark
            self._count("evictions")
        self._pass_end("size")


class Pip430InvalidateInclusive(Pip430Cache):
    """Inclusive invalidation: ``invalidateEntries(pos)`` removes the position itself too.

    Breaks CACHE-MODEL (the entries strictly before the position go).
    """

    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:
        super().invalidate_before(now=now, ledger=ledger, entry=entry + 1)  # bug: the bound taken inclusive


class Pip430HitNotCounted(Pip430Cache):
    """A counter not incremented: a hit dispatches its copy but forgets ``hits++``.

    Breaks CACHE-MODEL (the counters are part of the observation).
    """

    def _count(self, counter: str, n: int = 1) -> None:
        if counter != "hits":  # bug: the hit path's increment is missing
            super()._count(counter, n)


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
    Mutant("pip430-trigger-inclusive", "pip430", "size pass starts at size >= trigger", Pip430TriggerInclusive),
    Mutant(
        "pip430-watermark-from-trigger", "pip430", "size pass frees down to the trigger", Pip430WatermarkFromTrigger
    ),
    Mutant(
        "pip430-invalidate-inclusive", "pip430", "invalidateEntries(pos) removes pos too", Pip430InvalidateInclusive
    ),
    Mutant("pip430-hit-not-counted", "pip430", "a hit is not counted", Pip430HitNotCounted),
]
