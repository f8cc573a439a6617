"""Hand-traced scenarios of the pip430 model; each comment spells out the arithmetic."""

from ledgerspec.spec.cache import (
    EVICTED,
    CacheConfig,
    Clear,
    Configure,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    Release,
    ReplayIncrement,
    get_profile,
)

P = "pip430"
# max 100 -> trigger (long)(100 * 0.98) = 98, watermark (long)(100 * 0.5) = 50; ttl 10, ttl_max 50.
SMALL = CacheConfig(max_size=100, watermark=0.5, ttl=10, ttl_max=50)


def entries(observation):
    return [(e.ledger, e.entry, e.size, e.count, e.timestamp) for e in observation.entries]


def test_insert_stamps_now_and_keeps_count(run):
    results, obs = run(P, SMALL, [Insert(now=5, ledger=1, entry=0, size=30, expected_reads=2)])
    assert results == [True]
    assert entries(obs) == [(1, 0, 30, 2, 5)]
    assert obs.size == 30
    assert obs.counters.inserted == 1


def test_duplicate_insert_merges_count(run):
    # 2 expected reads, then a duplicate with 1 more -> 3; size and timestamp unchanged.
    results, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=30, expected_reads=2),
            Insert(now=2, ledger=1, entry=0, size=99, expected_reads=1),
        ],
    )
    assert results == [True, False]
    assert entries(obs) == [(1, 0, 30, 3, 1)]
    assert obs.counters.inserted == 1


def test_size_pass_stashes_protected_and_frees_oldest(run):
    # A 40 (count 1), B 40, C 30: size 110 > 98, free 110 - 50 = 60.
    # A protected and young -> stashed; B removed (40 < 60); C removed (70 >= 60) -> stop.
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=40, expected_reads=1),
            Insert(now=2, ledger=2, entry=0, size=40),
            Insert(now=3, ledger=1, entry=1, size=30),
            EvictSize(now=4),
        ],
    )
    assert entries(obs) == [(1, 0, 40, 1, 1)]
    assert obs.counters.removed_size == 2


def test_size_pass_does_nothing_at_or_below_trigger(run):
    # 98 is not above the trigger 98.
    _, obs = run(P, SMALL, [Insert(now=1, ledger=1, entry=0, size=98), EvictSize(now=2)])
    assert obs.size == 98


def test_size_pass_removes_protected_entry_past_ttl_max(run):
    # A (60, count 1, ts 0); B (50, ts 1): size 110 > 98, free 60 at now 51:
    # expiry = 51 - 50 = 1, A's ts 0 < 1 -> expired -> removed (60 >= 60) -> stop; B stays.
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=0, ledger=1, entry=0, size=60, expected_reads=1),
            Insert(now=1, ledger=1, entry=1, size=50),
            EvictSize(now=51),
        ],
    )
    assert entries(obs) == [(1, 1, 50, 0, 1)]


def test_stashed_entry_is_reconsidered_when_count_drops(run):
    # Pass 1 stashes A (count 1) and removes B; A's copy is released (count 0);
    # pass 2 (size 40 + 70 = 110 > 98, free 60) removes A from the stash first (40), then C (110).
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=40, expected_reads=1),
            Insert(now=2, ledger=1, entry=1, size=60),
            EvictSize(now=3),  # 100 > 98, free 50: A stashed, B removed (60 >= 50)
            Get(now=4, ledger=1, entry=0),  # copy 0
            Release(now=5, copy=0),  # count 1 -> 0
            Insert(now=6, ledger=1, entry=2, size=70),
            EvictSize(now=7),
        ],
    )
    assert entries(obs) == []
    assert obs.counters.removed_size == 3


def test_timestamp_pass_applies_two_ttls(run):
    # A (count 0, ts 0), B (count 1, ts 1), C (count 0, ts 2). At now 20: threshold 10, max -30:
    # A removed (0 < 10), B stashed (1 < 10 but not < -30), C removed (2 < 10).
    # At now 60: max = 60 - 50 = 10, B's ts 1 < 10 -> removed from the stash.
    script = [
        Insert(now=0, ledger=1, entry=0, size=1),
        Insert(now=1, ledger=1, entry=1, size=1, expected_reads=1),
        Insert(now=2, ledger=1, entry=2, size=1),
        EvictTimestamp(now=20),
    ]
    _, obs = run(P, SMALL, script)
    assert entries(obs) == [(1, 1, 1, 1, 1)]
    _, obs = run(P, SMALL, [*script, EvictTimestamp(now=60)])
    assert entries(obs) == []
    assert obs.counters.removed_ttl == 3


