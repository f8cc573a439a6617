"""Hand-traced scenarios of the pulsar-master model; each comment spells out the arithmetic."""

from ledgerspec.spec.cache import (
    CacheConfig,
    Clear,
    Configure,
    EvictSize,
    EvictTimestamp,
    Get,
    Insert,
    InvalidateLedger,
    Release,
    ReplayIncrement,
)

P = "pulsar-master"
# max 100 -> trigger 98, watermark 50; ttl 10; max_requeue 1; extend_ttl true.
SMALL = CacheConfig(max_size=100, watermark=0.5, ttl=10, max_requeue=1, extend_ttl=True)


def entries(observation):
    return [(e.ledger, e.entry, e.size, e.count, e.timestamp) for e in observation.entries]


def test_handler_only_for_positive_count(run):
    _, obs = run(
        P,
        SMALL,
        [Insert(now=1, ledger=1, entry=0, size=5), Insert(now=2, ledger=1, entry=1, size=5, expected_reads=2)],
    )
    assert entries(obs) == [(1, 0, 5, None, 1), (1, 1, 5, 2, 2)]


def test_duplicate_insert_changes_nothing(run):
    results, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=5, expected_reads=1),
            Insert(now=2, ledger=1, entry=0, size=9, expected_reads=3),
        ],
    )
    assert results == [True, False]
    assert entries(obs) == [(1, 0, 5, 1, 1)]


def test_ttl_requeues_protected_entry_max_times(run):
    # A (count 1, ts 0), B (ts 1). Pass at 20 (threshold 10): A requeued (ts 20), B removed,
    # A again 20 >= 10 -> stop. Pass at 40 (threshold 30): A 20 < 30 with requeues 1 = max -> removed.
    script = [
        Insert(now=0, ledger=1, entry=0, size=1, expected_reads=1),
        Insert(now=1, ledger=1, entry=1, size=1),
        EvictTimestamp(now=20),
    ]
    _, obs = run(P, SMALL, script)
    assert entries(obs) == [(1, 0, 1, 1, 20)]
    _, obs = run(P, SMALL, [*script, EvictTimestamp(now=40)])
    assert entries(obs) == []
    assert obs.counters.removed_ttl == 2


def test_recently_accessed_entry_gets_one_more_ttl_per_read(run):
    # A (no handler, ts 0) read at 5. Pass at 20: accessed -> requeued (ts 20, accessed cleared).
    # Pass at 40: 20 < 30, not accessed, no expected reads -> removed.
    script = [Insert(now=0, ledger=1, entry=0, size=1), Get(now=5, ledger=1, entry=0), EvictTimestamp(now=20)]
    assert entries(run(P, SMALL, script)[1]) == [(1, 0, 1, None, 20)]
    assert entries(run(P, SMALL, [*script, EvictTimestamp(now=40)])[1]) == []


def test_extend_ttl_off_removes_accessed_entry(run):
    config = SMALL.replace(extend_ttl=False)
    _, obs = run(
        P, config, [Insert(now=0, ledger=1, entry=0, size=1), Get(now=5, ledger=1, entry=0), EvictTimestamp(now=20)]
    )
    assert entries(obs) == []


def test_size_pass_ignores_timestamps_and_bounds_requeues(run):
    # A (60, count 1), B (50): size 110 > 98, free 60: A requeued (requeues 1), B removed (50 < 60),
    # A again: requeues 1 = max -> removed (110 >= 60).
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=1, ledger=1, entry=0, size=60, expected_reads=1),
            Insert(now=2, ledger=2, entry=0, size=50),
            EvictSize(now=3),
        ],
    )
    assert entries(obs) == []
    assert obs.counters.removed_size == 2


def test_removal_decrements_the_shared_handler(run):
    # count 2; copy 0 dispatched (shares it). TTL removal releases the cache's own value: 2 - 1 = 1.
    # Releasing copy 0 then gives 0... but the copy is gone, so the open copies are empty.
    config = SMALL.replace(max_requeue=0, extend_ttl=False)
    _, obs = run(
        P,
        config,
        [
            Insert(now=0, ledger=1, entry=0, size=1, expected_reads=2),
            Get(now=1, ledger=1, entry=0),
            EvictTimestamp(now=20),
        ],
    )
    assert entries(obs) == []
    assert obs.copies == ((0, 1),)


def test_mark_read_has_no_floor(run):
    # count 1; two copies; both released: 1 - 1 - 1 = -1.
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=0, ledger=1, entry=0, size=1, expected_reads=1),
            Get(now=1, ledger=1, entry=0),
            Get(now=2, ledger=1, entry=0),
            Release(now=3, copy=0),
            Release(now=4, copy=1),
        ],
    )
    assert entries(obs) == [(1, 0, 1, -1, 0)]


def test_replay_increment_returns_nothing_and_needs_a_handler(run):
    results, obs = run(
        P,
        SMALL,
        [
            Insert(now=0, ledger=1, entry=0, size=1),
            Get(now=1, ledger=1, entry=0),
            ReplayIncrement(now=2, copy=0),
        ],
    )
    assert results[2] is None
    assert obs.copies == ((0, None),)


def test_no_evicted_state_after_invalidation(run):
    # count 1, copy 0; invalidation removes the entry: D7 decrement -> 0; replay +1 -> 1.
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=0, ledger=1, entry=0, size=1, expected_reads=1),
            Get(now=1, ledger=1, entry=0),
            InvalidateLedger(now=2, ledger=1),
            ReplayIncrement(now=3, copy=0),
        ],
    )
    assert obs.copies == ((0, 1),)


def test_resize_to_zero_evicts_everything_on_the_next_pass(run):
    # E8: max 0 -> trigger 0, watermark 0; size 2 > 0, free 2.
    _, obs = run(
        P,
        SMALL,
        [
            Insert(now=0, ledger=1, entry=0, size=1),
            Insert(now=1, ledger=1, entry=1, size=1),
            Configure(now=2, max_size=0),
            EvictSize(now=3),
        ],
    )
    assert obs.entries == ()


def test_clear_counts_every_entry(run):
    _, obs = run(
        P, SMALL, [Insert(now=0, ledger=1, entry=0, size=1), Insert(now=1, ledger=2, entry=0, size=1), Clear(now=2)]
    )
    assert obs.counters.removed_clear == 2
