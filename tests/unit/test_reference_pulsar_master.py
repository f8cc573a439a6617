"""Hand-traced scenarios for ``PulsarMasterCache``: requeue, the accessed flag, one TTL, D7.

Unless a test says otherwise: max 100, so trigger (long)(100 * 0.98) = 98 and watermark
(long)(100 * 0.5) = 50; ttl 10; max_requeue 1; extend_ttl off.
"""

from __future__ import annotations

from ledgerspec.reference.cache import PulsarMasterCache


def make(**changes):
    config = {"max_size": 100, "watermark": 0.5, "ttl": 10, "max_requeue": 1, "extend_ttl": False}
    return PulsarMasterCache(**(config | changes))


def entries(cache):
    """(ledger, entry, size, count, timestamp) of every cached entry, in position order."""
    return [(e["ledger"], e["entry"], e["size"], e["count"], e["timestamp"]) for e in cache.snapshot()["entries"]]


def counters(cache):
    return cache.snapshot()["counters"]


def copies(cache):
    return dict(cache.snapshot()["copies"])


# --- insert and reads ---------------------------------------------------------------------------


def test_handler_only_for_expected_reads():
    cache = make()
    assert cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=2) is True
    assert cache.insert(now=2, ledger=1, entry=1, size=20) is True  # maybeCreate(0): no handler
    assert entries(cache) == [(1, 0, 10, 2, 1), (1, 1, 20, None, 2)]
    copy = cache.get(now=3, ledger=1, entry=1)
    assert copies(cache) == {copy: None}
    cache.release(now=4, copy=copy)  # nothing to decrement
    assert cache.replay_increment(now=4, copy=cache.get(now=4, ledger=1, entry=1)) is None
    assert entries(cache)[1][3] is None


def test_duplicate_insert_is_refused_and_changes_nothing():
    cache = make(extend_ttl=True)
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=2)
    cache.get(now=2, ledger=1, entry=0)  # accessed
    # D4: no merge; count, size, timestamp and accessed flag are those of the first insert
    assert cache.insert(now=3, ledger=1, entry=0, size=50, expected_reads=5) is False
    assert entries(cache) == [(1, 0, 10, 2, 1)]
    assert counters(cache)["inserted"] == 1
    cache.evict_timestamp(now=20)  # still accessed: requeued, not removed
    assert entries(cache) == [(1, 0, 10, 2, 20)]


def test_disabled_cache_never_caches():
    cache = make(max_size=0)
    assert cache.insert(now=1, ledger=1, entry=0, size=10) is False
    assert cache.get(now=2, ledger=1, entry=0) is None
    assert (entries(cache), counters(cache)["misses"]) == ([], 1)


def test_resizing_to_zero_does_not_disable():
    # E8: max 0 at run time: trigger (long)(0 * 0.98) = 0, watermark 0; inserts still cache
    cache = make()
    cache.configure(now=1, max_size=0)
    assert cache.insert(now=2, ledger=1, entry=0, size=10) is True
    assert cache.insert(now=2, ledger=1, entry=1, size=5) is True
    cache.evict_size(now=3)  # 15 > 0, free 15 - 0 = 15: both go
    assert (entries(cache), counters(cache)["removed_size"]) == ([], 2)


def test_read_counts_move_by_one_without_floor():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=1)
    first = cache.get(now=2, ledger=1, entry=0)
    second = cache.get(now=2, ledger=1, entry=0)
    assert cache.replay_increment(now=3, copy=first) is None  # 1 + 1 = 2, returns nothing (D3)
    cache.release(now=4, copy=first)  # 2 - 1 = 1
    cache.release(now=5, copy=second)  # 1 - 1 = 0
    third = cache.get(now=6, ledger=1, entry=0)
    cache.release(now=7, copy=third)  # 0 - 1 = -1: no floor
    assert entries(cache)[0][3] == -1


# --- direct removal -----------------------------------------------------------------------------


