"""The reference caches' shared parts: package surface, configuration, clock, copies, snapshots, and
the building blocks (read counts, cursors, removal queue and stash, range caches)."""

from __future__ import annotations

import dataclasses
import pathlib
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ledgerspec.reference import cache as reference_cache
from ledgerspec.reference.cache import (
    CACHES,
    EVICTED,
    ActiveCursors,
    Config,
    MergedReadCount,
    Pip430ReadCount,
    RangeCaches,
    ReferenceCacheError,
    RemovalQueue,
    Stash,
    Wrapper,
)
from ledgerspec.spec.cache import CacheConfig, Observation

REFERENCE_DIR = pathlib.Path(reference_cache.__file__).parent
PROFILES = list(CACHES)


def small(name: str, **changes):
    # segmented: 2 segments of 512 bytes (max(2, 1024 // 1024)), room for a few aligned entries
    config = {"max_size": 1024 if name == "segmented" else 100, "watermark": 0.5, "ttl": 10, "ttl_max": 50}
    return CACHES[name](**(config | changes))


# --- package surface ----------------------------------------------------------------------------


def test_registry_names_the_four_profiles():
    assert PROFILES == ["pip430", "pulsar-master", "legacy", "segmented"]
    assert all(name == cls.PROFILE for name, cls in CACHES.items())


def test_reference_never_imports_the_spec():
    # statically: no module of reference/ imports from the spec package ...
    for path in REFERENCE_DIR.parent.rglob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+ledgerspec\.spec", path.read_text(), re.MULTILINE), path
    # ... and dynamically: importing every reference cache loads no spec module
    code = (
        "import sys, ledgerspec.reference.cache as c\n"
        "c.Pip430Cache(); c.PulsarMasterCache(); c.LegacyCache(); c.SegmentedCache()\n"
        "print(sorted(m for m in sys.modules if m.startswith('ledgerspec.spec')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_no_real_clock_in_the_reference():
    for path in REFERENCE_DIR.rglob("*.py"):
        text = path.read_text()
        assert "import time" not in text, path
        assert "datetime" not in text, path


# --- configuration ------------------------------------------------------------------------------


def test_defaults_and_ranges_match_the_spec_config():
    assert dataclasses.asdict(Config()) == dataclasses.asdict(CacheConfig())
    # (long)(maxSize * trigger), (long)(maxSize * watermark): 100 * 0.98 = 98, 100 * 0.5 = 50
    config = Config(max_size=100, watermark=0.5)
    assert (config.trigger_size, config.watermark_size) == (98, 50)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_size", -1),
        ("watermark", 1.5),
        ("trigger", -0.1),
        ("ttl", -5),
        ("ttl_max", 2.5),
        ("max_requeue", True),
        ("extend_ttl", 1),
        ("segment_size_max", 0),
    ],
)
@pytest.mark.parametrize("name", PROFILES)
def test_constructor_refuses_out_of_range_config(name, field, value):
    with pytest.raises(ReferenceCacheError, match=rf"{field}.*{value!r}"):
        CACHES[name](**{field: value})
    with pytest.raises(ReferenceCacheError, match=field):
        Config(**{field: value})


@pytest.mark.parametrize("name", PROFILES)
def test_configure_refuses_out_of_range_values_and_changes_nothing(name):
    cache = small(name)
    cache.configure(now=5, ttl=7)
    assert cache.config.ttl == 7
    with pytest.raises(ReferenceCacheError, match="watermark must be a number in"):
        cache.configure(now=6, watermark=2, ttl=3)
    assert (cache.config.ttl, cache.config.watermark, cache.now) == (7, 0.5, 5)


# --- clock and preconditions --------------------------------------------------------------------

