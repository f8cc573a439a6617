"""Hand-traced scenarios for ``LegacyCache``: insert-scheduled proportional eviction, TTL walk.

Unless a test says otherwise: max 100, so trigger (long)(100 * 0.98) = 98 and watermark
(long)(100 * 0.5) = 50; ttl 10. A size eviction frees ``captured - 50``, where ``captured`` is the
size an insert saw above 98 when it scheduled the eviction.
"""

from __future__ import annotations

import random

from ledgerspec.reference.cache import LegacyCache


def make(**changes):
    return LegacyCache(**({"max_size": 100, "watermark": 0.5, "ttl": 10} | changes))


def positions(cache):
    return [(e["ledger"], e["entry"]) for e in cache.snapshot()["entries"]]


def counters(cache):
    return cache.snapshot()["counters"]


def fill(cache, now, *items):
    """Insert (ledger, entry, size) items, all at ``now``; each must be cached."""
    for ledger, entry, size in items:
        assert cache.insert(now=now, ledger=ledger, entry=entry, size=size) is True


def schedule(cache, now):
    """Re-insert a cached position: ``hasSpaceInCache`` sees the size above the trigger and schedules
    the eviction, capturing that size; the insert is then refused (no space, or ``exists()``)."""
    ledger, entry = positions(cache)[0]
    assert cache.insert(now=now, ledger=ledger, entry=entry, size=1) is False
    assert cache.pending_eviction() is not None


# --- insert: hasSpaceInCache first --------------------------------------------------------------


def test_insert_checks_space_with_the_size_before_it():
    cache = make()
    assert cache.insert(now=1, ledger=1, entry=0, size=97) is True
    # 97 < 100: cached, although 97 + 20 = 117 overshoots; 97 <= 98: nothing scheduled
    assert cache.insert(now=2, ledger=1, entry=1, size=20) is True
    assert (cache.snapshot()["size"], cache.pending_eviction()) == (117, None)
    cache.evict_size(now=3)  # nothing was scheduled: nothing happens
    assert len(positions(cache)) == 2
    # the next insert sees 117 > 98: schedules an eviction with 117 captured; 117 < 100 is false: refused
    assert cache.insert(now=4, ledger=2, entry=0, size=1) is False
    assert cache.pending_eviction() == 117
    # free 117 - 50 = 67; one cache (117), consider (long)(117 * 0.5) = 58: selected; its share is
    # (long)(67 * 117 / 117) = 67: the lowest position (1,0) goes (97 >= 67)
    cache.evict_size(now=5)
    assert (positions(cache), counters(cache)["removed_size"], cache.pending_eviction()) == ([(1, 1)], 1, None)


def test_duplicate_is_refused_after_the_space_check():
    cache = make()
    fill(cache, 1, (1, 0, 99))
    # 99 > 98: the duplicate still schedules the eviction, then exists() refuses it
    assert cache.insert(now=2, ledger=1, entry=0, size=5) is False
    assert cache.pending_eviction() == 99
    assert counters(cache)["inserted"] == 1


def test_only_one_eviction_is_scheduled_at_a_time():
    cache = make()
    fill(cache, 1, (1, 0, 99))
    schedule(cache, 2)  # captures 99
    # 99 > 98 again, but one eviction is pending already; 99 < 100: cached
    assert cache.insert(now=3, ledger=1, entry=1, size=5) is True
    assert cache.pending_eviction() == 99
    # free 99 - 50 = 49 (not 104 - 50); one cache of 104, share (long)(49 * 104 / 104) = 49: (1,0) goes
    cache.evict_size(now=4)
    assert positions(cache) == [(1, 1)]


def test_disabled_cache_never_caches():
    cache = make(max_size=0)
    assert cache.insert(now=1, ledger=1, entry=0, size=1) is False
    assert cache.get(now=2, ledger=1, entry=0) is None
    assert cache.pending_eviction() is None


def test_reads_dispatch_copies_without_counts():
    cache = make()
    fill(cache, 1, (1, 0, 10))
    copy = cache.get(now=2, ledger=1, entry=0)
    assert cache.snapshot()["copies"] == [[copy, None]]
    assert cache.replay_increment(now=3, copy=copy) is None
    cache.release(now=4, copy=copy)
    assert cache.snapshot()["copies"] == []
    assert cache.snapshot()["entries"] == [{"ledger": 1, "entry": 0, "size": 10, "count": None, "timestamp": 1}]