def test_removal_decrements_the_shared_handler_once_more():
    # D7: the cache's own value is released with decreaseReadCountOnRelease = true
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=2)
    cache.insert(now=1, ledger=1, entry=1, size=10, expected_reads=3)
    cache.insert(now=1, ledger=1, entry=2, size=10)
    copy = cache.get(now=2, ledger=1, entry=0)
    cache.invalidate_before(now=3, ledger=1, entry=2)  # (1,0) and (1,1)
    assert copies(cache) == {copy: 1}  # 2 - 1
    assert (counters(cache)["removed_invalidate"], cache.snapshot()["size"]) == (2, 10)
    cache.release(now=4, copy=copy)  # 1 - 1 = 0


def test_invalidate_ledger_and_clear():
    cache = make()
    for ledger, entry in [(1, 0), (1, 1), (2, 0), (3, 5)]:
        cache.insert(now=1, ledger=ledger, entry=entry, size=10)
    cache.invalidate_ledger(now=2, ledger=1)
    assert [(lg, en) for lg, en, *_ in entries(cache)] == [(2, 0), (3, 5)]
    cache.clear(now=3)
    assert (counters(cache)["removed_invalidate"], counters(cache)["removed_clear"]) == (2, 2)
    assert (entries(cache), cache.snapshot()["size"]) == ([], 0)


def test_tombstones_never_stop_a_pass_nor_count_as_freed():
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=60)
    cache.insert(now=0, ledger=2, entry=0, size=30)
    cache.insert(now=0, ledger=2, entry=1, size=30)
    cache.insert(now=0, ledger=2, entry=2, size=30)
    cache.invalidate_ledger(now=1, ledger=1)  # the 60 stays queued at the head as a tombstone
    # 90 <= 98: nothing; then at 150 > 98 (with a 60 more), free 150 - 50 = 100: the tombstone is
    # skipped; 30, 60, 90, then the new 60: 150 >= 100
    cache.evict_size(now=2)
    cache.insert(now=3, ledger=3, entry=0, size=60)
    cache.evict_size(now=4)
    assert (entries(cache), counters(cache)["removed_size"]) == ([], 4)


# --- TTL pass -----------------------------------------------------------------------------------


def test_ttl_pass_requeues_entries_with_expected_reads_a_bounded_number_of_times():
    # A (count 1, ts 0), B (count 0, ts 1). At 20 (threshold 10): A requeued (ts 20, requeues 1),
    # B removed, A again: 20 >= 10, stop. At 40 (threshold 30): A has used its requeue: removed.
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=10, expected_reads=1)
    cache.insert(now=1, ledger=1, entry=1, size=10)
    cache.evict_timestamp(now=20)
    assert entries(cache) == [(1, 0, 10, 1, 20)]
    cache.evict_timestamp(now=40)
    assert (entries(cache), counters(cache)["removed_ttl"]) == ([], 2)


def test_ttl_pass_extends_recently_accessed_entries():
    cache = make(extend_ttl=True, max_requeue=0)
    cache.insert(now=0, ledger=1, entry=0, size=10)
    cache.get(now=5, ledger=1, entry=0)
    cache.evict_timestamp(now=20)  # 0 < 10, accessed: requeued at 20, accessed cleared
    assert entries(cache) == [(1, 0, 10, None, 20)]
    cache.get(now=35, ledger=1, entry=0)
    cache.evict_timestamp(now=40)  # 20 < 30, accessed again: requeued again (no bound)
    assert entries(cache) == [(1, 0, 10, None, 40)]
    cache.evict_timestamp(now=60)  # 40 < 50, not accessed since: removed
    assert (entries(cache), counters(cache)["removed_ttl"]) == ([], 1)


def test_accessed_flag_is_ignored_without_extend_ttl():
    cache = make(extend_ttl=False, max_requeue=0)
    cache.insert(now=0, ledger=1, entry=0, size=10)
    cache.get(now=5, ledger=1, entry=0)
    cache.evict_timestamp(now=20)
    assert counters(cache)["removed_ttl"] == 1