def test_timestamp_pass_is_strict(run):
    # ts 0, ttl 10: at now 10 the threshold is 0 and 0 < 0 is false -> kept; at 11 removed.
    script = [Insert(now=0, ledger=1, entry=0, size=1)]
    assert run(P, SMALL, [*script, EvictTimestamp(now=10)])[1].size == 1
    assert run(P, SMALL, [*script, EvictTimestamp(now=11)])[1].size == 0


def test_forced_removal_marks_evicted_and_it_is_final(run):
    # count 2, copy 0 dispatched; invalidating the ledger marks the handler EVICTED;
    # the replay increment is refused and release leaves it EVICTED.
    results, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=10, expected_reads=2),
            Get(now=2, ledger=1, entry=0),
            InvalidateLedger(now=3, ledger=1),
            ReplayIncrement(now=4, copy=0),
        ],
    )
    assert results[1] == 0
    assert results[3] is False
    assert obs.copies == ((0, EVICTED),)
    assert obs.counters.removed_invalidate == 1


def test_replay_increment_on_live_handler(run):
    results, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=10, expected_reads=1),
            Get(now=2, ledger=1, entry=0),
            ReplayIncrement(now=3, copy=0),
            Release(now=4, copy=0),
        ],
    )
    # 1 + 1 (replay) - 1 (release) = 1: the entry keeps its one expected read.
    assert results[2] is True
    assert entries(obs) == [(1, 0, 10, 1, 1)]
    assert obs.copies == ()


def test_invalidate_before_is_strict_and_per_ledger(run):
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=1),
            Insert(now=2, ledger=1, entry=1, size=1),
            Insert(now=3, ledger=2, entry=0, size=1),
            InvalidateBefore(now=4, ledger=1, entry=1),
        ],
    )
    assert [(e.ledger, e.entry) for e in obs.entries] == [(1, 1), (2, 0)]


def test_clear_counts_clear(run):
    _, obs = run(P, SMALL, [Insert(now=1, ledger=1, entry=0, size=1), Clear(now=2)])
    assert obs.entries == ()
    assert obs.counters.removed_clear == 1


def test_get_range_hits_and_misses_in_order(run):
    results, obs = run(
        P,
        SMALL,
        [Insert(now=1, ledger=1, entry=1, size=1), GetRange(now=2, ledger=1, first=0, last=2)],
    )
    assert results[1] == (None, 0, None)
    assert (obs.counters.hits, obs.counters.misses) == (1, 2)


def test_configure_changes_the_watermark(run):
    # Watermark 0.5 -> 0.2: free 110 - 20 = 90: A (40) and B (40) go (80), C (30) too (110 >= 90).
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=40),
            Insert(now=2, ledger=1, entry=1, size=40),
            Insert(now=3, ledger=1, entry=2, size=30),
            Configure(now=4, watermark=0.2),
            EvictSize(now=5),
        ],
    )
    assert obs.size == 0


def test_disabled_cache_never_caches(run):
    results, obs = run(P, CacheConfig(max_size=0), [Insert(now=1, ledger=1, entry=0, size=1)])
    assert results == [False]
    assert obs.entries == ()


def test_preconditions_make_steps_not_allowed():
    model = get_profile(P)
    state = model.init(SMALL)
    state = next(iter(model.step(state, Insert(now=5, ledger=1, entry=0, size=1)))).state
    assert model.step(state, Insert(now=4, ledger=1, entry=1, size=1)) == frozenset()  # clock goes back
    assert model.step(state, Insert(now=6, ledger=1, entry=1, size=0)) == frozenset()  # size 0
    assert model.step(state, Release(now=6, copy=7)) == frozenset()  # no such copy
    assert model.step(state, GetRange(now=6, ledger=1, first=2, last=1)) == frozenset()
    assert model.step(state, Configure(now=6, watermark=1.5)) == frozenset()
