"""Each invariant fails on a deliberately broken model and holds on the correct one.

A broken model is the profile's model with one rule replaced (monkeypatched into its RULES table).
The same scenario runs through both; the monitor, checking only the invariant under test, must stay
silent on the correct model and report the broken one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from ledgerspec.spec.cache import (
    CATALOGUE,
    Append,
    CacheConfig,
    CursorAdd,
    CursorCount,
    CursorRead,
    CursorSeek,
    EvictBefore,
    EvictBytes,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    LedgerClose,
    Monitor,
    Op,
    RemoveRange,
    ReplayIncrement,
    claimed,
    get_profile,
    legacy,
    pip430,
    pulsar_master,
    segmented,
)
from ledgerspec.spec.cache._base import deterministic
from ledgerspec.spec.cache._kernels import Verdict, pip430_size_verdict

SMALL = CacheConfig(max_size=100, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1, extend_ttl=True)


def run_candidate(profile: str, ops: list[Op], config: CacheConfig) -> list[tuple[Op, object, object]]:
    """The (op, result, observation) history of a model used as the candidate."""
    model = get_profile(profile)
    state = model.init(config)
    history = []
    for op in ops:
        outcomes = sorted(model.step(state, op), key=repr)
        assert outcomes, f"{op.describe()} not allowed"
        state = outcomes[0].state
        history.append((op, outcomes[0].result, model.observe(state)))
    return history


def violations(profile: str, invariant: str, history: list, config: CacheConfig) -> list[str]:
    """Check a history with the (unbroken) monitor."""
    monitor = Monitor(profile, config, invariants=[invariant])
    return [v.message for op, result, after in history for v in monitor.check(op, result, after)]


# --- the broken rules -------------------------------------------------------------------------


def pip430_insert_ignores_count(work, op):
    return pip430._insert(work, dataclasses.replace(op, expected_reads=0))


def pip430_ttl_requeues_protected(work, op):
    """Confuses the stash with requeueing: protected entries are re-stamped and moved to the tail."""
    threshold = op.now - work.config.ttl
    for wrapper in list(work.queue):
        if wrapper.ts < threshold:
            work.queue.remove(wrapper)
            if work.handlers[wrapper.handler] > 0:
                work.queue.append(dataclasses.replace(wrapper, ts=op.now))
            else:
                work.count("removed_ttl")


def pip430_size_newest_first(work, op):
    work.queue.reverse()
    pip430._evict_size(work, op)
    work.queue.reverse()


def pip430_size_ignores_counts(work, op):
    for wrapper in work.queue:
        work.handlers[wrapper.handler] = 0
    saved = list(work.handlers)
    pip430._evict_size(work, op)
    del saved


def pip430_increment_after_evicted(work, op):
    handler = work.copy_handler(op.copy)
    work.handlers[handler] += 1
    return True


def pip430_duplicate_replaces(work, op):
    work.queue = [w for w in work.queue if (w.ledger, w.entry) != (op.ledger, op.entry)]
    work.stash = [w for w in work.stash if (w.ledger, w.entry) != (op.ledger, op.entry)]
    return pip430._insert(work, op)


def master_invalidate_forgets_counter(work, op):
    work.queue = [w for w in work.queue if w.ledger != op.ledger]


def master_watermark_from_trigger(work, op):
    original = work.config
    work.config = original.replace(watermark=original.trigger)
    pulsar_master._evict_size(work, op)
    work.config = original


def master_ttl_inclusive(work, op):
    pulsar_master._evict_timestamp(work, dataclasses.replace(op, now=op.now + 1))


def master_unbounded_requeue(work, op):
    original = work.config
    work.config = original.replace(max_requeue=10**6)
    pulsar_master._evict_timestamp(work, op)
    work.config = original


def master_release_keeps_count(work, op):
    work.copy_handler(op.copy)
    del work.copies[op.copy]


def master_refuses_at_max(work, op):
    if sum(w.size for w in work.queue) >= work.config.max_size:
        return False
    return pulsar_master._insert(work, op)


def master_invalidate_drops_wrapper(work, op):
    """Forced removal that takes the wrapper out of the queue: no tombstone is left."""
    pulsar_master._invalidate_before(work, op)
    work.queue = [w for w in work.queue if w is not None]


def master_requeue_uncounted(work, op):
    """``markRequeued()`` that forgets ``requeueCount++``."""
    before = {(w.ledger, w.entry): w.requeues for w in work.live()}
    pulsar_master._evict_timestamp(work, op)
    restore = before.get
    work.queue = [w and dataclasses.replace(w, requeues=restore((w.ledger, w.entry), 0)) for w in work.queue]


def master_requeue_keeps_accessed(work, op):
    """``markRequeued()`` that forgets ``accessed = false``."""
    accessed = {(w.ledger, w.entry) for w in work.live() if w.accessed}
    pulsar_master._evict_timestamp(work, op)
    work.queue = [w and dataclasses.replace(w, accessed=(w.ledger, w.entry) in accessed) for w in work.queue]


def master_read_leaves_accessed(work, op):
    """A hit that does not set ``accessed``."""
    copy = pulsar_master._get(work, op)
    work.queue = [w and dataclasses.replace(w, accessed=False) for w in work.queue]
    return copy


def master_non_evictable_the_pip_way(count):
    """``!canEvict()`` where ``getNonEvictableSize`` is meant: an entry without a handler is not counted (E5)."""
    return count is not None and count >= 1


def master_hit_bytes_uncounted(work, op):
    hits_before = work.counters["hit_bytes"]
    copy = pulsar_master._get(work, op)
    work.counters["hit_bytes"] = hits_before
    return copy


def legacy_invalidate_inclusive(work, op):
    legacy._invalidate_before(work, dataclasses.replace(op, entry=op.entry + 1))


def legacy_duplicate_replaces(work, op):
    work.entries.pop((op.ledger, op.entry), None)
    return legacy._insert(work, op)


def legacy_ttl_skips_unexpired(work, op):
    """Removes every expired entry of a ledger, also those above an unexpired one (L2 fixed the wrong way)."""
    limit = op.now - work.config.ttl
    for position, entry in sorted(work.entries.items()):
        if entry.ts <= limit:
            del work.entries[position]
            work.count("removed_ttl")


def legacy_policy_smallest_first(work, op):
    """Ranks the caches smallest first (the comparator reversed); selection and shares as the policy's."""
    if work.pending is None:
        return
    to_free, work.pending = work.pending - work.config.watermark_size, None
    sizes = work.ledger_sizes()
    to_consider, selected = int(sum(sizes.values()) * 0.5), []
    for ledger in sorted(sizes, key=lambda lg: (sizes[lg], lg)):
        if sum(sizes[lg] for lg in selected) >= to_consider:
            break
        selected.append(ledger)
    total = sum(sizes[lg] for lg in selected)
    for ledger in selected:
        legacy._evict_lowest(work, ledger, int(to_free * (sizes[ledger] / total)))
    return


