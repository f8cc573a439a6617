"""Hand-traced scenarios for ``SegmentedCache``: BookKeeper ``ReadCache`` geometry, puts and rotation.

Unless a test says otherwise: max 256, segment_size_max 128, so max(2, 256 // 128) = 2 segments of
256 // 2 = 128 bytes. A put reserves align64(size): 1..64 -> 64, 65..128 -> 128.
"""

from __future__ import annotations

import random

import pytest
from ledgerspec.reference.cache import ReferenceCacheError, SegmentedCache


def make(**changes):
    return SegmentedCache(**({"max_size": 256, "segment_size_max": 128} | changes))


def visible(cache):
    """{(ledger, entry): size} of the entries a read finds."""
    return {(e["ledger"], e["entry"]): e["size"] for e in cache.snapshot()["entries"]}


def counters(cache):
    return cache.snapshot()["counters"]


@pytest.mark.parametrize(
    ("max_size", "segment_size_max", "geometry"),
    [
        (256, 128, (2, 128)),
        (1000, 100, (10, 100)),
        (1001, 100, (10, 100)),  # the remainder is unused
        (250, 1024, (2, 125)),  # always at least two segments
        (0, 1, (2, 0)),
    ],
)
def test_geometry(max_size, segment_size_max, geometry):
    cache = make(max_size=max_size, segment_size_max=segment_size_max)
    assert (cache.segment_count, cache.segment_size) == geometry


def test_fast_path_then_rotation():
    cache = make()
    assert cache.insert(now=1, ledger=1, entry=0, size=100) is True  # offset 0, reserves 128
    assert cache.snapshot()["size"] == 128  # the current segment's offset
    # 128 + 10 > 128: the slow path rotates to segment 1, puts at 0, offset align64(10) = 64.
    # size(): offset 64 plus a full segment for segment 0, which is not empty: 64 + 128
    assert cache.insert(now=2, ledger=1, entry=1, size=10) is True
    assert (visible(cache), cache.snapshot()["size"]) == ({(1, 0): 100, (1, 1): 10}, 192)
    assert cache.insert(now=3, ledger=1, entry=2, size=50) is True  # 64 + 50 <= 128: fast, offset 128
    assert cache.snapshot()["size"] == 256
    # 128 + 20 > 128: rotate back to segment 0, clearing its index: (1,0) is evicted, offset 64
    assert cache.insert(now=4, ledger=1, entry=3, size=20) is True
    assert visible(cache) == {(1, 1): 10, (1, 2): 50, (1, 3): 20}
    assert (counters(cache)["removed_size"], counters(cache)["inserted"], cache.snapshot()["size"]) == (1, 4, 192)


def test_an_exact_fit_takes_the_fast_path():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=64)
    cache.insert(now=1, ledger=1, entry=1, size=64)  # 64 + 64 <= 128
    assert cache.snapshot()["size"] == 128  # still segment 0 only
    cache.insert(now=1, ledger=1, entry=2, size=1)  # 128 + 1 > 128: rotate
    assert cache.snapshot()["size"] == 64 + 128


def test_oversized_entry_is_not_cached():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10)
    assert cache.insert(now=2, ledger=1, entry=1, size=129) is False  # 129 > 128
    assert (visible(cache), counters(cache)["inserted"], cache.snapshot()["size"]) == ({(1, 0): 10}, 1, 64)


def test_alignment_counts_in_the_size():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=1)
    assert cache.snapshot()["size"] == 64


def test_a_repeated_key_overwrites_within_a_segment():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10)
    assert cache.insert(now=2, ledger=1, entry=0, size=30) is True  # both puts count as inserted
    assert (visible(cache), counters(cache)["inserted"], cache.snapshot()["size"]) == ({(1, 0): 30}, 2, 128)
    cache.insert(now=3, ledger=2, entry=0, size=100)  # rotate to segment 1
    cache.insert(now=4, ledger=2, entry=1, size=100)  # rotate to segment 0: its index held 1 key
    assert counters(cache)["removed_size"] == 1


def test_the_newest_segment_wins_and_older_copies_go_with_their_segment():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10)  # segment 0
    cache.insert(now=2, ledger=2, entry=0, size=100)  # 64 + 100 > 128: rotate to segment 1
    cache.insert(now=3, ledger=1, entry=0, size=20)  # segment 1, offset 128: 128 + 20 > 128 ...
    # ... so that put rotated to segment 0 (clearing (1,0) 10 and nothing else) and holds (1,0) 20
    assert visible(cache) == {(1, 0): 20, (2, 0): 100}
    assert counters(cache)["removed_size"] == 1
    cache.insert(now=4, ledger=3, entry=0, size=64)  # segment 0: 64 + 64 <= 128, fast
    cache.insert(now=5, ledger=3, entry=1, size=10)  # rotate to segment 1: (2,0) goes
    assert visible(cache) == {(1, 0): 20, (3, 0): 64, (3, 1): 10}


