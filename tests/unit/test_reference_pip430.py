"""Hand-traced scenarios for ``Pip430Cache``: the PIP text's stash, two TTLs, EVICTED and merges.

Unless a test says otherwise: max 100, so trigger (long)(100 * 0.98) = 98 and watermark
(long)(100 * 0.5) = 50; ttl 10, ttl_max 50.
"""

from __future__ import annotations

import pytest
from ledgerspec.reference.cache import EVICTED, Pip430Cache, ReferenceCacheError


def make(**changes):
    return Pip430Cache(**({"max_size": 100, "watermark": 0.5, "ttl": 10, "ttl_max": 50} | changes))


def entries(cache):
    """(ledger, entry, size, count, timestamp) of every cached entry, in position order."""
    return [(e["ledger"], e["entry"], e["size"], e["count"], e["timestamp"]) for e in cache.snapshot()["entries"]]


def counters(cache):
    return cache.snapshot()["counters"]


def copies(cache):
    return dict(cache.snapshot()["copies"])


# --- insert and reads ---------------------------------------------------------------------------


def test_insert_caches_with_a_handler_holding_the_expected_reads():
    cache = make()
    assert cache.insert(now=1, ledger=1, entry=0, size=40, expected_reads=2) is True
    assert cache.insert(now=2, ledger=1, entry=1, size=30) is True  # 0 reads: still a handler, count 0
    assert entries(cache) == [(1, 0, 40, 2, 1), (1, 1, 30, 0, 2)]
    assert cache.snapshot()["size"] == 70
    assert counters(cache)["inserted"] == 2


def test_duplicate_insert_merges_its_expected_reads():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=40, expected_reads=2)
    # same position, 1 more expected read: merged into the cached handler, 2 + 1 = 3; nothing inserted,
    # size and timestamp stay those of the first insert
    assert cache.insert(now=5, ledger=1, entry=0, size=99, expected_reads=1) is False
    assert entries(cache) == [(1, 0, 40, 3, 1)]
    assert (cache.snapshot()["size"], counters(cache)["inserted"]) == (40, 1)


def test_disabled_cache_never_caches():
    cache = make(max_size=0)  # EntryCacheDisabled
    assert cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=1) is False
    assert cache.get(now=2, ledger=1, entry=0) is None
    cache.configure(now=3, max_size=100)  # decided at creation: resizing does not enable it
    assert cache.insert(now=4, ledger=1, entry=0, size=10) is False
    assert counters(cache)["misses"] == 1
    assert entries(cache) == []


def test_copies_share_the_entry_handler():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=2)
    assert cache.get(now=2, ledger=1, entry=0) == 0
    assert cache.get(now=3, ledger=1, entry=0) == 1
    assert copies(cache) == {0: 2, 1: 2}
    cache.release(now=4, copy=0)  # markRead: 2 - 1 = 1, seen by the entry and by copy 1
    assert (copies(cache), entries(cache)[0][3]) == ({1: 1}, 1)
    assert cache.replay_increment(now=5, copy=1) is True  # 1 + 1 = 2
    cache.release(now=6, copy=1)  # 2 - 1 = 1: the replayed read is still expected
    assert entries(cache) == [(1, 0, 10, 1, 1)]  # a read changes neither size nor timestamp


def test_mark_read_has_no_floor():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10)
    for now in (2, 3):
        cache.release(now=now, copy=cache.get(now=now, ledger=1, entry=0))
    assert entries(cache)[0][3] == -2  # 0 - 1 - 1


def test_get_range_counts_each_position():
    cache = make()
    cache.insert(now=1, ledger=1, entry=1, size=10)
    cache.insert(now=1, ledger=1, entry=3, size=10)
    assert cache.get_range(now=2, ledger=1, first=0, last=3) == (None, 0, None, 1)
    assert (counters(cache)["hits"], counters(cache)["misses"]) == (2, 2)


# --- forced removal: markEvicted ----------------------------------------------------------------