def legacy_insert_ignores_space(work, op):
    if (op.ledger, op.entry) in work.entries:
        return False
    work.entries[op.ledger, op.entry] = legacy.Entry(op.ledger, op.entry, op.size, op.now)
    work.count("inserted")
    return True


def segmented_no_align(work, op):
    """Reserves the entry's size, not align64(size)."""
    if op.size > work.segment_size:
        return False
    if work.offset + op.size > work.segment_size:
        work.current = (work.current + 1) % work.segment_count
        work.segments[work.current] = {}
        work.offset = 0
    work.segments[work.current][op.ledger, op.entry] = (work.offset, op.size)
    work.offset += op.size
    work.count("inserted")
    return True


def segmented_count_strictly_before(work, op):
    position = work.cursors.get((op.ledger, op.cursor))
    if position is None:
        return 0
    return sum(1 for (lg, _), pos in work.cursors.items() if lg == op.ledger and pos < position)


def segmented_caches_oversized(work, op):
    work.segments[work.current][op.ledger, op.entry] = (0, op.size)
    work.count("inserted")
    return True


# --- scenarios -------------------------------------------------------------------------------


@dataclass
class Case:
    invariant: str
    profile: str
    module: object
    op: type
    broken: Callable
    ops: list[Op]
    attribute: str = ""
    """If set, ``broken`` replaces this function of the module (one ``observe`` uses) instead of the op's rule."""