CALLS = {
    "configure": {},
    "insert": {"ledger": 1, "entry": 0, "size": 10},
    "get": {"ledger": 1, "entry": 0},
    "get_range": {"ledger": 1, "first": 0, "last": 1},
    "invalidate_before": {"ledger": 1, "entry": 1},
    "invalidate_ledger": {"ledger": 1},
    "clear": {},
    "evict_timestamp": {},
    "evict_size": {},
    "cursor_add": {"ledger": 1, "cursor": "c", "entry": 0},
    "cursor_count": {"ledger": 1, "cursor": "c"},
}


@pytest.mark.parametrize("kind", list(CALLS))
@pytest.mark.parametrize("name", PROFILES)
def test_clock_never_goes_back(name, kind):
    cache = small(name)
    cache.get(now=10, ledger=1, entry=0)
    before = cache.snapshot()
    with pytest.raises(ReferenceCacheError, match="now must not go back: got 9, last accepted 10"):
        getattr(cache, kind)(now=9, **CALLS[kind])
    assert cache.snapshot() == before
    getattr(cache, kind)(now=10, **CALLS[kind])  # the same instant is fine


@pytest.mark.parametrize("name", PROFILES)
def test_a_refused_operation_does_not_move_the_clock(name):
    cache = small(name)
    with pytest.raises(ReferenceCacheError, match="size must be > 0, got 0"):
        cache.insert(now=50, ledger=1, entry=0, size=0)
    assert cache.now == 0
    assert cache.insert(now=20, ledger=1, entry=0, size=10) is True


@pytest.mark.parametrize(
    ("kind", "fields", "message"),
    [
        ("insert", {"ledger": 1, "entry": 0, "size": -3}, "insert: size must be > 0, got -3"),
        ("insert", {"ledger": 1, "entry": 0, "size": 5, "expected_reads": -1}, "expected_reads must be >= 0, got -1"),
        ("get_range", {"ledger": 1, "first": 4, "last": 3}, "first must be <= last, got first=4, last=3"),
        ("release", {"copy": 0}, "release: copy 0 is not an open copy"),
        ("replay_increment", {"copy": 7}, "replay_increment: copy 7 is not an open copy"),
        ("cursor_add", {"ledger": 1, "cursor": "c", "entry": -1}, "cursor_add: entry must be >= 0, got -1"),
        ("cursor_remove", {"ledger": 1, "cursor": "c"}, "cursor 'c' of ledger 1 is not active"),
        ("cursor_seek", {"ledger": 1, "cursor": "c", "entry": 3}, "cursor 'c' of ledger 1 is not active"),
    ],
)
@pytest.mark.parametrize("name", PROFILES)
def test_preconditions_name_the_argument(name, kind, fields, message):
    cache = small(name)
    with pytest.raises(ReferenceCacheError, match=message.replace("(", r"\(").replace(")", r"\)")):
        getattr(cache, kind)(now=1, **fields)
    assert cache.snapshot() == small(name).snapshot()


@pytest.mark.parametrize("name", PROFILES)
def test_released_copy_is_closed(name):
    cache = small(name)
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=1)
    copy = cache.get(now=2, ledger=1, entry=0)
    cache.release(now=3, copy=copy)
    with pytest.raises(ReferenceCacheError, match="copy 0 is not an open copy"):
        cache.release(now=4, copy=copy)


# --- copies, cursors and snapshots --------------------------------------------------------------


@pytest.mark.parametrize("name", PROFILES)
def test_copy_ids_count_up_from_zero_in_dispatch_order(name):
    cache = small(name)
    for entry in (0, 1, 2):
        cache.insert(now=1, ledger=1, entry=entry, size=10)
    assert cache.get(now=2, ledger=1, entry=1) == 0
    assert cache.get(now=2, ledger=1, entry=9) is None  # a miss dispatches nothing
    # entries 0..2, all cached: copies 1, 2, 3 in position order
    assert cache.get_range(now=3, ledger=1, first=0, last=2) == (1, 2, 3)
    counters = cache.snapshot()["counters"]
    assert (counters["hits"], counters["misses"]) == (4, 1)
    assert [copy for copy, _ in cache.snapshot()["copies"]] == [0, 1, 2, 3]