def test_requeues_for_access_use_up_the_expected_reads_budget():
    cache = make(extend_ttl=True, max_requeue=1)
    cache.insert(now=0, ledger=1, entry=0, size=10, expected_reads=1)
    cache.get(now=1, ledger=1, entry=0)  # the copy stays open: count stays 1
    cache.evict_timestamp(now=20)  # requeued for the access: requeues 1
    cache.evict_timestamp(now=40)  # not accessed; count 1 but requeues 1 == max 1: removed
    assert (entries(cache), counters(cache)["removed_ttl"]) == ([], 1)


def test_ttl_threshold_is_strict_and_stops_at_the_first_young_entry():
    cache = make()
    cache.insert(now=10, ledger=1, entry=0, size=10)
    cache.insert(now=12, ledger=1, entry=1, size=10)
    cache.evict_timestamp(now=20)  # 10 < 10 is false: stop
    assert len(entries(cache)) == 2
    cache.evict_timestamp(now=21)  # 10 < 11 removed; 12 < 11 is false: stop
    assert [en for _, en, *_ in entries(cache)] == [1]


# --- size pass ----------------------------------------------------------------------------------


def test_size_pass_requeues_then_removes_whatever_the_count():
    # A (60, count 1), B (50, count 0): 110 > 98, free 60: A requeued, B removed (50),
    # A removed (50 + 60 = 110 >= 60): its requeue budget (1) is spent
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=60, expected_reads=1)
    cache.insert(now=2, ledger=1, entry=1, size=50)
    cache.evict_size(now=3)
    assert (entries(cache), counters(cache)["removed_size"], cache.snapshot()["size"]) == ([], 2, 0)


def test_size_pass_ignores_timestamps_and_stamps_requeued_entries():
    # max_requeue 2; A (30, count 1), B (30), C (50), all fresh: 110 > 98, free 60: A requeued at 7,
    # B removed (30), C removed (80 >= 60), stop: A stays, requeued once
    cache = make(max_requeue=2)
    cache.insert(now=5, ledger=1, entry=0, size=30, expected_reads=1)
    cache.insert(now=5, ledger=1, entry=1, size=30)
    cache.insert(now=5, ledger=1, entry=2, size=50)
    cache.evict_size(now=7)
    assert entries(cache) == [(1, 0, 30, 1, 7)]
    assert counters(cache)["removed_size"] == 2


def test_size_pass_runs_only_above_the_trigger():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=98)
    cache.evict_size(now=2)  # 98 > 98 is false
    assert len(entries(cache)) == 1


# --- run-time configuration ---------------------------------------------------------------------


def test_configure_requeue_settings_at_run_time():
    cache = make(max_requeue=0)
    cache.insert(now=0, ledger=1, entry=0, size=10, expected_reads=1)
    cache.configure(now=1, max_requeue=3, ttl=5)
    cache.evict_timestamp(now=10)  # 0 < 5, count 1, requeues 0 < 3: requeued at 10
    assert entries(cache) == [(1, 0, 10, 1, 10)]
    cache.configure(now=11, max_requeue=0)
    cache.evict_timestamp(now=20)  # 10 < 15, requeues 1 >= 0: removed
    assert entries(cache) == []


# --- regression oracle --------------------------------------------------------------------------


def test_seeded_run_regression_oracle(seeded_run):
    # pinned from this reference and cross-checked once against the spec model (same seed and steps)
    config = {"max_size": 1000, "watermark": 0.7, "ttl": 20, "max_requeue": 2, "extend_ttl": True}
    snapshot = seeded_run(PulsarMasterCache(**config), seed=24623, steps=3000)
    assert snapshot["counters"] == PINNED_COUNTERS
    assert (snapshot["size"], len(snapshot["entries"]), len(snapshot["copies"])) == PINNED_SHAPE


PINNED_COUNTERS = {
    "inserted": 937,
    "hits": 366,
    "misses": 1464,
    "removed_size": 334,
    "removed_ttl": 232,
    "removed_invalidate": 365,
    "removed_clear": 0,
    "evictions": 56,
    "hit_bytes": 25568,
}
PINNED_SHAPE = (361, 6, 84)  # size, cached entries, open copies