def I(now, ledger, entry, size, reads=0):  # noqa: E743 - a one-letter name keeps the scenarios legible
    return Insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=reads)


def A(now, ledger, entry, size):
    return Append(now=now, ledger=ledger, entry=entry, size=size)


CASES = [
    # Any deviation from the model: counts are dropped.
    Case("CACHE-MODEL", "pip430", pip430, Insert, pip430_insert_ignores_count, [I(1, 1, 0, 5, reads=2)]),
    # A protected entry past ttl is re-stamped by the TTL pass: pip430 never changes a timestamp.
    Case(
        "CACHE-FIFO",
        "pip430",
        pip430,
        EvictTimestamp,
        pip430_ttl_requeues_protected,
        [I(0, 1, 0, 1, reads=1), I(1, 1, 1, 1), EvictTimestamp(now=20)],
    ),
    # Size 110 > 98, free 60: newest-first removes C (30) and B (40), keeping the older, unprotected A.
    Case(
        "CACHE-OLDEST-FIRST",
        "pip430",
        pip430,
        EvictSize,
        pip430_size_newest_first,
        [I(1, 1, 0, 40), I(2, 2, 0, 40), I(3, 1, 1, 30), EvictSize(now=4)],
    ),
    # A (count 1, young) is removed by size eviction when counts are ignored.
    Case(
        "CACHE-PROTECT-UNTIL-EXPIRED",
        "pip430",
        pip430,
        EvictSize,
        pip430_size_ignores_counts,
        [I(1, 1, 0, 60, reads=1), I(2, 1, 1, 50), EvictSize(now=3)],
    ),
    # After a forced removal the handler is EVICTED; the broken increment succeeds.
    Case(
        "CACHE-EVICTED-FINAL",
        "pip430",
        pip430,
        ReplayIncrement,
        pip430_increment_after_evicted,
        [
            I(1, 1, 0, 5, reads=1),
            Get(now=2, ledger=1, entry=0),
            InvalidateLedger(now=3, ledger=1),
            ReplayIncrement(now=4, copy=0),
        ],
    ),
    # The invalidation does not count its removals: inserted - removed != entries.
    Case(
        "CACHE-SIZE-ACCOUNTING",
        "pulsar-master",
        pulsar_master,
        InvalidateLedger,
        master_invalidate_forgets_counter,
        [I(1, 1, 0, 5), InvalidateLedger(now=2, ledger=1)],
    ),
    # Size 110, watermark taken from the trigger (98): frees 12, ends at 70 > 50.
    Case(
        "CACHE-WATERMARK",
        "pulsar-master",
        pulsar_master,
        EvictSize,
        master_watermark_from_trigger,
        [I(1, 1, 0, 40), I(2, 1, 1, 40), I(3, 1, 2, 30), EvictSize(now=4)],
    ),
    # ts 0, ttl 10: at now 10 nothing has expired (0 < 0 is false); `<=` removes it.
    Case(
        "CACHE-TTL",
        "pulsar-master",
        pulsar_master,
        EvictTimestamp,
        master_ttl_inclusive,
        [I(0, 1, 0, 1), EvictTimestamp(now=10)],
    ),
    # invalidateEntries((1,1)) must keep (1,1).
    Case(
        "CACHE-NO-STALE-READ",
        "legacy",
        legacy,
        InvalidateBefore,
        legacy_invalidate_inclusive,
        [I(1, 1, 0, 1), I(2, 1, 1, 1), InvalidateBefore(now=3, ledger=1, entry=1)],
    ),
    # max_requeue 1: the second TTL requeue without a read breaks the bound.
    Case(
        "CACHE-BOUNDED-PROTECTION",
        "pulsar-master",
        pulsar_master,
        EvictTimestamp,
        master_unbounded_requeue,
        [I(0, 1, 0, 1, reads=1), EvictTimestamp(now=20), EvictTimestamp(now=40)],
    ),
    # Two cursors at 0 and 5: the count for the second is 2, strictly-before says 1.
    Case(
        "CACHE-CURSOR-COUNT",
        "segmented",
        segmented,
        CursorCount,
        segmented_count_strictly_before,
        [
            CursorAdd(now=1, ledger=1, cursor="a", entry=0),
            CursorAdd(now=2, ledger=1, cursor="b", entry=0),
            CursorSeek(now=3, ledger=1, cursor="b", entry=5),
            CursorCount(now=4, ledger=1, cursor="b"),
        ],
    ),
    # Releasing a copy must decrement the shared count (2 -> 1).
    Case(
        "CACHE-READ-COUNT",
        "pulsar-master",
        pulsar_master,
        pulsar_master.Release,
        master_release_keeps_count,
        [
            I(1, 1, 0, 5, reads=2),
            Get(now=2, ledger=1, entry=0),
            Get(now=3, ledger=1, entry=0),
            pulsar_master.Release(now=4, copy=0),
        ],
    ),
    # The duplicate replaces the entry (new timestamp and count) instead of merging.
    Case(
        "CACHE-DUPLICATE-MERGE",
        "pip430",
        pip430,
        Insert,
        pip430_duplicate_replaces,
        [I(1, 1, 0, 5, reads=1), I(2, 1, 0, 5, reads=1)],
    ),
    Case(
        "CACHE-DUPLICATE-REFUSED", "legacy", legacy, Insert, legacy_duplicate_replaces, [I(1, 1, 0, 5), I(2, 1, 0, 7)]
    ),
    # Size 100 = max: the merged code still caches the next insert.
    Case(
        "CACHE-INSERT-ACCEPTED",
        "pulsar-master",
        pulsar_master,
        Insert,
        master_refuses_at_max,
        [I(1, 1, 0, 100), I(2, 1, 1, 1)],
    ),
    # An entry of 129 bytes in 128-byte segments must not be cached.
    Case("CACHE-SEGMENT-RING", "segmented", segmented, Insert, segmented_caches_oversized, [I(1, 1, 0, 129)]),
    # ttl 10: (1, 5) at 0, then (1, 3) at 8; a pass at 15 (expired: ts <= 5) stops at (1, 3): nothing goes.
    Case(
        "CACHE-TTL-WALK",
        "legacy",
        legacy,
        EvictTimestamp,
        legacy_ttl_skips_unexpired,
        [I(0, 1, 5, 1), I(8, 1, 3, 1), EvictTimestamp(now=15)],
    ),
    # Size 100 = max 100: the next insert is refused (100 < 100 is false).
    Case("CACHE-SPACE-CHECK", "legacy", legacy, Insert, legacy_insert_ignores_space, [I(1, 1, 0, 100), I(2, 1, 1, 1)]),
    # A hit of 5 bytes that hit_bytes does not count.
    Case(
        "CACHE-STATISTICS",
        "pulsar-master",
        pulsar_master,
        Get,
        master_hit_bytes_uncounted,
        [I(1, 1, 0, 5), Get(now=2, ledger=1, entry=0)],
    ),
    # max 100 -> trigger 98, watermark 50. Ledgers 1, 2, 3 hold 40, 30, 30; the insert that sees 99 > 98
    # schedules freeing 99 - 50 = 49. Largest first: 40 and one 30 are selected (70 >= half of 100);
    # smallest first selects the two 30s (60 >= 50) and spares ledger 1, the largest.
    Case(
        "CACHE-LEGACY-SIZE-POLICY",
        "legacy",
        legacy,
        EvictSize,
        legacy_policy_smallest_first,
        [I(1, 1, 0, 40), I(2, 2, 0, 30), I(3, 3, 0, 29), I(4, 3, 1, 1), EvictSize(now=5)],
    ),
    # (1, 0) and (1, 1) queued; invalidating before (1, 1) leaves (1, 0)'s wrapper as a tombstone: length 2, not 1.
    Case(
        "CACHE-QUEUE-ACCOUNTING",
        "pulsar-master",
        pulsar_master,
        InvalidateBefore,
        master_invalidate_drops_wrapper,
        [I(1, 1, 0, 5), I(2, 1, 1, 5), InvalidateBefore(now=3, ledger=1, entry=1)],
    ),
    # One entry of 5 bytes inserted without expected reads (no handler): getNonEvictableSize counts it (E5).
    Case(
        "CACHE-NON-EVICTABLE-SIZE",
        "pulsar-master",
        pulsar_master,
        Insert,
        master_non_evictable_the_pip_way,
        [I(1, 1, 0, 5)],
        attribute="is_non_evictable",
    ),
    # Segments of 128: an entry of 10 bytes reserves 64, so the ring reports 64, not 10.
    Case("CACHE-SEGMENT-PLACEMENT", "segmented", segmented, Insert, segmented_no_align, [I(1, 1, 0, 10)]),
]


