"""CACHE-BACKLOG-CACHING judged on traces: what a cursor reads from storage, cached iff its count is > 0.

A ``cursor_read`` starts one BookKeeper ledger's read; the reader's ``cursor_seek`` past it ends it and
judges what it read from storage (traces/FORMAT.md). Recorded from the references and from mutants
through ``traces record``'s recorder, and written by hand.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from ledgerspec.spec.cache import Append, Configure, CursorAdd, CursorRead, LedgerClose, Op
from ledgerspec.traces.cache._local import check_local

_SPEC = importlib.util.spec_from_file_location(
    "_ledgerspec_ledger_traces", Path(__file__).with_name("ledger_traces.py")
)
assert _SPEC is not None
assert _SPEC.loader is not None
helpers = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = helpers
_SPEC.loader.exec_module(helpers)
CONFIG, record, broken, _written = helpers.CONFIG, helpers.record, helpers.broken, helpers.written

BACKLOG = "CACHE-BACKLOG-CACHING"


def _read_of(*events: dict) -> list[dict]:
    """Cursor ``a`` at 0 and ``b`` at 5 on ledger 1; ``a`` reads from 0: ``events``, in order."""
    return [
        {"kind": "cursor_add", "ledger": 1, "cursor": "a", "entry": 0},
        {"kind": "cursor_add", "ledger": 1, "cursor": "b", "entry": 5},
        {"kind": "cursor_read", "ledger": 1, "cursor": "a", "entry": 0},
        *events,
    ]


MISS_0 = {"kind": "miss", "ledger": 1, "entry": 0}
SEEK_A = {"kind": "cursor_seek", "ledger": 1, "cursor": "a", "entry": 1}


def _cached_0(count: int) -> list[dict]:
    """Entry 0 cached with ``count`` (at time 5, the fifth event), then the reader's copy."""
    return [
        {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "count": count, "timestamp": 5},
        {"kind": "hit", "ledger": 1, "entry": 0, "copy": 1, "count": count},
    ]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([MISS_0, *_cached_0(1), SEEK_A], None),
        ([MISS_0, *_cached_0(2), SEEK_A], "cached with count 2"),
        ([MISS_0, SEEK_A], "not cached"),
        ([MISS_0, *_cached_0(1)[:1], SEEK_A], "cached, but the reader got no copy of it"),
        ([MISS_0, {**SEEK_A, "entry": 0}], None),  # a rewind, not a move past the read: a read that failed
        ([MISS_0, {"kind": "size_sample", "size": 0}, SEEK_A], None),  # cut short by another event
    ],
)
def test_a_read_from_storage_is_judged_when_the_reader_moves_past_it(tmp_path, events, message):
    found = broken(_written(tmp_path, "pip430", {"max_size": 10_000}, _read_of(*events)))
    if message is None:
        assert found == {}
    else:
        assert list(found) == [BACKLOG]
        assert found[BACKLOG][0].endswith(message)
        assert "(1, 0) read from storage by 'a' (seq 3) counting 1" in found[BACKLOG][0]


def test_with_tracking_off_a_read_from_storage_is_not_cached(tmp_path):
    events = _read_of(MISS_0, *_cached_0(1), SEEK_A)
    assert broken(_written(tmp_path, "pip430", {"max_size": 10_000, "track_reads": False}, events)) == {
        BACKLOG: ["(1, 0) read from storage by 'a' (seq 3) counting 0: cached with count 1"]
    }


def test_a_read_across_a_reopen_counts_each_part_at_its_start(tmp_path):
    """Entries 0-1 stored before a close, 2 after it: ``a`` reads 0..2 in two parts, and ``b`` (at 1)
    counts in the second one only (``OpReadEntry.checkReadCompletion``, managed-ledger 4.2.4)."""
    ops: list[Op] = [
        Append(now=1, ledger=1, entry=0, size=10),
        Append(now=2, ledger=1, entry=1, size=10),
        LedgerClose(now=3, ledger=1),
        Append(now=4, ledger=1, entry=2, size=10),
        CursorAdd(now=5, ledger=1, cursor="a", entry=0),
        CursorAdd(now=6, ledger=1, cursor="b", entry=1),
        CursorRead(now=7, ledger=1, cursor="a", last=2),
    ]
    trace = record("reference-pulsar-master", "pulsar-master", ops, tmp_path / "ok.jsonl")
    assert [json.loads(line)["kind"] for line in trace.read_text().splitlines()[1:]].count("cursor_read") == 2
    assert broken(trace) == {}
    found = broken(record("pulsar-master-one-read-across-reopens", "pulsar-master", ops, tmp_path / "bad.jsonl"))
    assert found == {BACKLOG: ["(1, 2) read from storage by 'a' (seq 21) counting 2: cached with count 1"]}


@pytest.mark.parametrize("profile", ["pip430", "pulsar-master"])
@pytest.mark.parametrize(("at_start", "later"), [(10_000, 0), (0, 10_000)])
def test_whether_a_read_from_storage_is_cached_goes_by_the_cache_enabled_at_start(tmp_path, profile, at_start, later):
    """A cache disabled at start stays ``EntryCacheDisabled`` (it caches nothing), and one enabled at start
    stays a cache whatever ``max_size`` becomes: a run-time ``max_size`` does not decide what a read caches.
    Judged by the run-time value, both of the reference's traces were false violations."""
    ops: list[Op] = [
        Configure(now=1, max_size=later),
        Append(now=2, ledger=1, entry=0, size=10),  # no cursor yet: stored, not offered to the cache
        CursorAdd(now=3, ledger=1, cursor="c", entry=0),
        CursorRead(now=4, ledger=1, cursor="c", last=0),
    ]
    config = CONFIG.replace(max_size=at_start)
    trace = record(f"reference-{profile}", profile, ops, tmp_path / "t.jsonl", config)
    kinds = [json.loads(line)["kind"] for line in trace.read_text().splitlines()[1:]]
    assert "cursor_read" in kinds
    assert ("insert" in kinds) == (at_start > 0)  # the read from storage cached it only if enabled at start
    assert broken(trace) == {}


@pytest.mark.parametrize(
    ("events", "config", "pending"),
    [
        ([MISS_0], {}, "[(1, 0)]"),  # missed, counting 1: must be cached before the reader moves on
        ([MISS_0, *_cached_0(1)[:1]], {}, "[(1, 0)]"),  # cached: the reader's copy must follow
        ([MISS_0, *_cached_0(1)], {}, None),  # cached and copied: the reader's move would judge nothing
        ([MISS_0], {"track_reads": False}, None),  # counting 0: not caching it is already right
        ([], {}, None),  # nothing read yet
    ],
)
def test_a_trace_ending_inside_a_read_is_unknown_when_its_end_would_judge_something(tmp_path, events, config, pending):
    """The reader's move past a read judges what it read from storage; cut before it, the trace does
    not show whether the read went right, so the verdict is UNKNOWN, never OK, naming the read."""
    result = check_local(str(_written(tmp_path, "pip430", {"max_size": 10_000, **config}, _read_of(*events))))
    if pending is None:
        assert (result.verdict, result.unknown) == ("OK", [])
    else:
        assert (result.verdict, result.violations) == ("UNKNOWN", [])
        assert result.unknown == [
            (
                f"broker 'b1': {BACKLOG}: the trace ends inside the read of ledger 1 by 'a' (seq 3): {pending} "
                "read from storage are judged when the reader moves past it"
            )
        ]