# --- size policy --------------------------------------------------------------------------------


def test_policy_frees_the_largest_cache_from_its_lowest_positions():
    # watermark 0.7 -> 70. Ledger 1: 60 in four entries inserted highest first, so its lowest
    # positions are its newest; ledger 2: 40, older than all of them.
    cache = make(watermark=0.7)
    fill(cache, 0, (2, 0, 40))
    fill(cache, 1, (1, 9, 15))
    fill(cache, 2, (1, 7, 15))
    fill(cache, 3, (1, 3, 15))
    fill(cache, 4, (1, 1, 15))
    schedule(cache, 5)  # 100 captured
    # free 100 - 70 = 30; total 100, consider 50: ledger 1 (60) selected (0 < 50), then 60 >= 50 stops.
    # Its share (long)(30 * 60 / 60) = 30: (1,1) (15, the newest) and (1,3) (30 >= 30)
    cache.evict_size(now=6)
    assert positions(cache) == [(1, 7), (1, 9), (2, 0)]
    assert counters(cache)["removed_size"] == 2


def test_policy_splits_the_size_to_free_in_proportion():
    cache = make()
    fill(cache, 1, (1, 0, 15), (1, 1, 15), (1, 2, 10), (2, 0, 35), (3, 0, 25))
    schedule(cache, 2)  # 100 captured
    # free 50; sizes 40, 35, 25, total 100, consider 50: ledger 1 (0 < 50), ledger 2 (40 < 50),
    # then 75 >= 50 stops. Shares: (long)(50 * 40 / 75) = 26 and (long)(50 * 35 / 75) = 23.
    # Ledger 1: 15, 30 >= 26, (1,2) stays. Ledger 2: 35 >= 23. Ledger 3 is not touched.
    cache.evict_size(now=3)
    assert positions(cache) == [(1, 2), (3, 0)]
    assert counters(cache)["removed_size"] == 3


def test_shares_that_round_to_zero_free_nothing():
    cache = make(watermark=0.98)  # watermark 98
    fill(cache, 1, (1, 0, 40), (2, 0, 35), (3, 0, 24))
    schedule(cache, 2)  # 99 captured
    # free 99 - 98 = 1; consider (long)(99 * 0.5) = 49: ledgers 1 and 2 (40 < 49, then 75 >= 49);
    # shares (long)(1 * 40 / 75) = 0 and (long)(1 * 35 / 75) = 0: both skipped
    cache.evict_size(now=3)
    assert (len(positions(cache)), counters(cache)["removed_size"], cache.pending_eviction()) == (3, 0, None)


def test_nothing_to_free_below_the_watermark():
    cache = make()
    fill(cache, 1, (1, 0, 99))
    schedule(cache, 2)  # 99 captured
    cache.configure(now=3, watermark=1.0)  # free 99 - 100 < 0: nothing
    cache.evict_size(now=4)
    assert (positions(cache), cache.pending_eviction()) == ([(1, 0)], None)


def test_equal_caches_rank_by_ledger_id():
    # The spec allows either order (hash-map order in Java); the reference takes ledger 1 first.
    # 50 + 50, captured 100, free 50, consider 50: one of the two is selected, frees 50
    cache = make()
    fill(cache, 1, (2, 0, 50), (1, 0, 50))
    schedule(cache, 2)
    cache.evict_size(now=3)
    assert positions(cache) == [(2, 0)]


def test_size_eviction_uses_the_captured_size():
    cache = make()
    fill(cache, 1, (1, 0, 30), (1, 1, 30), (1, 2, 40))
    schedule(cache, 2)  # 100 captured
    cache.invalidate_before(now=3, ledger=1, entry=2)  # 40 left, but 100 - 50 = 50 is still freed
    cache.evict_size(now=4)
    assert (positions(cache), counters(cache)["removed_size"]) == ([], 1)


# --- TTL walk -----------------------------------------------------------------------------------