def pip430_append_without_cursor(work, op):
    """Appends are cached whether or not the ledger has an active cursor."""
    work.stored[op.ledger, op.entry] = op.size
    return pip430._insert(work, Insert(now=op.now, ledger=op.ledger, entry=op.entry, size=op.size, expected_reads=1))


def master_read_caches_nothing(work, op):
    """A cursor's read from storage is never cached."""
    position = work.cursors[op.ledger, op.cursor]
    got = pulsar_master._get_range(work, GetRange(now=op.now, ledger=op.ledger, first=position, last=op.last))
    work.cursors[op.ledger, op.cursor] = op.last + 1
    return got


def legacy_seek_keeps_cache(work, op):
    """Cursor moves invalidate nothing, also in legacy mode."""
    work.cursors[op.ledger, op.cursor] = op.entry


def master_close_keeps_entries(work, op):
    """Closing a ledger drops its cursors only."""
    work.cursors = {key: pos for key, pos in work.cursors.items() if key[0] != op.ledger}


LEDGER_CASES = [
    # No active cursor on ledger 1: the append is stored, not cached.
    Case("CACHE-APPEND-CACHING", "pip430", pip430, Append, pip430_append_without_cursor, [A(1, 1, 0, 5)]),
    # (1,0) appended before the cursor came: c1 reads it from storage with count 1, so it is cached.
    Case(
        "CACHE-BACKLOG-CACHING",
        "pulsar-master",
        pulsar_master,
        CursorRead,
        master_read_caches_nothing,
        [
            A(1, 1, 0, 5),
            CursorAdd(now=2, ledger=1, cursor="c1", entry=0),
            CursorRead(now=3, ledger=1, cursor="c1", last=0),
        ],
    ),
    # Legacy: c1 at 0 caches the append of (1,0); c1 moves to 1, the slowest: (1,0) must go.
    Case(
        "CACHE-BELOW-SLOWEST",
        "legacy",
        legacy,
        CursorSeek,
        legacy_seek_keeps_cache,
        [
            CursorAdd(now=1, ledger=1, cursor="c1", entry=0),
            A(2, 1, 0, 5),
            CursorSeek(now=3, ledger=1, cursor="c1", entry=1),
        ],
    ),
    Case(
        "CACHE-LEDGER-CLOSE",
        "pulsar-master",
        pulsar_master,
        LedgerClose,
        master_close_keeps_entries,
        [CursorAdd(now=1, ledger=1, cursor="c1", entry=0), A(2, 1, 0, 5), LedgerClose(now=3, ledger=1)],
    ),
]
CASES += LEDGER_CASES