def test_invalidate_before_marks_handlers_evicted():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=2)
    cache.insert(now=1, ledger=1, entry=1, size=10, expected_reads=1)
    cache.insert(now=1, ledger=1, entry=5, size=10)
    cache.insert(now=1, ledger=2, entry=0, size=10)
    copy = cache.get(now=2, ledger=1, entry=0)
    cache.invalidate_before(now=3, ledger=1, entry=5)  # (1,0) and (1,1): strictly before (1,5)
    assert [(lg, en) for lg, en, *_ in entries(cache)] == [(1, 5), (2, 0)]
    assert (counters(cache)["removed_invalidate"], cache.snapshot()["size"]) == (2, 20)
    assert copies(cache) == {copy: EVICTED}
    assert cache.replay_increment(now=4, copy=copy) is False  # refused and unchanged
    cache.release(now=5, copy=copy)  # markRead leaves EVICTED; the copy is closed
    assert copies(cache) == {}


def test_invalidate_ledger_and_clear():
    cache = make()
    for ledger, entry in [(1, 0), (1, 1), (2, 0), (3, 0)]:
        cache.insert(now=1, ledger=ledger, entry=entry, size=10, expected_reads=1)
    copy = cache.get(now=2, ledger=3, entry=0)
    cache.invalidate_ledger(now=3, ledger=1)  # 2 entries
    cache.clear(now=4)  # the 2 left
    assert (counters(cache)["removed_invalidate"], counters(cache)["removed_clear"]) == (2, 2)
    assert (entries(cache), cache.snapshot()["size"], copies(cache)) == ([], 0, {copy: EVICTED})
    # the position can be cached again, with a new, live handler
    assert cache.insert(now=5, ledger=3, entry=0, size=10, expected_reads=1) is True
    assert entries(cache) == [(3, 0, 10, 1, 5)]


def test_forced_removal_reaches_stashed_entries():
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=10, expected_reads=1)
    cache.evict_timestamp(now=20)  # 0 < 20 - 10, protected, not < 20 - 50: stashed
    assert cache.stash_size() == 1
    cache.invalidate_ledger(now=21, ledger=1)
    assert (cache.stash_size(), entries(cache), counters(cache)["removed_invalidate"]) == (0, [], 1)
    cache.evict_timestamp(now=100)  # nothing left to remove
    assert counters(cache)["removed_ttl"] == 0


# --- timestamp pass -----------------------------------------------------------------------------


def test_timestamp_pass_removes_stashes_and_stops():
    # ttl 10, ttl_max 50; A (count 0, ts 0), B (count 1, ts 1), C (count 0, ts 2), D (count 0, ts 15)
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=10)
    cache.insert(now=1, ledger=1, entry=1, size=10, expected_reads=1)
    cache.insert(now=2, ledger=1, entry=2, size=10)
    cache.insert(now=15, ledger=1, entry=3, size=10)
    # at 20, thresholds 10 and -30: A removed (0 < 10, count 0), B stashed (1 < 10, protected,
    # not 1 < -30), C removed (2 < 10), D stops the walk (15 >= 10)
    cache.evict_timestamp(now=20)
    assert [en for _, en, *_ in entries(cache)] == [1, 3]
    assert (counters(cache)["removed_ttl"], cache.stash_size()) == (2, 1)
    # at 40, thresholds 30 and -10: the stash is scanned in full, B (1 >= -10, protected) stays;
    # D (15 < 30, count 0) removed
    cache.evict_timestamp(now=40)
    assert ([en for _, en, *_ in entries(cache)], counters(cache)["removed_ttl"]) == ([1], 3)
    # at 52, threshold_max 2: B has passed the long TTL (1 < 2), removed whatever its count
    cache.evict_timestamp(now=52)
    assert (entries(cache), counters(cache)["removed_ttl"], cache.stash_size()) == ([], 4, 0)