def test_ttl_walk_is_per_cache_in_position_order_and_inclusive():
    # ttl 10; (1,5) at 0, then (1,3) at 8; (2,0) at 5
    cache = make()
    fill(cache, 0, (1, 5, 10))
    fill(cache, 5, (2, 0, 10))
    fill(cache, 8, (1, 3, 10))
    # at 15, max 5: ledger 1 starts at (1,3), ts 8 > 5: stop, so (1,5), expired, stays;
    # ledger 2: (2,0), 5 <= 5: removed (inclusive)
    cache.evict_timestamp(now=15)
    assert (positions(cache), counters(cache)["removed_ttl"]) == ([(1, 3), (1, 5)], 1)
    cache.evict_timestamp(now=18)  # max 8: (1,3) 8 <= 8, then (1,5) 0 <= 8
    assert (positions(cache), counters(cache)["removed_ttl"]) == ([], 3)


def test_ttl_walk_follows_the_new_lowest_entry_after_invalidation():
    cache = make()
    fill(cache, 0, (1, 2, 10))
    fill(cache, 9, (1, 1, 10))
    cache.evict_timestamp(now=15)  # max 5: (1,1) ts 9 blocks (1,2), ts 0
    assert len(positions(cache)) == 2
    cache.invalidate_before(now=16, ledger=1, entry=2)  # (1,1) goes; (1,2) is now the lowest
    cache.evict_timestamp(now=16)  # max 6: (1,2) 0 <= 6
    assert (positions(cache), counters(cache)["removed_ttl"], counters(cache)["removed_invalidate"]) == ([], 1, 1)


def test_invalidate_ledger_and_clear():
    cache = make()
    fill(cache, 1, (1, 0, 10), (1, 1, 10), (2, 0, 10), (3, 0, 10))
    cache.invalidate_ledger(now=2, ledger=1)
    cache.clear(now=3)
    assert (counters(cache)["removed_invalidate"], counters(cache)["removed_clear"]) == (2, 2)
    assert (positions(cache), cache.snapshot()["size"]) == ([], 0)
    cache.evict_timestamp(now=100)  # nothing left for the walk
    assert counters(cache)["removed_ttl"] == 0


# --- regression oracle --------------------------------------------------------------------------


def seeded_run(cache, seed, steps):
    """A reproducible mixed workload: valid operations only, chosen by ``random.Random(seed)``."""
    rng = random.Random(seed)
    now, open_copies = 0, []
    for _ in range(steps):
        now += rng.randint(0, 3)
        roll, ledger, entry = rng.random(), rng.randint(1, 3), rng.randint(0, 15)
        if roll < 0.45:
            cache.insert(now=now, ledger=ledger, entry=entry, size=rng.randint(1, 150))
        elif roll < 0.55:
            copy = cache.get(now=now, ledger=ledger, entry=entry)
            open_copies += [] if copy is None else [copy]
        elif roll < 0.65:  # all hits, or all read from storage (managed-ledger 4.0.8)
            hits = cache.get_range(now=now, ledger=ledger, first=entry, last=entry + 2)
            open_copies += [copy for copy in hits if copy is not None]
        elif roll < 0.75 and open_copies:
            cache.release(now=now, copy=open_copies.pop(rng.randrange(len(open_copies))))
        elif roll < 0.85:
            cache.evict_size(now=now)
        elif roll < 0.95:
            cache.evict_timestamp(now=now)
        elif roll < 0.98:
            cache.invalidate_before(now=now, ledger=ledger, entry=entry)
        else:
            cache.invalidate_ledger(now=now, ledger=ledger)
    return cache.snapshot()


def test_seeded_run_regression_oracle():
    # pinned from this reference and cross-checked once against the spec model (same seed and steps)
    snapshot = seeded_run(LegacyCache(max_size=1000, watermark=0.7, ttl=20), seed=7, steps=3000)
    assert snapshot["counters"] == PINNED_COUNTERS
    assert (snapshot["size"], len(snapshot["entries"]), len(snapshot["copies"])) == PINNED_SHAPE


PINNED_COUNTERS = {
    "inserted": 1048,
    "hits": 60,
    "misses": 1151,
    "removed_size": 228,
    "removed_ttl": 549,
    "removed_invalidate": 262,
    "removed_clear": 0,
}
PINNED_SHAPE = (714, 9, 3)  # size, cached entries, open copies