def test_every_invariant_has_a_mutant_case():
    assert sorted(case.invariant for case in CASES) == sorted(i.id for i in CATALOGUE)


@pytest.mark.parametrize("case", CASES, ids=[case.invariant for case in CASES])
def test_invariant_holds_on_model_and_fails_on_mutant(case: Case, monkeypatch: pytest.MonkeyPatch):
    config = SMALL.replace(max_size=256, segment_size_max=128) if case.profile == "segmented" else SMALL
    assert case.invariant in {i.id for i in claimed(case.profile)}
    assert violations(case.profile, case.invariant, run_candidate(case.profile, case.ops, config), config) == []
    with monkeypatch.context() as patch:
        if case.attribute:
            patch.setattr(case.module, case.attribute, case.broken)
        else:
            patch.setitem(case.module.RULES, case.op, deterministic(case.broken))
        broken_history = run_candidate(case.profile, case.ops, config)
    found = violations(case.profile, case.invariant, broken_history, config)
    assert found, f"{case.invariant} did not notice the broken {case.broken.__name__}"


def test_monitor_refuses_unclaimed_invariants():
    with pytest.raises(Exception, match="does not claim"):
        Monitor("legacy", SMALL, invariants=["CACHE-TTL"])


def test_size_verdict_kernel_protects_until_expiry():
    # count 1, ts 5, expiry 4: not expired, protected -> STASH; expiry 6 -> REMOVE.
    assert pip430_size_verdict(5, 1, 0, 10, 4) is Verdict.STASH
    assert pip430_size_verdict(5, 1, 0, 10, 6) is Verdict.REMOVE