@pytest.mark.parametrize("name", PROFILES)
def test_a_partly_cached_range_is_read_per_entry_except_in_legacy(name):
    cache = small(name)
    for entry in (0, 1, 2):
        cache.insert(now=1, ledger=1, entry=entry, size=10)
    got = cache.get_range(now=2, ledger=1, first=1, last=3)  # 1 and 2 cached, 3 not
    counters = cache.snapshot()["counters"]
    if name == "legacy":  # managed-ledger 4.0.8 reads the whole range from storage: 3 misses, no copy
        assert got == (None, None, None)
        assert (counters["hits"], counters["misses"]) == (0, 3)
        assert cache.snapshot()["copies"] == []
    else:
        assert got == (0, 1, None)
        assert (counters["hits"], counters["misses"]) == (2, 1)


@pytest.mark.parametrize("name", PROFILES)
def test_snapshot_is_what_the_spec_observation_reads_and_writes(name):
    cache = small(name)
    cache.insert(now=1, ledger=2, entry=5, size=30, expected_reads=2)
    cache.insert(now=2, ledger=1, entry=7, size=20)
    cache.get(now=3, ledger=2, entry=5)
    snapshot = cache.snapshot()
    assert Observation.from_dict(snapshot).to_dict() == snapshot
    assert [(e["ledger"], e["entry"]) for e in snapshot["entries"]] == [(1, 7), (2, 5)]
    stats = ["evictions", "hit_bytes"] if name in {"pip430", "pulsar-master"} else []
    assert list(snapshot["counters"]) == [
        "inserted",
        "hits",
        "misses",
        "removed_size",
        "removed_ttl",
        "removed_invalidate",
        "removed_clear",
        *stats,
    ]


@pytest.mark.parametrize("name", PROFILES)
@pytest.mark.parametrize("steps", [0, 7, 40, 160])
def test_snapshot_rows_are_the_snapshot_as_tuples(name, steps, seeded_run):
    """``snapshot_rows`` is ``snapshot()``, field by field, in order; ``snapshot_at`` the same at given positions."""
    cache = small(name)
    snapshot = seeded_run(cache, 11, steps)
    entries, size, counters, copies = cache.snapshot_rows()
    assert all(type(row) is tuple and len(row) == 7 for row in entries)
    assert [row[:2] for row in entries] == sorted({row[:2] for row in entries})  # position order, no repeats
    keys = ("ledger", "entry", "size", "count", "timestamp", "requeues", "accessed")
    shown = [{k: v for k, v in zip(keys, row, strict=True) if v is not None or k in keys[:5]} for row in entries]
    assert shown == snapshot["entries"]
    assert all((row[5] is None) == (name != "pulsar-master") for row in entries)  # only the merged wrapper has them
    assert (size, counters, [list(pair) for pair in copies]) == (
        snapshot["size"],
        snapshot["counters"],
        snapshot["copies"],
    )
    assert steps < 40 or entries or copies  # the longer runs reach a non-empty cache
    uncached = (99, 99)
    at = cache.snapshot_at([row[:2] for row in entries] + [uncached])
    assert at == ({row[:2]: row for row in entries} | {uncached: None}, size, counters, copies)


