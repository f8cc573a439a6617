"""The managed-ledger layer judged on traces (CACHE-BELOW-SLOWEST, CACHE-LEDGER-CLOSE, CACHE-APPEND-CACHING).

An ``invalidate`` pass a cursor made names that cursor (traces/FORMAT.md). Tracking mode makes none;
legacy mode bounds it by the slowest active cursor, and the last cursor leaving a ledger, or its close,
leaves none of it cached. An ``append`` is offered to the cache exactly when its ledger has an active
cursor, with one expected read per cursor (tracking) or none. Recorded from the references and from
mutants through ``traces record``'s recorder, and written by hand where only an instrumented broker
could show it (a wrong bound, an append not offered).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from ledgerspec.spec.cache import (
    Append,
    CacheConfig,
    Configure,
    CursorAdd,
    CursorRemove,
    CursorSeek,
    Get,
    Insert,
    LedgerClose,
    Monitor,
    Op,
)
from ledgerspec.traces.cache._check import trace_invariants
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._replay import BrokerReplay, chunk_of

_SPEC = importlib.util.spec_from_file_location(
    "_ledgerspec_ledger_traces", Path(__file__).with_name("ledger_traces.py")
)
assert _SPEC is not None
assert _SPEC.loader is not None
helpers = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = helpers
_SPEC.loader.exec_module(helpers)
CONFIG, record, broken, _written = helpers.CONFIG, helpers.record, helpers.broken, helpers.written

BELOW, CLOSE = "CACHE-BELOW-SLOWEST", "CACHE-LEDGER-CLOSE"

READ_AND_MOVE: list[Op] = [
    CursorAdd(now=1, ledger=1, cursor="a", entry=0),
    Insert(now=2, ledger=1, entry=0, size=10, expected_reads=1),
    Insert(now=3, ledger=1, entry=1, size=10, expected_reads=1),
    Get(now=4, ledger=1, entry=0),
    CursorSeek(now=5, ledger=1, cursor="a", entry=1),
]
LAST_LEAVES: list[Op] = [
    CursorAdd(now=1, ledger=1, cursor="a", entry=0),
    Insert(now=2, ledger=1, entry=0, size=10, expected_reads=1),
    Insert(now=3, ledger=2, entry=0, size=10, expected_reads=1),
    CursorRemove(now=4, ledger=1, cursor="a"),
    Insert(now=5, ledger=2, entry=1, size=10, expected_reads=1),
]


def test_the_recorded_invalidation_names_the_cursor_that_made_it(tmp_path):
    trace = record("reference-legacy", "legacy", READ_AND_MOVE, tmp_path / "t.jsonl")
    starts = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    starts = [event for event in starts if event["kind"] == "pass_start"]
    assert starts == [{**starts[0], "reason": "invalidate", "ledger": 1, "entry": 1, "cursor": "a"}]
    assert broken(trace) == {}


def test_a_cursor_move_invalidating_with_tracking_on_is_flagged(tmp_path):
    assert broken(record("reference-pulsar-master", "pulsar-master", READ_AND_MOVE, tmp_path / "ok.jsonl")) == {}
    found = broken(record("pulsar-master-tracking-invalidates", "pulsar-master", READ_AND_MOVE, tmp_path / "bad.jsonl"))
    assert list(found) == [BELOW]
    assert "cursor 'a' made on ledger 1: with expected-read-count tracking on" in found[BELOW][0]


def test_the_last_cursor_leaving_without_clearing_its_ledger_is_flagged(tmp_path):
    assert broken(record("reference-legacy", "legacy", LAST_LEAVES, tmp_path / "ok.jsonl")) == {}
    found = broken(record("legacy-last-cursor-keeps-cache", "legacy", LAST_LEAVES, tmp_path / "bad.jsonl"))
    assert found == {CLOSE: ["its last active cursor 'a' leaving left [(1, 0)] of ledger 1 cached"]}


def replayed_in_two(path: Path, cut: int) -> BrokerReplay:
    """Broker b1 of a legacy trace replayed in two chunks, cut before event ``cut``."""
    trace = open_trace(path)
    (first_row, batch), *_ = trace.batches()
    chunk = chunk_of(batch, np.arange(first_row, first_row + batch.num_rows, dtype=np.int64))
    replay = BrokerReplay("b1", "legacy", trace.config, trace_invariants("legacy"))
    replay.feed(chunk.part(0, cut))
    replay.feed(chunk.part(cut, len(chunk)))
    return replay


@pytest.mark.parametrize("cut", [1, 2, 3, 4, 5, 6])
def test_a_departure_at_the_end_of_a_chunk_is_judged_by_the_next(tmp_path, cut):
    path = record("legacy-last-cursor-keeps-cache", "legacy", LAST_LEAVES, tmp_path / "bad.jsonl")
    replay = replayed_in_two(path, cut)
    assert [f.invariant for f in replay.findings] == [CLOSE]
    assert "its last active cursor 'a' leaving" in replay.findings[0].message


def _legacy_move(bound: int | None) -> list[dict]:
    """Two cursors on ledger 1; the slowest moves from 0 to 2; its invalidation is bounded by ``bound``.

    One event per nanosecond: event ``seq`` happens at time ``seq`` (entry ``e`` is inserted at ``3 + e``).
    """
    pass_start = {"kind": "pass_start", "reason": "invalidate", "size": 30, "ledger": 1, "cursor": "a"}
    if bound is not None:
        pass_start["entry"] = bound
    return [
        {"kind": "cursor_add", "ledger": 1, "cursor": "a", "entry": 0},
        {"kind": "cursor_add", "ledger": 1, "cursor": "b", "entry": 5},
        *({"kind": "insert", "ledger": 1, "entry": e, "size": 10, "timestamp": 3 + e, "count": 0} for e in range(3)),
        {"kind": "cursor_seek", "ledger": 1, "cursor": "a", "entry": 2},
        pass_start,
        *(
            {"kind": "remove", "ledger": 1, "entry": e, "size": 10, "reason": "invalidate", "timestamp": 3 + e}
            for e in range(bound if bound is not None else 3)
        ),
        {"kind": "pass_end", "reason": "invalidate", "size": 30 - 10 * (bound if bound is not None else 3)},
    ]


def test_an_invalidation_bounded_elsewhere_than_the_slowest_cursor_is_flagged(tmp_path):
    config = {"max_size": 10_000}
    assert broken(_written(tmp_path, "legacy", config, _legacy_move(2))) == {}
    for bound, shown in ((1, "1"), (3, "3"), (None, "none (the whole ledger)")):
        found = broken(_written(tmp_path, "legacy", config, _legacy_move(bound)))
        made = "the invalidation cursor 'a' made on ledger 1"
        message = f"{made} is bounded by {shown}; the slowest active cursor is at 2"
        assert found == {BELOW: [message]}


def test_tracking_off_is_legacy_mode_on_pulsar_master(tmp_path):
    events = _legacy_move(2)
    assert broken(_written(tmp_path, "pulsar-master", {"max_size": 10_000, "track_reads": False}, events)) == {}
    found = broken(_written(tmp_path, "pulsar-master", {"max_size": 10_000}, events))
    assert list(found) == [BELOW]


APPENDS: list[Op] = [
    Append(now=1, ledger=1, entry=0, size=10),
    CursorAdd(now=2, ledger=1, cursor="a", entry=1),
    CursorAdd(now=3, ledger=1, cursor="b", entry=1),
    Append(now=4, ledger=1, entry=1, size=10),
    LedgerClose(now=5, ledger=1),
    Append(now=6, ledger=1, entry=2, size=10),
]
APPEND = "CACHE-APPEND-CACHING"


def test_appends_and_a_close_recorded_from_the_reference_are_ok(tmp_path):
    trace = record("reference-pulsar-master", "pulsar-master", APPENDS, tmp_path / "t.jsonl")
    kinds = [json.loads(line)["kind"] for line in trace.read_text().splitlines()[1:]]
    assert kinds.count("append") == 3
    assert "ledger_close" in kinds
    assert broken(trace) == {}


@pytest.mark.parametrize(
    ("mutant", "invariant", "message"),
    [
        (
            "pip430-append-without-cursor",
            APPEND,
            [f"append of (1, {entry}) with 0 active cursor(s) on the ledger: offered to the cache" for entry in (0, 2)],
        ),
        ("pulsar-master-close-keeps-entries", CLOSE, ["closing ledger 1 left [(1, 1)] of ledger 1 cached"]),
    ],
)
def test_an_append_or_a_close_that_breaks_the_layer_is_flagged(tmp_path, mutant, invariant, message):
    profile = "pip430" if mutant.startswith("pip430") else "pulsar-master"
    assert broken(record(f"reference-{profile}", profile, APPENDS, tmp_path / "ok.jsonl")) == {}
    found = broken(record(mutant, profile, APPENDS, tmp_path / "bad.jsonl"))
    assert found == {invariant: message}


def test_with_tracking_off_an_append_has_no_read_count_handler(tmp_path):
    ops = [CursorAdd(now=1, ledger=1, cursor="a", entry=0), Append(now=2, ledger=1, entry=0, size=10)]
    untracked = CONFIG.replace(track_reads=False)
    assert broken(record("reference-pulsar-master", "pulsar-master", ops, tmp_path / "ok.jsonl", untracked)) == {}
    mutant = "pulsar-master-append-ignores-tracking"
    found = broken(record(mutant, "pulsar-master", ops, tmp_path / "bad.jsonl", untracked))
    want = "append of (1, 0) with 1 active cursor(s) on the ledger: cached with count 1, want no read-count handler"
    assert found == {APPEND: [want]}


@pytest.mark.parametrize(
    ("after", "message"),
    [
        (None, "append of (1, 0) with 2 active cursor(s) on the ledger: not offered to the cache"),
        ({"count": 1}, "append of (1, 0) with 2 active cursor(s) on the ledger: cached with count 1, want 2"),
        ({"count": 2}, None),
        ({"count": None}, None),
    ],
)
def test_an_append_is_judged_by_the_event_after_it(tmp_path, after, message):
    events = [
        {"kind": "cursor_add", "ledger": 1, "cursor": "a", "entry": 0},
        {"kind": "cursor_add", "ledger": 1, "cursor": "b", "entry": 0},
        {"kind": "append", "ledger": 1, "entry": 0, "size": 10},
    ]
    if after is not None:
        insert = {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 4, **after}
        events.append({k: v for k, v in insert.items() if v is not None})
    events.append({"kind": "size_sample", "size": 0 if after is None else 10})
    found = broken(_written(tmp_path, "pulsar-master", {"max_size": 10_000}, events))
    assert found == ({} if message is None else {APPEND: [message]})


@pytest.mark.parametrize("profile", ["pip430", "pulsar-master", "legacy", "segmented"])
@pytest.mark.parametrize("track_reads", [True, False])
def test_the_instrumented_references_edge_traces_are_ok(tmp_path, profile, track_reads):
    """The generator writes no size sample after an append that is not offered, so the event after it
    may be another position's insert: only the append's own insert is judged."""
    path = tmp_path / "t.jsonl"
    config = CacheConfig(max_size=200_000, ttl=3_000_000, ttl_max=15_000_000, track_reads=track_reads)
    generate_trace(str(path), workload="edge", brokers=1, topics=4, events=4000, seed=1, profile=profile, config=config)
    kinds = [json.loads(line)["kind"] for line in path.read_text().splitlines()[1:]]
    if profile != "segmented":
        assert {"append", "ledger_close", "cursor_read"} <= set(kinds)
    assert broken(path) == {}


def test_an_append_not_offered_is_not_judged_by_another_positions_insert(tmp_path):
    """The event after an append with no cursor may be anything else: another ledger's insert, counted."""
    events = [
        {"kind": "cursor_add", "ledger": 1, "cursor": "a", "entry": 0},
        {"kind": "append", "ledger": 2, "entry": 0, "size": 10},
        {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 3, "count": 1},
    ]
    assert broken(_written(tmp_path, "pip430", {"max_size": 10_000}, events)) == {}


