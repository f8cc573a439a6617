"""Mutants of the legacy reference cache (``ledgerspec.reference.cache``): see the package docstring."""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import (
    LegacyCache,
    RangeCaches,
)
from ledgerspec.reference.cache._legacy import PERCENT_OF_SIZE_TO_CONSIDER, LegacyEntry


class LegacyInsertNotRefusedAtMax(LegacyCache):
    """Legacy insert not refused at the maximum: ``hasSpaceInCache()`` schedules the eviction but its
    answer is ignored.

    Breaks CACHE-MODEL (legacy refuses inserts once the size reaches ``max_size``, L5).
    """

    def _has_space(self, before: int) -> bool:  # noqa: ARG002 - the bug ignores it
        return True  # bug: no ``before < max_size`` test


class LegacyTtlExclusive(LegacyCache):
    """``<`` instead of the legacy walk's ``<=``: an entry exactly ``ttl`` old stays one pass longer.

    Breaks CACHE-MODEL (legacy removes ``timestamp <= now - ttl``, apache/pulsar at 8ce67b97b3^).
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

    Breaks CACHE-MODEL (the policy removes each selected cache's lowest positions, apache/pulsar at 8ce67b97b3^); the
    TTL walk starts from the wrong end too.
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


class LegacyTriggerInclusive(LegacyCache):
    """``>=`` instead of ``>`` where ``hasSpaceInCache()`` schedules the eviction: a size exactly
    ``(long)(maxSize * 0.98)`` before an insert already schedules one.

    Breaks CACHE-LEGACY-SIZE-POLICY (a size pass frees nothing unless an insert saw the size above the
    trigger).
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        if not self._disabled and self._pending is None and self._ranges.total_size == self._config.trigger_size:
            self._pending = self._ranges.total_size  # bug: scheduled at the trigger, not only above it
        return super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)


class _ScheduledPass(LegacyCache):
    """Base of the mutants of the scheduled eviction: the reference's task with what it frees as a method."""

    def _to_free(self, captured: int) -> int:
        return captured - self._config.watermark_size

    def evict_size(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        if self._pending is None:
            return
        self._pass_start("size", value=float(self._config.watermark_size))
        self._run_policy(self._to_free(self._pending))
        self._pending = None
        self._pass_end("size")


class LegacyWatermarkFromTrigger(_ScheduledPass):
    """Watermark taken from the trigger: the scheduled eviction frees ``captured - (long)(maxSize * 0.98)``.

    Breaks CACHE-LEGACY-SIZE-POLICY (it frees ``captured - (long)(maxSize * watermark)``).
    """

    def _to_free(self, captured: int) -> int:
        return captured - self._config.trigger_size  # bug: trigger for watermark


class LegacySizeFromCurrentSize(_ScheduledPass):
    """The eviction frees ``size now - watermark`` instead of using the size captured when it was scheduled.

    Breaks CACHE-LEGACY-SIZE-POLICY (the task frees ``captured - (long)(maxSize * watermark)``, apache/pulsar
    at 8ce67b97b3^).
    """

    def _to_free(self, captured: int) -> int:  # noqa: ARG002 - the bug: the captured size is ignored
        return self._ranges.total_size - self._config.watermark_size


class LegacyTtlOneLedgerPerPass(LegacyCache):
    """TTL pass that walks only the ledger with the oldest lowest entry (``if`` where ``while`` was meant).

    Breaks CACHE-TTL-WALK (no ledger's lowest entry is left expired after a pass).
    """

    def evict_timestamp(self, *, now: int) -> None:
        self._check_clock(now)
        self._now = now
        max_timestamp = now - self._config.ttl
        self._pass_start("ttl", value=float(max_timestamp))
        if self._heads and self._heads[0][0] <= max_timestamp:  # bug: if, not while
            ledger = self._heads[0][1]
            while (first := self._ranges.first(ledger)) is not None and first[1].ts <= max_timestamp:
                self._ranges.pop(ledger, first[0])
                self._count("removed_ttl")
                self._removal_events([first[1]], "ttl")
            self._sync_head(ledger)
        self._pass_end("ttl")


class LegacyClearNotCounted(LegacyCache):
    """A counter not incremented: ``clear()`` empties every cache but does not count what it removed.

    Breaks CACHE-MODEL (the counters are part of the observation).
    """

    def _count(self, counter: str, n: int = 1) -> None:
        if counter != "removed_clear":  # bug: clear's count is missing
            super()._count(counter, n)


class LegacyInvalidateInclusive(LegacyCache):
    """Inclusive invalidation: ``invalidateEntries(pos)`` removes the position itself too.

    Breaks CACHE-MODEL (the entries strictly before the position go).
    """

    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:
        super().invalidate_before(now=now, ledger=ledger, entry=entry + 1)  # bug: the bound taken inclusive


class LegacyPolicySmallestFirst(LegacyCache):
    """The policy's comparator reversed: caches are ranked smallest first, so the largest may be spared.

    Breaks CACHE-LEGACY-SIZE-POLICY (the largest caches are selected, each freeing its share).
    """

    def _run_policy(self, to_free: int) -> None:
        sizes = self._ranges.ledger_sizes()
        if to_free <= 0 or not sizes:
            return
        to_consider = int(self._ranges.total_size * PERCENT_OF_SIZE_TO_CONSIDER)
        selected: list[int] = []
        selected_total = 0
        for ledger in sorted(sizes, key=lambda lg: (sizes[lg], lg)):  # bug: ascending
            if selected_total >= to_consider:
                break
            selected.append(ledger)
            selected_total += sizes[ledger]
        for ledger in selected:
            share = int(to_free * (sizes[ledger] / selected_total))
            if share != 0:
                self._evict_lowest(ledger, share)


MUTANTS: list[Mutant] = [
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
    Mutant("legacy-trigger-inclusive", "legacy", "eviction scheduled at size >= trigger", LegacyTriggerInclusive),
    Mutant(
        "legacy-watermark-from-trigger",
        "legacy",
        "eviction frees captured - trigger",
        LegacyWatermarkFromTrigger,
    ),
    Mutant(
        "legacy-size-from-current-size",
        "legacy",
        "eviction frees the current size - watermark, not the captured one",
        LegacySizeFromCurrentSize,
    ),
    Mutant("legacy-ttl-one-ledger-per-pass", "legacy", "TTL pass walks one ledger", LegacyTtlOneLedgerPerPass),
    Mutant("legacy-clear-not-counted", "legacy", "clear does not count its removals", LegacyClearNotCounted),
    Mutant(
        "legacy-invalidate-inclusive", "legacy", "invalidateEntries(pos) removes pos too", LegacyInvalidateInclusive
    ),
    Mutant(
        "legacy-policy-smallest-first", "legacy", "the policy ranks caches smallest first", LegacyPolicySmallestFirst
    ),
]