@pytest.mark.parametrize("name", PROFILES)
def test_cursor_operations(name):
    cache = small(name)
    cache.cursor_add(now=1, ledger=1, cursor="a", entry=5)
    cache.cursor_add(now=1, ledger=1, cursor="b", entry=5)
    cache.cursor_add(now=1, ledger=1, cursor="c", entry=2)
    cache.cursor_add(now=1, ledger=2, cursor="a", entry=0)
    # ledger 1: c at 2, a and b at 5. a counts c, b and itself; c counts itself; ledger 2 apart
    assert cache.cursor_count(now=2, ledger=1, cursor="a") == 3
    assert cache.cursor_count(now=2, ledger=1, cursor="c") == 1
    assert cache.cursor_count(now=2, ledger=2, cursor="a") == 1
    assert cache.cursor_count(now=2, ledger=3, cursor="a") == 0  # not active: 0
    assert cache.active_cursors(1) == 3
    cache.cursor_seek(now=3, ledger=1, cursor="c", entry=9)  # c moves past a and b
    assert cache.cursor_count(now=3, ledger=1, cursor="a") == 2
    assert cache.cursor_count(now=3, ledger=1, cursor="c") == 3
    cache.cursor_remove(now=4, ledger=1, cursor="b")
    assert cache.cursor_count(now=4, ledger=1, cursor="c") == 2
    assert cache.cursor_count(now=4, ledger=1, cursor="b") == 0
    with pytest.raises(ReferenceCacheError, match="cursor 'a' of ledger 1 is already active"):
        cache.cursor_add(now=5, ledger=1, cursor="a", entry=0)
    with pytest.raises(ReferenceCacheError, match="cursor_seek: entry must be >= 0, got -2"):
        cache.cursor_seek(now=5, ledger=1, cursor="a", entry=-2)


def test_active_cursors_container_counts_with_bisect():
    cursors = ActiveCursors()
    for name, position in [("a", 3), ("b", 3), ("c", 1), ("d", 7)]:
        cursors.add(9, name, position)
    # sorted positions 1, 3, 3, 7: bisect_right(3) = 3
    assert [cursors.count_at_or_before(9, n) for n in "abcd"] == [3, 3, 1, 4]
    assert (len(cursors), cursors.active(9), cursors.position(9, "d")) == (4, 4, 7)
    cursors.remove(9, "d")
    cursors.remove(9, "c")
    cursors.remove(9, "a")
    cursors.remove(9, "b")
    assert (len(cursors), cursors.active(9)) == (0, 0)


# --- read counts --------------------------------------------------------------------------------


def test_pip430_read_count_is_final_once_evicted():
    handler = Pip430ReadCount(2)
    assert handler.increment(3) is True
    assert handler.count == 5
    handler.mark_read()
    assert handler.count == 4
    assert not handler.can_evict()
    handler.mark_evicted()
    assert (handler.count, handler.evicted, handler.can_evict()) == (EVICTED, True, True)
    assert handler.increment(1) is False  # refused, unchanged
    handler.mark_read()  # unchanged
    handler.mark_evicted()  # unconditional
    assert handler.count == EVICTED == -(2**30)


def test_pip430_read_count_has_no_floor_before_eviction():
    handler = Pip430ReadCount(0)
    handler.mark_read()
    handler.mark_read()
    assert (handler.count, handler.can_evict()) == (-2, True)


def test_merged_read_count():
    assert MergedReadCount.maybe_create(0) is None
    assert MergedReadCount.maybe_create(-1) is None
    handler = MergedReadCount.maybe_create(1)
    assert handler is not None
    assert handler.has_expected_reads()
    handler.mark_read()
    handler.mark_read()
    assert (handler.count, handler.has_expected_reads()) == (-1, False)  # no floor, no sentinel
    handler.increment()
    handler.increment()
    assert (handler.count, handler.has_expected_reads()) == (1, True)


# --- removal queue, stash, range caches ---------------------------------------------------------


def wrapper(entry, ts, count=0, size=10):
    return Wrapper(1, entry, size, ts, Pip430ReadCount(count), seq=entry)