def test_entries_requeued_by_one_pass_have_no_order_among_themselves():
    # Found by the real managed-ledger 4.2.4 classes (cache-range-cache-4.2.4, pulsar-defaults, thorough):
    # a size pass cycles the queue; X, with more requeues left than Z, goes round once more, so after
    # the pass Z is ahead of X although X was ahead before it. Removing Z and keeping X is then in
    # order: the monitor may not claim X "entered earlier".
    config = CacheConfig(max_size=300, watermark=0.5, ttl=10, ttl_max=40, max_requeue=2, extend_ttl=False)
    ops = [
        Insert(now=1, ledger=1, entry=0, size=150, expected_reads=1),  # Y
        Insert(now=2, ledger=1, entry=1, size=145, expected_reads=1),  # Z
        Insert(now=3, ledger=2, entry=0, size=5, expected_reads=1),  # X
        EvictTimestamp(now=13),  # Y and Z expired: requeued once; X is not: queue X, Y, Z
        EvictSize(now=14),  # X, Y, Z requeued; X requeued again; Y removed: queue Z, X
        Insert(now=15, ledger=3, entry=0, size=145),
        EvictSize(now=16),  # Z (no requeue left) removed, enough: X stays
    ]
    history = run_candidate("pulsar-master", ops, config)
    assert history[-1][2].entry(2, 0) is not None
    assert history[-1][2].entry(1, 1) is None
    assert violations("pulsar-master", "CACHE-OLDEST-FIRST", history, config) == []
    assert violations("pulsar-master", "CACHE-MODEL", history, config) == []


def legacy_range_always_from_storage(work, op):
    """Reads a range from storage even when all of it is cached."""
    work.count("misses", op.last - op.first + 1)
    return (None,) * (op.last - op.first + 1)


def test_legacy_reads_a_partly_cached_range_whole_from_storage_and_no_more(monkeypatch: pytest.MonkeyPatch):
    # managed-ledger 4.0.8: (1,1) cached, (1,2) not: both are misses, and that is no stale read.
    partly = [I(1, 1, 1, 5), GetRange(now=2, ledger=1, first=1, last=2)]
    history = run_candidate("legacy", partly, SMALL)
    assert history[-1][1] == (None, None)
    assert violations("legacy", "CACHE-NO-STALE-READ", history, SMALL) == []
    # ... but a fully cached range must hit: a candidate that goes to storage anyway reads stale.
    whole = [I(1, 1, 1, 5), I(2, 1, 2, 5), GetRange(now=3, ledger=1, first=1, last=2)]
    with monkeypatch.context() as patch:
        patch.setitem(legacy.RULES, GetRange, deterministic(legacy_range_always_from_storage))
        broken = run_candidate("legacy", whole, SMALL)
    assert violations("legacy", "CACHE-NO-STALE-READ", broken, SMALL)
    # ... and only legacy may: the merged code reads the missing part alone.
    with monkeypatch.context() as patch:
        patch.setitem(pulsar_master.RULES, GetRange, deterministic(legacy_range_always_from_storage))
        master = run_candidate("pulsar-master", partly, SMALL)
    assert violations("pulsar-master", "CACHE-NO-STALE-READ", master, SMALL)


# --- the removals with a target of their own: each check that judges them notices a broken one ---------


def master_range_one_below(work, op):
    return pulsar_master._remove_range(work, dataclasses.replace(op, first=op.first - 1))


def master_range_ignores_inclusive(work, op):
    return pulsar_master._remove_range(work, dataclasses.replace(op, inclusive=False))


def master_freed_counts_nothing(work, op):
    entries, _ = pulsar_master._evict_bytes(work, op)
    return (entries, 0)


def master_cutoff_inclusive(work, op):
    return pulsar_master._evict_before(work, dataclasses.replace(op, cutoff=op.cutoff + 1))