def test_stashed_entry_goes_at_the_short_ttl_once_read():
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=10, expected_reads=1)
    copy = cache.get(now=0, ledger=1, entry=0)
    cache.evict_timestamp(now=20)  # stashed: protected (count 1)
    cache.release(now=21, copy=copy)  # count 0: may now go by count
    cache.evict_timestamp(now=22)  # 0 < 22 - 10 and count 0: removed from the stash
    assert (entries(cache), counters(cache)["removed_ttl"]) == ([], 1)


def test_timestamp_threshold_is_strict():
    cache = make()
    cache.insert(now=10, ledger=1, entry=0, size=10)
    cache.evict_timestamp(now=20)  # 10 < 20 - 10 is false: stop
    assert len(entries(cache)) == 1
    cache.evict_timestamp(now=21)  # 10 < 11
    assert entries(cache) == []


def test_timestamp_pass_skips_tombstones():
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=10)
    cache.insert(now=1, ledger=2, entry=0, size=10)
    cache.invalidate_ledger(now=2, ledger=1)  # (1,0) stays queued as a tombstone
    cache.evict_timestamp(now=20)  # the tombstone neither stops the pass nor counts
    assert (counters(cache)["removed_ttl"], counters(cache)["removed_invalidate"]) == (1, 1)


# --- size pass ----------------------------------------------------------------------------------


def test_size_pass_stashes_protected_entries():
    # A 40 (count 1), B 40, C 30: size 110 > 98, free 110 - 50 = 60: A stashed, B removed (40),
    # C removed (40 + 30 = 70 >= 60)
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=40, expected_reads=1)
    cache.insert(now=2, ledger=1, entry=1, size=40)
    cache.insert(now=3, ledger=2, entry=0, size=30)
    cache.evict_size(now=4)
    assert entries(cache) == [(1, 0, 40, 1, 1)]
    assert (cache.snapshot()["size"], counters(cache)["removed_size"], cache.stash_size()) == (40, 2, 1)


def test_size_pass_runs_only_above_the_trigger():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=98)
    cache.evict_size(now=2)  # 98 > 98 is false
    assert len(entries(cache)) == 1
    cache.insert(now=3, ledger=1, entry=1, size=1)
    cache.evict_size(now=4)  # 99 > 98: free 99 - 50 = 49: the 98 goes first, and suffices
    assert [en for _, en, *_ in entries(cache)] == [1]


def test_size_pass_frees_less_when_everything_is_protected():
    # pip-430.md at cf3d7d17d9: A 50 and B 50, both count 1: size 100 > 98, free 50, both stashed
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=50, expected_reads=1)
    cache.insert(now=1, ledger=1, entry=1, size=50, expected_reads=1)
    cache.evict_size(now=2)
    assert (len(entries(cache)), cache.stash_size(), counters(cache)["removed_size"]) == (2, 2, 0)


def test_size_pass_goes_through_the_stash_first_and_stops_there():
    # watermark 0.7 -> 70. A 50 and B 50, both count 1, are stashed by a first pass (100 > 98, free 30)
    cache = make(watermark=0.7)
    cache.insert(now=1, ledger=1, entry=0, size=50, expected_reads=1)
    cache.insert(now=1, ledger=1, entry=1, size=50, expected_reads=1)
    cache.evict_size(now=2)
    for entry in (0, 1):  # both read once: counts 0, both may now go
        cache.release(now=3, copy=cache.get(now=3, ledger=1, entry=entry))
    cache.insert(now=4, ledger=1, entry=2, size=10)  # count 0, in the queue
    # 110 > 98, free 110 - 70 = 40: stash first, A removed (50 >= 40), the next one stops the pass:
    # B stays stashed, and C, in the queue behind, is not looked at
    cache.evict_size(now=5)
    assert [en for _, en, *_ in entries(cache)] == [1, 2]
    assert (cache.stash_size(), counters(cache)["removed_size"]) == (1, 1)