def test_removing_a_cursor_that_was_not_active_is_no_departure(tmp_path):
    """``deactivateCursorByName`` invalidates only if the container removed the cursor (managed-ledger 4.2.4)."""
    events = [
        {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 1},
        {"kind": "cursor_remove", "ledger": 1, "cursor": "ghost"},
        {"kind": "size_sample", "size": 10},
    ]
    assert broken(_written(tmp_path, "legacy", {"max_size": 10_000}, events)) == {}
    events.insert(0, {"kind": "cursor_add", "ledger": 1, "cursor": "ghost", "entry": 0})
    assert list(broken(_written(tmp_path, "legacy", {"max_size": 10_000}, events))) == [CLOSE]


def _cut(path: Path, after_kind: str) -> Path:
    """The trace cut right after its last ``after_kind`` event (a broker's trace may stop anywhere)."""
    lines = path.read_text().splitlines()
    last = max(i for i, line in enumerate(lines[1:], start=1) if json.loads(line)["kind"] == after_kind)
    cut = path.with_name(f"cut-{path.name}")
    cut.write_text("\n".join(lines[: last + 1]) + "\n")
    return cut


def unknown(path: Path) -> list[str]:
    result = check_local(str(path))
    assert result.violations == []
    assert (result.verdict == "UNKNOWN") == bool(result.unknown)
    return result.unknown