def test_same_key_in_two_segments_reads_the_newest():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=100)  # segment 0, offset 128
    cache.insert(now=2, ledger=1, entry=0, size=5)  # rotate: segment 1 at 0, offset 64
    assert visible(cache) == {(1, 0): 5}  # newest first: segment 1, then 0
    cache.insert(now=3, ledger=2, entry=0, size=100)  # 64 + 100 > 128: rotate to 0, clear its (1,0)
    assert visible(cache) == {(1, 0): 5, (2, 0): 100}  # still found in segment 1
    cache.insert(now=4, ledger=2, entry=1, size=100)  # rotate to 1: the last (1,0) goes
    assert visible(cache) == {(2, 0): 100, (2, 1): 100}
    assert counters(cache)["removed_size"] == 2


def test_reads_copy_out_without_counts():
    cache = make()
    cache.insert(now=1, ledger=1, entry=1, size=10, expected_reads=3)  # read counts are not kept
    assert cache.get_range(now=2, ledger=1, first=0, last=2) == (None, 0, None)
    assert cache.snapshot()["copies"] == [[0, None]]
    assert cache.replay_increment(now=3, copy=0) is None
    cache.release(now=4, copy=0)
    assert (counters(cache)["hits"], counters(cache)["misses"], cache.snapshot()["copies"]) == (1, 2, [])
    assert cache.snapshot()["entries"] == [{"ledger": 1, "entry": 1, "size": 10, "count": None, "timestamp": None}]


def test_invalidation_clear_and_passes_do_nothing():
    cache = make()
    cache.insert(now=1, ledger=1, entry=0, size=10)
    cache.insert(now=1, ledger=2, entry=0, size=10)
    before = cache.snapshot()
    cache.invalidate_before(now=2, ledger=1, entry=5)
    cache.invalidate_ledger(now=3, ledger=2)
    cache.clear(now=4)
    cache.evict_timestamp(now=1000)
    cache.evict_size(now=1001)
    assert cache.snapshot() == before
    assert cache.now == 1001


def test_the_ring_cannot_be_resized():
    cache = make()
    with pytest.raises(ReferenceCacheError, match="cannot be resized, got max_size=512"):
        cache.configure(now=1, max_size=512)
    cache.configure(now=2, watermark=0.1, ttl=1, max_requeue=0, extend_ttl=False)  # accepted, unused
    assert (cache.config.max_size, cache.config.ttl, cache.segment_size) == (256, 1, 128)


def seeded_run(cache, seed, steps):
    """A reproducible workload of puts (some oversized) and reads, chosen by ``random.Random(seed)``."""
    rng = random.Random(seed)
    now, open_copies = 0, []
    for _ in range(steps):
        now += rng.randint(0, 3)
        roll, ledger, entry = rng.random(), rng.randint(1, 3), rng.randint(0, 15)
        if roll < 0.5:
            size = rng.randint(1, 120) if rng.random() < 0.9 else rng.randint(200, 300)
            cache.insert(now=now, ledger=ledger, entry=entry, size=size)
        elif roll < 0.85:
            hits = cache.get_range(now=now, ledger=ledger, first=entry, last=entry + 2)
            open_copies += [copy for copy in hits if copy is not None]
        elif roll < 0.95 and open_copies:
            cache.release(now=now, copy=open_copies.pop(rng.randrange(len(open_copies))))
        else:
            cache.evict_size(now=now)
    return cache.snapshot()


def test_seeded_run_regression_oracle():
    # pinned from this reference and cross-checked once against the spec model (same seed and steps).
    # 5 segments of 256 bytes (max(2, 1280 // 256)); entries above 256 are dropped
    snapshot = seeded_run(SegmentedCache(max_size=1280, segment_size_max=256), seed=174, steps=3000)
    assert snapshot["counters"] == PINNED_COUNTERS
    assert (snapshot["size"], len(snapshot["entries"]), len(snapshot["copies"])) == PINNED_SHAPE


PINNED_COUNTERS = {
    "inserted": 1412,
    "hits": 586,
    "misses": 2558,
    "removed_size": 1386,
    "removed_ttl": 0,
    "removed_invalidate": 0,
    "removed_clear": 0,
}
PINNED_SHAPE = (1152, 8, 265)  # size, visible entries, open copies