def test_removal_queue_skips_tombstones_and_requeues_to_the_tail():
    queue = RemovalQueue()
    a, b, c = wrapper(0, 0), wrapper(1, 1), wrapper(2, 2)
    for w in (a, b, c):
        queue.offer(w)
    queue.tombstone(a)
    assert queue.peek() is b  # the tombstone is drained from the head
    assert len(queue) == 2
    head = queue.requeue(now=9)
    assert (head, head.ts, head.requeues, head.accessed) == (b, 9, 1, False)
    assert list(queue) == [c, b]
    queue.tombstone(b)
    assert queue.peek() is c
    assert queue.poll() is c
    assert queue.peek() is None  # only a tombstone was left
    assert len(queue) == 0


def test_stash_indexes_by_order_and_by_evictability():
    stash = Stash(lambda w: w.handler.can_evict())
    a, b, c, d = wrapper(0, 0, count=1), wrapper(1, 1, count=0), wrapper(2, 5, count=1), wrapper(3, 6, count=0)
    for w in (a, b, c, d):
        stash.add(w)
    # size pass with expiry 1 (only a has ts < 1): a first (expired), then b (count 0), then d
    assert stash.next_for_size(expiry=1) is a
    stash.discard(a)
    assert stash.next_for_size(expiry=1) is b
    stash.discard(b)
    assert stash.next_for_size(expiry=1) is d  # c is protected and not expired: skipped
    c.handler.mark_read()
    stash.refresh(c)  # c may now go by count, and it is before d
    assert stash.next_for_size(expiry=1) is c
    c.handler.increment(1)
    stash.refresh(c)
    # timestamp pass, threshold 7, threshold_max 3: c (ts 5 >= 3, protected) stays, d (count 0, 6 < 7) goes
    assert stash.take_expired(threshold=7, threshold_max=3) == [d]
    assert list(stash) == [c]
    assert stash.take_expired(threshold=7, threshold_max=6) == [c]  # 5 < 6: past the long TTL
    assert len(stash) == 0


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["put", "pop", "pop_before", "pop_ledger", "pop_all"]), st.integers(0, 2), st.integers(0, 5)
        ),
        max_size=40,
    )
)
def test_range_caches_list_their_values_after_every_change(calls):
    """``values()`` is kept between changes: every put and pop must show in the next listing."""
    ranges, model = RangeCaches(), {}
    for call, ledger, entry in calls:
        if call == "put" and (ledger, entry) not in model:
            model[ledger, entry] = Wrapper(ledger, entry, 1, 0, Pip430ReadCount(0), seq=0)
            ranges.put(ledger, entry, model[ledger, entry])
        elif call == "pop" and (ledger, entry) in model:
            assert ranges.pop(ledger, entry) is model.pop((ledger, entry))
        elif call == "pop_before":
            ranges.pop_before(ledger, entry)
            model = {
                position: value for position, value in model.items() if position[0] != ledger or position[1] >= entry
            }
        elif call == "pop_ledger":
            ranges.pop_ledger(ledger)
            model = {position: value for position, value in model.items() if position[0] != ledger}
        elif call == "pop_all":
            assert ranges.pop_all() == [model[position] for position in sorted(model)]
            model = {}
        assert ranges.values() == tuple(model[position] for position in sorted(model))


def test_range_caches_keep_running_sizes():
    ranges = RangeCaches()
    for entry, size in [(3, 10), (1, 20), (7, 30)]:
        ranges.put(1, entry, wrapper(entry, 0, size=size))
    ranges.put(2, 0, wrapper(0, 0, size=5))
    assert (len(ranges), ranges.total_size, ranges.ledger_size(1)) == (4, 65, 60)
    assert ranges.first(1)[0] == 1
    assert [w.entry for w in ranges.pop_before(1, 7)] == [1, 3]  # strictly before 7
    assert (ranges.total_size, ranges.ledger_sizes()) == (35, {1: 30, 2: 5})
    assert [w.entry for w in ranges.pop_ledger(2)] == [0]
    assert ranges.pop(1, 7).size == 30
    assert (len(ranges), ranges.total_size, ranges.ledger_sizes(), ranges.first(1)) == (0, 0, {}, None)