CLOSE_LAST: list[Op] = [
    CursorAdd(now=1, ledger=1, cursor="a", entry=0),
    Append(now=2, ledger=1, entry=0, size=10),
    LedgerClose(now=3, ledger=1),
]


def test_a_trace_cut_right_after_a_close_that_left_its_ledger_cached_is_unknown_never_ok(tmp_path):
    """Whole, the mutant's trace is a violation; cut after the close, the invalidation it skipped
    would have been the next event, so the end cannot judge it: UNKNOWN, naming the close."""
    mutant = "pulsar-master-close-keeps-entries"
    whole = record(mutant, "pulsar-master", CLOSE_LAST, tmp_path / "bad.jsonl")
    assert list(broken(whole)) == [CLOSE]
    assert unknown(_cut(whole, "ledger_close")) == [
        (
            "broker 'b1': CACHE-LEDGER-CLOSE: the trace ends right after closing ledger 1 (seq 6), "
            "with [(1, 0)] of ledger 1 cached: the invalidation would come next"
        )
    ]
    reference = record("reference-pulsar-master", "pulsar-master", CLOSE_LAST, tmp_path / "ok.jsonl")
    assert unknown(_cut(reference, "ledger_close")) != []  # its invalidation is cut off too
    assert unknown(_cut(reference, "pass_end")) == []  # cut after it: nothing of ledger 1 is left


