"""Profile ``legacy``: per-ledger caches with ``EntryCacheDefaultEvictionPolicy``.

Sources: apache/pulsar at 8ce67b97b3^ (before PR #24363 deleted the policy), ``managed-ledger/src/main/
java/org/apache/bookkeeper/mledger/impl/cache/EntryCacheDefaultEvictionPolicy.java`` (last changed by
82237d3684), ``RangeCache.java``, ``RangeEntryCacheManagerImpl.java`` and ``ManagedLedgerFactoryImpl.java``.
No global queue and no read counts. Size eviction is scheduled only by an insert that sees the size
above the trigger, uses the size captured then, ranks caches by size and frees a proportional share of
the largest ones, lowest positions first. The TTL walk goes per cache in position order with ``<=``.
Inserts are refused once the size is at the maximum.

Caches of equal size rank in hash-map order in Java, which nothing specifies (the spec allows every
order); this reference ranks equal caches by ledger id, ascending.

Complexity (n cached entries, L ledgers caching something, k removed): insert, get O(log n);
get_range O(k log n) for k positions; invalidate_before O((k + 1) log n); invalidate_ledger, clear
O(k log n); evict_timestamp O((k + 1) log n), through an index of each ledger's lowest entry by
timestamp, so ledgers with nothing to expire cost nothing; evict_size O(L log L + k log n): the policy
sorts the caches on every eviction, as Java does.
"""

from __future__ import annotations

from ledgerspec.reference.cache._base import EntryRow, ReferenceCache, require
from ledgerspec.reference.cache._ledger import ManagedLedgerLayer
from ledgerspec.reference.cache._range_cache import RangeCaches, RangeRows
from sortedcontainers import SortedList

PERCENT_OF_SIZE_TO_CONSIDER = 0.5
"""``PercentOfSizeToConsiderForEviction`` (apache/pulsar at 8ce67b97b3^)."""


class LegacyEntry:
    """A cached entry of one ledger's ``RangeCache``: timestamp taken when the cached copy is made (at 8ce67b97b3^)."""

    __slots__ = ("entry", "ledger", "size", "ts")

    def __init__(self, ledger: int, entry: int, size: int, ts: int) -> None:
        self.ledger = ledger
        self.entry = entry
        self.size = size
        self.ts = ts