def test_size_pass_removes_protected_entries_past_the_long_ttl():
    # ttl_max 50: at 100 the expiry is 50; A (60, count 1, ts 0) has expired: removed despite its count
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=60, expected_reads=1)
    cache.insert(now=0, ledger=1, entry=1, size=50, expected_reads=1)
    cache.evict_size(now=100)  # 110 > 98, free 60: A removed (60 >= 60), stop: B stays in the queue
    assert [en for _, en, *_ in entries(cache)] == [1]
    assert (cache.stash_size(), counters(cache)["removed_size"]) == (0, 1)


def test_size_pass_removes_from_the_stash_by_count_and_by_expiry():
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=30, expected_reads=1)  # A
    cache.insert(now=10, ledger=1, entry=1, size=30, expected_reads=1)  # B
    cache.insert(now=10, ledger=1, entry=2, size=30, expected_reads=1)  # C
    cache.insert(now=10, ledger=1, entry=3, size=10, expected_reads=1)  # D
    cache.evict_size(now=11)  # 100 > 98, free 50: all protected and young, all stashed
    assert cache.stash_size() == 4
    cache.release(now=12, copy=cache.get(now=12, ledger=1, entry=2))  # C: count 0
    # at 55 the expiry is 5: A (ts 0 < 5) has expired, C may go by count, B and D are protected.
    # 100 > 98, free 50: A removed (30), B skipped, C removed (60 >= 50), stop at D
    cache.evict_size(now=55)
    assert [en for _, en, *_ in entries(cache)] == [1, 3]
    assert (cache.stash_size(), counters(cache)["removed_size"]) == (2, 2)


# --- run-time configuration and cursors ---------------------------------------------------------


def test_configure_changes_take_effect_on_the_next_pass():
    cache = make()
    cache.insert(now=0, ledger=1, entry=0, size=60)
    cache.insert(now=0, ledger=1, entry=1, size=30)
    cache.evict_size(now=1)  # 90 <= 98: nothing
    cache.configure(now=2, max_size=80, watermark=0.25)  # trigger 78, watermark 20
    cache.evict_size(now=3)  # 90 > 78, free 70: 60, then 30 (90 >= 70)
    assert counters(cache)["removed_size"] == 2
    cache.insert(now=4, ledger=1, entry=2, size=10)
    cache.configure(now=5, ttl=1)
    cache.evict_timestamp(now=6)  # 4 < 6 - 1
    assert (entries(cache), counters(cache)["removed_ttl"]) == ([], 1)


def test_tailing_write_expects_one_read_per_active_cursor():
    cache = make()
    cache.cursor_add(now=1, ledger=1, cursor="a", entry=0)
    cache.cursor_add(now=1, ledger=1, cursor="b", entry=3)
    cache.insert(now=2, ledger=1, entry=4, size=10, expected_reads=cache.active_cursors(1))
    assert entries(cache)[0][3] == 2
    assert cache.cursor_count(now=3, ledger=1, cursor="b") == 2


def test_replay_on_a_closed_copy_is_refused():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10)
    copy = cache.get(now=2, ledger=1, entry=0)
    cache.release(now=3, copy=copy)
    with pytest.raises(ReferenceCacheError, match="replay_increment: copy 0 is not an open copy"):
        cache.replay_increment(now=4, copy=copy)


# --- regression oracle --------------------------------------------------------------------------


def test_seeded_run_regression_oracle(seeded_run):
    # pinned from this reference and cross-checked once against the spec model (same seed and steps)
    snapshot = seeded_run(Pip430Cache(max_size=1000, watermark=0.7, ttl=20, ttl_max=80), seed=430, steps=3000)
    assert snapshot["counters"] == PINNED_COUNTERS
    assert (snapshot["size"], len(snapshot["entries"]), len(snapshot["copies"])) == PINNED_SHAPE


PINNED_COUNTERS = {
    "inserted": 944,
    "hits": 393,
    "misses": 1383,
    "removed_size": 224,
    "removed_ttl": 327,
    "removed_invalidate": 384,
    "removed_clear": 0,
    "evictions": 95,
    "hit_bytes": 27945,
}
PINNED_SHAPE = (639, 9, 104)  # size, cached entries, open copies