def test_a_trace_cut_right_after_the_last_cursor_leaving_in_legacy_mode_is_unknown(tmp_path):
    whole = record("legacy-last-cursor-keeps-cache", "legacy", LAST_LEAVES[:4], tmp_path / "bad.jsonl")
    assert list(broken(whole)) == [CLOSE]
    (reason,) = unknown(_cut(whole, "cursor_remove"))
    assert "the trace ends right after its last active cursor 'a' leaving (seq 7), with [(1, 0)]" in reason


@pytest.mark.parametrize(("cursors", "verdict"), [(0, "OK"), (1, "UNKNOWN"), (2, "UNKNOWN")])
def test_a_trace_ending_on_an_append_is_unknown_when_the_append_needed_an_event_after_it(tmp_path, cursors, verdict):
    """With an active cursor the append must be offered to the cache by the next event, which the
    trace does not have; with none, nothing is what it must do."""
    events = [{"kind": "cursor_add", "ledger": 1, "cursor": name, "entry": 0} for name in "ab"[:cursors]]
    events.append({"kind": "append", "ledger": 1, "entry": 0, "size": 10})
    result = check_local(str(_written(tmp_path, "pulsar-master", {"max_size": 10_000}, events)))
    assert result.verdict == verdict
    if cursors:
        append = f"the append of (1, 0) (seq {cursors + 1}) with {cursors} active cursor(s) on the ledger"
        assert result.unknown == [
            (
                f"broker 'b1': CACHE-APPEND-CACHING: the trace ends right after {append}: "
                "the event offering it to the cache would come next"
            )
        ]


def _add(cursor: str, entry: int) -> dict:
    return {"kind": "cursor_add", "ledger": 1, "cursor": cursor, "entry": entry}


def _seek(cursor: str, entry: int) -> dict:
    return {"kind": "cursor_seek", "ledger": 1, "cursor": cursor, "entry": entry}


def _invalidation(cursor: str, bound: int, removes: bool = True, inserted: int = 3) -> list[dict]:
    """The invalidation ``cursor`` made below ``bound``, removing entry 0 (inserted at ``inserted``) or nothing."""
    size = 10 if removes else 0
    removal = {"kind": "remove", "ledger": 1, "entry": 0, "size": 10, "reason": "invalidate", "timestamp": inserted}
    return [
        {"kind": "pass_start", "reason": "invalidate", "size": size, "ledger": 1, "entry": bound, "cursor": cursor},
        *([removal] if removes else []),
        {"kind": "pass_end", "reason": "invalidate", "size": 0},
    ]