class LegacyCache(RangeRows[LegacyEntry], ManagedLedgerLayer, ReferenceCache[None]):
    """The pre-PIP cache: per-ledger sorted maps, insert-triggered proportional size eviction, TTL walk."""

    PROFILE = "legacy"
    ALWAYS_LEGACY = True

    def _setup(self) -> None:
        self._ranges: RangeCaches[LegacyEntry] = RangeCaches()
        self._pending: int | None = None
        """The size captured by the scheduled eviction task, or None when none is scheduled (at 8ce67b97b3^)."""
        self._heads: SortedList = SortedList()
        """(timestamp, ledger) of each ledger's lowest cached entry: where the TTL walk starts."""
        self._head_ts: dict[int, int] = {}

    def _shared_of(self, ledger: int, entry: int) -> None:
        """No read counts: a copy shares nothing."""

    # --- observation ------------------------------------------------------------------------------

    def _row(self, cached: LegacyEntry) -> EntryRow:
        return (cached.ledger, cached.entry, cached.size, None, cached.ts, None, None)

    def _size(self) -> int:
        return self._ranges.total_size

    def _copy_count(self, shared: None) -> None:
        return shared

    def _sync_head(self, ledger: int) -> None:
        """Re-index ``ledger``'s lowest entry after a change to the ledger."""
        old = self._head_ts.pop(ledger, None)
        if old is not None:
            self._heads.remove((old, ledger))
        first = self._ranges.first(ledger)
        if first is not None:
            ts = first[1].ts
            self._head_ts[ledger] = ts
            self._heads.add((ts, ledger))

    # --- insert and reads -------------------------------------------------------------------------

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        """``RangeEntryCacheImpl.insert``, apache/pulsar at 8ce67b97b3^: ``hasSpaceInCache()`` first.

        ``hasSpaceInCache`` reads the size *before* this insert; above ``(long)(max_size * 0.98)`` it
        schedules one eviction (unless one is pending) that will use that captured size; it answers
        ``size < max_size`` and the insert is refused otherwise. Then ``exists()`` refuses a duplicate.

        Micro-scenario: max 100 -> trigger 98; size 97, insert 20 -> cached (97 < 100), size 117,
        nothing scheduled (97 <= 98).
        """
        self._check_clock(now)
        self._check_insert(size, expected_reads)
        self._now = now
        if self._disabled:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
            return False
        before = self._ranges.total_size
        if before > self._config.trigger_size and self._pending is None:
            self._pending = before
        if not self._has_space(before) or self._ranges.get(ledger, entry) is not None:
            self._emit("insert_refused", ledger=ledger, entry=entry, size=size)
            return False
        self._ranges.put(ledger, entry, LegacyEntry(ledger, entry, size, now))
        self._sync_head(ledger)
        self._count("inserted")
        if self._listener is not None:
            self._emit("insert", ledger=ledger, entry=entry, size=size, timestamp=now)
        return True

    def _has_space(self, before: int) -> bool:
        """``hasSpaceInCache()``'s answer, from the size before the insert: ``size < max_size``."""
        return before < self._config.max_size

    def get_range(self, *, now: int, ledger: int, first: int, last: int) -> tuple[int | None, ...]:
        """All from the cache or all from storage (managed-ledger 4.0.8 ``doAsyncReadEntriesByPosition``).

        Unless every position is cached, the whole range is read from BookKeeper: every position is a
        miss (``reason`` ``range`` on the trace) and no copy is dispatched.
        """
        self._check_clock(now)
        require(first <= last, f"get_range: first must be <= last, got first={first!r}, last={last!r}")
        self._now = now
        entries = range(first, last + 1)
        if all(self._ranges.get(ledger, entry) is not None for entry in entries):
            return tuple(self._read_one(ledger, entry) for entry in entries)
        for entry in entries:
            self._count("misses")
            if self._listener is not None:
                self._emit("miss", ledger=ledger, entry=entry, reason="range")
        return (None,) * len(entries)

    def _read_one(self, ledger: int, entry: int) -> int | None:
        if self._ranges.get(ledger, entry) is None:
            self._count("misses")
            copy = None
        else:
            self._count("hits")
            copy = self._make_copy(None)
        if self._listener is not None:
            self._read_event(ledger, entry, copy, None)
        return copy

    # --- removal ----------------------------------------------------------------------------------

    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:
        """``invalidateEntries(pos)``: the ledger's entries strictly before the position."""
        self._check_clock(now)
        self._now = now
        self._pass_start("invalidate", ledger=ledger, entry=entry)
        removed = self._ranges.pop_before(ledger, entry)
        if removed:
            self._sync_head(ledger)
        self._count("removed_invalidate", len(removed))
        self._removal_events(removed, "invalidate")
        self._pass_end("invalidate")

    def _removal_events(self, removed: list[LegacyEntry], reason: str) -> None:
        if self._listener is not None:
            for e in removed:
                self._emit("remove", ledger=e.ledger, entry=e.entry, size=e.size, timestamp=e.ts, reason=reason)

    def remove_range(self, *, now: int, ledger: int, first: int, last: int, inclusive: bool) -> tuple[int, int]:
        """``RangeCache.removeRange(first, last, lastInclusive)`` of one cache (at 8ce67b97b3^); (entries, bytes)."""
        end = self._range_start(now, ledger, first, last, inclusive)
        removed = self._ranges.pop_range(ledger, first, end)
        if removed:
            self._sync_head(ledger)
        self._count("removed_invalidate", len(removed))
        self._removal_events(removed, "range")
        self._pass_end("range")
        return len(removed), sum(e.size for e in removed)

    def invalidate_ledger(self, *, now: int, ledger: int) -> None:
        """``invalidateAllEntries(ledgerId)``."""
        self._check_clock(now)
        self._now = now
        self._pass_start("invalidate", ledger=ledger)
        removed = self._ranges.pop_ledger(ledger)
        self._sync_head(ledger)
        self._count("removed_invalidate", len(removed))
        self._removal_events(removed, "invalidate")
        self._pass_end("invalidate")

    def clear(self, *, now: int) -> None:
        """``clear()`` of every cache."""
        self._check_clock(now)
        self._now = now
        self._pass_start("clear")
        removed = self._ranges.pop_all()
        self._count("removed_clear", len(removed))
        self._heads.clear()
        self._head_ts.clear()
        self._removal_events(removed, "clear")
        self._pass_end("clear")

    # --- eviction ---------------------------------------------------------------------------------

    def evict_timestamp(self, *, now: int) -> None:
        """Per cache, from the lowest position, remove while ``timestamp <= now - ttl`` (apache/pulsar at 8ce67b97b3^).

        The walk stops at the first entry *in position order* that has not expired, so an old entry
        behind a newer, lower-positioned one stays. Only ledgers whose lowest entry has expired have
        anything to do; the head index finds them.

        Micro-scenario: ttl 10; (1,5) inserted at 0, then (1,3) at 8. Pass at 15 (max 5): (1,3) has
        ts 8 > 5, stop; (1,5), expired since 10, stays.
        """
        self._check_clock(now)
        self._now = now
        max_timestamp = now - self._config.ttl
        self._pass_start("ttl", value=float(max_timestamp))
        self._before(max_timestamp)
        self._pass_end("ttl")

    def evict_before(self, *, now: int, cutoff: int) -> tuple[int, int]:
        """``invalidateEntriesBeforeTimestamp(cutoff)`` of every cache (at 8ce67b97b3^); (entries, bytes)."""
        self._check_clock(now)
        self._now = now
        self._pass_start("cutoff", value=float(cutoff))
        freed = self._before(cutoff)
        self._pass_end("cutoff")
        return freed

    def _before(self, max_timestamp: int) -> tuple[int, int]:
        """Each cache from its lowest position while ``timestamp <= max_timestamp``; (entries, bytes) removed."""
        entries, removed = 0, 0
        while self._heads and self._heads[0][0] <= max_timestamp:
            ledger = self._heads[0][1]
            while (first := self._ranges.first(ledger)) is not None and first[1].ts <= max_timestamp:
                self._ranges.pop(ledger, first[0])
                self._count("removed_ttl")
                self._removal_events([first[1]], "ttl")
                entries, removed = entries + 1, removed + first[1].size
            self._sync_head(ledger)
        return entries, removed

    def _evict_lowest(self, ledger: int, minimum: int) -> None:
        """``evictLeastAccessedEntries(min)``: remove the lowest position until ``min`` bytes are gone."""
        removed = 0
        while removed < minimum and (first := self._ranges.first(ledger)) is not None:
            self._ranges.pop(ledger, first[0])
            removed += first[1].size
            self._count("removed_size")
            self._removal_events([first[1]], "size")
        self._sync_head(ledger)

    def evict_size(self, *, now: int) -> None:
        """Run the scheduled ``doEviction(caches, captured - (long)(max_size * watermark))`` (at 8ce67b97b3^).

        Nothing happens unless an insert scheduled it. Caches are ranked largest first (equal sizes by
        ledger id); they are selected while the running total before each stays below half the total
        size; each frees ``(long)(toFree * (size / (double) selectedTotal))``, lowest positions first.

        Micro-scenario: watermark 0.5, max 100, captured 100 -> free 100 - 50 = 50. Ledgers 1 (60) and
        2 (40): total 100, consider 50; ledger 1 selected (0 < 50), then 60 >= 50 stops; it frees
        int(50 * 60 / 60) = 50 from its lowest positions, while ledger 2 keeps everything.
        """
        self._check_clock(now)
        self._now = now
        if self._pending is None:
            return
        self._pass_start("size", value=float(self._config.watermark_size))
        self._run_policy(self._pending - self._config.watermark_size)
        self._pending = None
        self._pass_end("size")

    def _run_policy(self, to_free: int) -> None:
        """``EntryCacheDefaultEvictionPolicy.doEviction`` over the caches that hold something."""
        sizes = self._ranges.ledger_sizes()
        if to_free <= 0 or not sizes:
            return
        to_consider = int(self._ranges.total_size * PERCENT_OF_SIZE_TO_CONSIDER)
        selected: list[int] = []
        selected_total = 0
        for ledger in sorted(sizes, key=lambda lg: (-sizes[lg], lg)):
            if selected_total >= to_consider:
                break
            selected.append(ledger)
            selected_total += sizes[ledger]
        for ledger in selected:
            share = int(to_free * (sizes[ledger] / selected_total))
            if share != 0:
                self._evict_lowest(ledger, share)

    def pending_eviction(self) -> int | None:
        """Return the size captured by a scheduled size eviction, or None (for tests). Not an operation."""
        return self._pending
