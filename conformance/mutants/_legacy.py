"""Mutants of the legacy reference cache (``ledgerspec.reference.cache``): see the package docstring."""

from __future__ import annotations

from ledgerspec.conformance._mutants import Mutant
from ledgerspec.reference.cache import (
    LegacyCache,
    RangeCaches,
)
from ledgerspec.reference.cache._legacy import LegacyEntry


class LegacyInsertNotRefusedAtMax(LegacyCache):
    """Legacy insert not refused at the maximum: ``hasSpaceInCache()`` schedules the eviction but its
    answer is ignored.

    Breaks CACHE-MODEL (legacy refuses inserts once the size reaches ``max_size``, L5).
    """

    _pending: int | None

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
]