BEHIND = {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 3}
"""Entry 0 cached behind the slowest cursor (the third event: time 3)."""
REMOVES_NOTHING = "a move that leaves the slowest in place removes nothing"
IN_PLACE = f"removed [(1, 0)]; {REMOVES_NOTHING}"


@pytest.mark.parametrize(
    ("events", "message"),
    [
        # b, not the slowest, moves: the slowest (a at 2) stays, so nothing may go.
        ([_add("a", 2), _add("b", 5), BEHIND, _seek("b", 6), *_invalidation("b", 2)], "(at 2 since seq 4)"),
        # ... unless nothing was there to go: an invalidation that removes nothing is no violation.
        ([_add("a", 2), _add("b", 5), _seek("b", 6), *_invalidation("b", 2, removes=False)], None),
        # a, the slowest, moves: its invalidation is due.
        ([_add("a", 2), _add("b", 5), BEHIND, _seek("a", 3), *_invalidation("a", 3)], None),
        # a read across a reopen: two moves of the slowest, one invalidation after the last.
        ([_add("a", 2), _add("b", 9), BEHIND, _seek("a", 3), _seek("a", 4), *_invalidation("a", 4)], None),
        # a departure always invalidates, the slowest moved or not.
        (
            [_add("a", 2), _add("b", 5), BEHIND, {**_seek("b", 0), "kind": "cursor_remove"}, *_invalidation("b", 2)],
            None,
        ),
        # an arrival lowers the slowest without invalidating; the window starts there.
        ([_add("a", 5), _add("b", 2), BEHIND, _seek("a", 6), *_invalidation("a", 2)], "(at 2 since seq 4)"),
        ([_add("a", 5), _add("b", 2), BEHIND, _seek("b", 3), *_invalidation("b", 3)], None),
        # the window after a due invalidation starts at it.
        (
            [
                *(_add("a", 2), _add("b", 5), BEHIND, _seek("a", 3), *_invalidation("a", 3)),
                *({**BEHIND, "timestamp": 8}, _seek("b", 6), *_invalidation("b", 3, inserted=8)),
            ],
            "(at 3 since seq 9)",
        ),
        # cursors placed by a move, not added: known from there.
        ([_seek("a", 2), _seek("b", 5), BEHIND, _seek("b", 6), *_invalidation("b", 2)], "(at 2 since seq 4)"),
        # a cursor the trace never placed moves: it may have been the slowest (a trace starting mid-life).
        ([_add("b", 5), {**BEHIND, "timestamp": 2}, _seek("a", 5), *_invalidation("a", 5, inserted=2)], None),
        # a move that left the slowest in place, after one that moved it and invalidated nothing.
        (
            [_add("a", 2), _add("b", 5), _seek("a", 3), BEHIND, _seek("b", 6), *_invalidation("b", 3, inserted=4)],
            "(at 3 since seq 5)",
        ),
        # a read across a reopen invalidating after each part: the second part left the slowest in place.
        (
            [
                *(_add("a", 0), _add("b", 4), {**BEHIND, "timestamp": 3}),
                *({"kind": "cursor_read", "ledger": 1, "cursor": "a", "entry": 0}, _seek("a", 5)),
                *_invalidation("a", 4),
                {**BEHIND, "entry": 1, "timestamp": 9},
                *({"kind": "cursor_read", "ledger": 1, "cursor": "a", "entry": 5}, _seek("a", 8)),
                *(_invalidation("a", 4, inserted=9)[0], {**_invalidation("a", 4, inserted=9)[1], "entry": 1}),
                _invalidation("a", 4)[2],
            ],
            "(at 4 since seq 6) removed [(1, 1)]",
        ),
        # a read across a reopen with another cursor in between: the slowest moved in its first part.
        (
            [
                *(_add("a", 0), _add("b", 4), {**BEHIND, "timestamp": 3}),
                *({"kind": "cursor_read", "ledger": 1, "cursor": "a", "entry": 0}, _seek("a", 5)),
                *({"kind": "cursor_read", "ledger": 1, "cursor": "a", "entry": 5}, _seek("a", 8)),
                *_invalidation("a", 4),
            ],
            None,
        ),
    ],
)
def test_an_invalidation_with_the_slowest_cursor_in_place_removes_nothing(tmp_path, events, message):
    """Legacy mode: ``updateActiveCursor`` invalidates only when the slowest moved (managed-ledger 4.2.4)."""
    for profile, config in (("legacy", {"max_size": 10_000}), ("pip430", {"max_size": 10_000, "track_reads": False})):
        found = broken(_written(tmp_path, profile, config, events))
        if message is None:
            assert found == {}
        else:
            (text,) = found[BELOW]
            assert text.startswith("the invalidation cursor")
            assert message in text
            assert text.endswith(REMOVES_NOTHING)