def master_bytes_unbounded_requeue(work, op):
    original = work.config
    work.config = original.replace(max_requeue=10**6)
    freed = pulsar_master._evict_bytes(work, op)
    work.config = original
    return freed


def master_cutoff_ignores_requeue(work, op):
    """The explicit cutoff removes what it reaches, as if it were a forced removal."""
    original = work.config
    work.config = original.replace(max_requeue=0, extend_ttl=False)
    freed = pulsar_master._evict_before(work, op)
    work.config = original
    return freed


def legacy_cutoff_strict(work, op):
    return legacy._evict_before(work, dataclasses.replace(op, cutoff=op.cutoff - 1))


def pip430_range_not_evicted(work, op):
    doomed = {(w.ledger, w.entry) for w in work.stash + work.queue if w.ledger == op.ledger and w.entry == op.first}
    work.queue = [w for w in work.queue if (w.ledger, w.entry) not in doomed]
    work.count("removed_invalidate", len(doomed))
    return (len(doomed), 0)


def pip430_bytes_ignores_counts(work, op):
    for wrapper in work.queue:
        work.handlers[wrapper.handler] = 0
    return pip430._evict_bytes(work, op)


def pip430_ttl_counts_an_eviction(work, op):
    pip430._evict_timestamp(work, op)
    work.count("evictions")


EXPLICIT_CASES = [
    # ttl 10, max_requeue 1: (1, 0) with one expected read is requeued by the pass at 20: requeues 0 -> 1.
    Case(
        "CACHE-QUEUE-ACCOUNTING",
        "pulsar-master",
        pulsar_master,
        EvictTimestamp,
        master_requeue_uncounted,
        [I(1, 1, 0, 5, reads=1), EvictTimestamp(now=20)],
    ),
    # read at 2, so the pass at 20 requeues it for access (extend_ttl): accessed must be cleared.
    Case(
        "CACHE-QUEUE-ACCOUNTING",
        "pulsar-master",
        pulsar_master,
        EvictTimestamp,
        master_requeue_keeps_accessed,
        [I(1, 1, 0, 5), Get(now=2, ledger=1, entry=0), EvictTimestamp(now=20)],
    ),
    # a hit sets accessed
    Case(
        "CACHE-QUEUE-ACCOUNTING",
        "pulsar-master",
        pulsar_master,
        Get,
        master_read_leaves_accessed,
        [I(1, 1, 0, 5), Get(now=2, ledger=1, entry=0)],
    ),
    # a TTL pass is not a size eviction: recordCacheEviction is not called
    Case(
        "CACHE-STATISTICS",
        "pip430",
        pip430,
        EvictTimestamp,
        pip430_ttl_counts_an_eviction,
        [I(1, 1, 0, 5), EvictTimestamp(now=30)],
    ),
    # remove_range(1, 2, 3, inclusive) also takes (1, 1)
    Case(
        "CACHE-NO-STALE-READ",
        "pulsar-master",
        pulsar_master,
        RemoveRange,
        master_range_one_below,
        [I(1, 1, 1, 5), I(2, 1, 2, 5), I(3, 1, 3, 5), RemoveRange(now=4, ledger=1, first=2, last=3, inclusive=True)],
    ),
    # inclusive ignored: (1, 3) is left
    Case(
        "CACHE-NO-STALE-READ",
        "pulsar-master",
        pulsar_master,
        RemoveRange,
        master_range_ignores_inclusive,
        [I(1, 1, 2, 5), I(2, 1, 3, 5), RemoveRange(now=4, ledger=1, first=2, last=3, inclusive=True)],
    ),
    # the result says no bytes were freed
    Case(
        "CACHE-MODEL",
        "pulsar-master",
        pulsar_master,
        EvictBytes,
        master_freed_counts_nothing,
        [I(1, 1, 0, 5), EvictBytes(now=2, bytes=5)],
    ),
    # cutoff 2: the entry stamped 2 is not before it
    Case(
        "CACHE-TTL",
        "pulsar-master",
        pulsar_master,
        EvictBefore,
        master_cutoff_inclusive,
        [I(1, 1, 0, 5), I(2, 1, 1, 5), EvictBefore(now=3, cutoff=2)],
    ),
    # an entry expecting a read is requeued a second time (max_requeue 1) by a later bytes pass
    Case(
        "CACHE-BOUNDED-PROTECTION",
        "pulsar-master",
        pulsar_master,
        EvictBytes,
        master_bytes_unbounded_requeue,
        [I(1, 1, 0, 5, reads=1), I(2, 1, 1, 5), EvictBytes(now=3, bytes=5), I(4, 1, 2, 5), EvictBytes(now=5, bytes=5)],
    ),
    # max_requeue 1: an explicit cutoff removes (1, 0), which expects a read and was never requeued
    Case(
        "CACHE-BOUNDED-PROTECTION",
        "pulsar-master",
        pulsar_master,
        EvictBefore,
        master_cutoff_ignores_requeue,
        [I(1, 1, 0, 5, reads=1), EvictBefore(now=3, cutoff=2)],
    ),
    # legacy expires ts <= cutoff: the entry stamped 2 goes at cutoff 2
    Case(
        "CACHE-TTL-WALK",
        "legacy",
        legacy,
        EvictBefore,
        legacy_cutoff_strict,
        [I(2, 1, 0, 5), EvictBefore(now=3, cutoff=2)],
    ),
    # a forced removal of a range marks EVICTED: the open copy shows it
    Case(
        "CACHE-EVICTED-FINAL",
        "pip430",
        pip430,
        RemoveRange,
        pip430_range_not_evicted,
        [
            I(1, 1, 0, 5, reads=2),
            Get(now=2, ledger=1, entry=0),
            RemoveRange(now=3, ledger=1, first=0, last=0, inclusive=True),
        ],
    ),
    # a protected, young entry freed by a bytes pass
    Case(
        "CACHE-PROTECT-UNTIL-EXPIRED",
        "pip430",
        pip430,
        EvictBytes,
        pip430_bytes_ignores_counts,
        [I(1, 1, 0, 5, reads=1), EvictBytes(now=2, bytes=5)],
    ),
]


