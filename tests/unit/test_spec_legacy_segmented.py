"""Hand-traced scenarios of the legacy and segmented models; comments spell out the arithmetic."""

import pytest
from ledgerspec.spec import ConfigError
from ledgerspec.spec.cache import (
    CacheConfig,
    Clear,
    Configure,
    EvictSize,
    EvictTimestamp,
    Get,
    Insert,
    InvalidateLedger,
    get_profile,
)

# max 100 -> trigger 98, watermark 50; ttl 10.
LEGACY = CacheConfig(max_size=100, watermark=0.5, ttl=10)


def positions(observation):
    return [(e.ledger, e.entry) for e in observation.entries]


def test_legacy_insert_uses_the_size_before_it(run):
    # 97 + 20: the check sees 97 < 100 -> cached; 97 <= 98 -> nothing scheduled; the cache stays at 117.
    results, obs = run(
        "legacy",
        LEGACY,
        [Insert(now=1, ledger=1, entry=0, size=97), Insert(now=2, ledger=2, entry=0, size=20), EvictSize(now=3)],
    )
    assert results == [True, True, None]
    assert obs.size == 117


def test_legacy_insert_refused_at_max(run):
    # size 100: 100 > 98 schedules an eviction with captured 100; 100 < 100 is false -> refused.
    results, obs = run(
        "legacy", LEGACY, [Insert(now=1, ledger=1, entry=0, size=100), Insert(now=2, ledger=1, entry=1, size=1)]
    )
    assert results == [True, False]
    assert obs.size == 100


def test_legacy_size_eviction_is_proportional_and_lowest_position_first(run):
    # Ledger 2 gets old entries (ts 1,2: 20 each = 40); ledger 1 gets 60 bytes of newer entries.
    # Insert of (1,9) at size 100 schedules captured 100 and is refused. Eviction: free 100 - 50 = 50;
    # total 100, consider 50: ledger 1 (60) alone; share (long)(50 * 60/60) = 50: its lowest positions
    # (1,0) 30 and (1,1) 30 go (60 >= 50), newer than ledger 2's entries, which all stay.
    _, obs = run(
        "legacy",
        LEGACY,
        [
            Insert(now=1, ledger=2, entry=0, size=20),
            Insert(now=2, ledger=2, entry=1, size=20),
            Insert(now=3, ledger=1, entry=0, size=30),
            Insert(now=4, ledger=1, entry=1, size=30),
            Insert(now=5, ledger=1, entry=9, size=1),
            EvictSize(now=6),
        ],
    )
    assert positions(obs) == [(2, 0), (2, 1)]
    assert obs.counters.removed_size == 2


def test_legacy_equal_caches_give_every_choice():
    # Two ledgers of 50: consider 50, one cache suffices, either may rank first -> two outcomes.
    model = get_profile("legacy")
    state = model.init(LEGACY)
    for op in [
        Insert(now=1, ledger=1, entry=0, size=50),
        Insert(now=2, ledger=2, entry=0, size=50),
        Insert(now=3, ledger=3, entry=0, size=1),  # sees 100 > 98: scheduled, refused
    ]:
        (outcome,) = model.step(state, op)
        state = outcome.state
    outcomes = model.step(state, EvictSize(now=4))
    assert {tuple(positions(model.observe(o.state))) for o in outcomes} == {((1, 0),), ((2, 0),)}


def test_legacy_ttl_walk_is_inclusive_and_position_ordered(run):
    # (1,5) at 0, then (1,3) at 8. Pass at 15: max ts 5; (1,3) ts 8 > 5 stops the walk; (1,5) stays.
    # Pass at 18: max 8; (1,3) 8 <= 8 removed (inclusive), then (1,5) removed.
    script = [Insert(now=0, ledger=1, entry=5, size=1), Insert(now=8, ledger=1, entry=3, size=1)]
    assert positions(run("legacy", LEGACY, [*script, EvictTimestamp(now=15)])[1]) == [(1, 3), (1, 5)]
    assert positions(run("legacy", LEGACY, [*script, EvictTimestamp(now=18)])[1]) == []


def test_legacy_configure_resizes(run):
    results, _ = run(
        "legacy",
        LEGACY,
        [
            Configure(now=1, max_size=10),
            Insert(now=2, ledger=1, entry=0, size=10),
            Insert(now=3, ledger=1, entry=1, size=1),
        ],
    )
    assert results[1:] == [True, False]


# segment_size_max 128, max 256 -> 2 segments of 128.
RING = CacheConfig(max_size=256, segment_size_max=128)


def test_segmented_rotation_clears_the_oldest_segment(run):
    # 100 at segment 0 offset 0 (reserved 128). 10: 128 + 10 > 128 -> rotate to segment 1, offset 64.
    # 100: 64 + 100 > 128 -> rotate to segment 0, clearing (1,0); offset 128.
    results, obs = run(
        "segmented",
        RING,
        [
            Insert(now=1, ledger=1, entry=0, size=100),
            Insert(now=2, ledger=1, entry=1, size=10),
            Insert(now=3, ledger=1, entry=2, size=100),
        ],
    )
    assert results == [True, True, True]
    assert positions(obs) == [(1, 1), (1, 2)]
    assert obs.counters.removed_size == 1
    # size(): current offset 128 + one other non-empty segment 128.
    assert obs.size == 256


def test_segmented_drops_oversized_entries_and_ignores_invalidation(run):
    results, obs = run(
        "segmented",
        RING,
        [
            Insert(now=1, ledger=1, entry=0, size=129),
            Insert(now=2, ledger=1, entry=1, size=1),
            InvalidateLedger(now=3, ledger=1),
            Clear(now=4),
            Get(now=5, ledger=1, entry=1),
        ],
    )
    assert results == [False, True, None, None, 0]
    assert positions(obs) == [(1, 1)]
    assert obs.size == 64


def test_segmented_newest_copy_wins(run):
    # (1,0) size 10 in segment 0, again with size 20 after a rotation into segment 1.
    _, obs = run(
        "segmented",
        RING,
        [
            Insert(now=1, ledger=1, entry=0, size=10),
            Insert(now=2, ledger=1, entry=1, size=100),  # 64 + 100 > 128 -> segment 1
            Insert(now=3, ledger=1, entry=0, size=20),  # 128 + 20 > 128 -> segment 0 again (cleared)
        ],
    )
    assert [(e.entry, e.size) for e in obs.entries] == [(0, 20), (1, 100)]


def test_segmented_geometry_has_at_least_two_segments():
    model = get_profile("segmented")
    state = model.init(CacheConfig(max_size=1000, segment_size_max=4096))
    assert (state.segment_count, state.segment_size) == (2, 500)
    state = model.init(CacheConfig(max_size=1000, segment_size_max=300))
    assert (state.segment_count, state.segment_size) == (3, 333)
    assert model.step(state, Configure(now=1, max_size=10)) == frozenset()


def test_a_ring_of_more_than_4096_segments_is_refused_as_a_configuration():
    """BookKeeper allocates every segment up front; a 1-byte segment size would stall the model's walks."""
    assert CacheConfig(max_size=4096, segment_size_max=1).max_size == 4096  # 4096 segments: the most
    with pytest.raises(ConfigError, match="makes 4097 ReadCache segments; at most 4096"):
        CacheConfig(max_size=4097, segment_size_max=1)
    with pytest.raises(ConfigError, match="makes 67108864 ReadCache segments"):
        CacheConfig.from_dict({"max_size": 64 * 1024 * 1024, "segment_size_max": 1})