def test_the_mutant_that_invalidates_on_every_move_is_flagged_on_its_recorded_trace(tmp_path):
    ops: list[Op] = [
        CursorAdd(now=1, ledger=1, cursor="a", entry=2),
        CursorAdd(now=2, ledger=1, cursor="b", entry=5),
        Insert(now=3, ledger=1, entry=0, size=10, expected_reads=1),
        CursorSeek(now=4, ledger=1, cursor="b", entry=6),
    ]
    untracked = CONFIG.replace(track_reads=False)
    assert broken(record("reference-pip430", "pip430", ops, tmp_path / "ok.jsonl", untracked)) == {}
    found = broken(record("pip430-invalidates-on-every-move", "pip430", ops, tmp_path / "bad.jsonl", untracked))
    made = "the invalidation cursor 'b' made on ledger 1"
    assert found == {BELOW: [f"{made} with the slowest cursor in place (at 2 since seq 7) {IN_PLACE}"]}


@pytest.mark.parametrize("cut", range(1, 9))
def test_an_invalidation_with_the_slowest_in_place_is_judged_across_chunks(tmp_path, cut):
    events = [_add("a", 2), _add("b", 5), BEHIND, _seek("b", 6), *_invalidation("b", 2)]
    replay = replayed_in_two(_written(tmp_path, "legacy", {"max_size": 10_000}, events), cut)
    assert [f.invariant for f in replay.findings] == [BELOW]
    assert replay.findings[0].message.endswith(IN_PLACE)


def test_a_move_after_tracking_was_on_for_a_while_is_judged_from_where_the_slowest_was(tmp_path):
    """With tracking on, cursor events still place the slowest: b's move back to 3 after tracking is
    switched off again moves it (from 5, where b's move to 7 with tracking on left it), and its
    invalidation is due (found by review: flagged on the reference, in conformance too)."""
    ops: list[Op] = [
        CursorAdd(now=1, ledger=1, cursor="a", entry=5),
        CursorAdd(now=2, ledger=1, cursor="b", entry=3),
        Configure(now=3, track_reads=True),
        CursorSeek(now=4, ledger=1, cursor="b", entry=7),
        Configure(now=5, track_reads=False),
        Insert(now=6, ledger=1, entry=0, size=10, expected_reads=1),
        CursorSeek(now=7, ledger=1, cursor="b", entry=3),
    ]
    untracked = CONFIG.replace(track_reads=False)
    trace = record("reference-pip430", "pip430", ops, tmp_path / "ok.jsonl", untracked)
    assert '"cursor":"b"' in trace.read_text().splitlines()[-4]  # the invalidation b made
    assert broken(trace) == {}
    adapter, monitor = helpers.adapter("reference-pip430"), Monitor("pip430", untracked)
    adapter.start(untracked)
    for op in ops:
        assert monitor.check(op, adapter.apply(op), adapter.observe()) == []


def test_a_check_the_budget_stopped_names_the_budget_not_where_brokers_stopped(tmp_path, monkeypatch):
    """Stopped after the first batch, b1's last event read is an append its cursor awaits: the trace did
    not end there, so only the budget is the reason."""
    from ledgerspec.traces.cache import _local

    events = [_add("a", 0), {"kind": "append", "ledger": 1, "entry": 0, "size": 10}, {**BEHIND, "count": 1}]
    path = str(_written(tmp_path, "pulsar-master", {"max_size": 10_000}, events))
    whole = list(_local._read_share(open_trace(path), 0, 1, None))
    ((first_row, batch, checked),) = whole
    halves = [(first_row, batch.slice(0, 2), checked), (first_row + 2, batch.slice(2), checked)]
    late = []

    def batches(*_: object) -> Iterator[tuple]:
        yield halves[0]
        late.append(True)  # the budget runs out before the second
        yield halves[1]

    monkeypatch.setattr(_local, "_read_share", batches)
    monkeypatch.setattr(_local.time, "perf_counter", lambda: 10.0 if late else 0.0)
    result = check_local(path, budget=5.0, workers=1)
    assert result.unknown == ["stopped after 2 events: the budget of 5 s ran out"]