@pytest.mark.parametrize("case", EXPLICIT_CASES, ids=[f"{c.invariant}-{c.broken.__name__}" for c in EXPLICIT_CASES])
def test_explicit_removals_are_judged(case: Case, monkeypatch: pytest.MonkeyPatch):
    test_invariant_holds_on_model_and_fails_on_mutant(case, monkeypatch)


def pip430_gives_every_entry_a_handler(work, op):
    return pip430._insert(work, dataclasses.replace(op, expected_reads=op.reads()))


def pip430_merges_into_no_handler(work, op):
    previous = work.cached(op.ledger, op.entry)
    if previous is not None and previous.handler is None:
        work.stash = [w for w in work.stash if w is not previous]
        work.queue = [
            dataclasses.replace(w, handler=work.new_handler(op.reads())) if w is previous else w for w in work.queue
        ]
        return False
    return pip430._insert(work, op)


def pip430_replay_without_handler_accepted(work, op):
    return True if work.copy_handler(op.copy) is None else pip430._replay_increment(work, op)


NO_HANDLER_CASES = [
    # an entry created without a handler (pip430) is given one
    Case("CACHE-MODEL", "pip430", pip430, Insert, pip430_gives_every_entry_a_handler, [I(1, 1, 0, 5, reads=None)]),
    Case(
        "CACHE-DUPLICATE-MERGE",
        "pip430",
        pip430,
        Insert,
        pip430_merges_into_no_handler,
        [I(1, 1, 0, 5, reads=None), I(2, 1, 0, 5, reads=2)],
    ),
    Case(
        "CACHE-EVICTED-FINAL",
        "pip430",
        pip430,
        ReplayIncrement,
        pip430_replay_without_handler_accepted,
        [I(1, 1, 0, 5, reads=None), Get(now=2, ledger=1, entry=0), ReplayIncrement(now=3, copy=0)],
    ),
]


@pytest.mark.parametrize("case", NO_HANDLER_CASES, ids=[f"{c.invariant}-{c.broken.__name__}" for c in NO_HANDLER_CASES])
def test_no_handler_rules_are_judged(case: Case, monkeypatch: pytest.MonkeyPatch):
    test_invariant_holds_on_model_and_fails_on_mutant(case, monkeypatch)
