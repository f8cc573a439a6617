"""The queue-order and eviction group's normative rules (``Check`` beside each numpy ``Check``).

Each rule must judge as its check: on the injected violation of every profile that claims it, the
plain Judge reports the same events with the same words as the bulk replay (a counterexample reads
the same in both). The conformance-only ones are the rule itself in the check's slot. The full
agreement over the differential corpus is ``tests/quality/differential.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from ledgerspec.spec.cache._normative import Judge
from ledgerspec.spec.cache._shadow import Cached, Event, Pass, Shadow
from ledgerspec.spec.cache.invariants import CATALOGUE
from ledgerspec.spec.cache.invariants._rules_queue import at_or_before, before, order_violations
from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
from ledgerspec.traces.cache._inject import inject, injectable
from ledgerspec.traces.cache.bulk import Replay
from ledgerspec.traces.cache.bulk._chunk import chunk_from_events

_SPEC = importlib.util.spec_from_file_location(
    "_ledgerspec_differential", Path(__file__).parents[1] / "quality" / "differential.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
differential = sys.modules.get(_SPEC.name) or importlib.util.module_from_spec(_SPEC)
if not hasattr(differential, "compare"):
    sys.modules[_SPEC.name] = differential
    _SPEC.loader.exec_module(differential)

ON_TRACES = (
    "CACHE-FIFO",
    "CACHE-OLDEST-FIRST",
    "CACHE-TTL",
    "CACHE-TTL-WALK",
    "CACHE-PROTECT-UNTIL-EXPIRED",
    "CACHE-BOUNDED-PROTECTION",
    "CACHE-LEGACY-SIZE-POLICY",
    "CACHE-SEGMENT-RING",
    "CACHE-SEGMENT-PLACEMENT",
    "CACHE-SPACE-CHECK",
)
STEP_ONLY = ("CACHE-QUEUE-ACCOUNTING", "CACHE-STATISTICS", "CACHE-NON-EVICTABLE-SIZE")
BY_ID = {invariant.id: invariant for invariant in CATALOGUE}
CASES = [
    (invariant, profile)
    for invariant in ON_TRACES
    for profile in BY_ID[invariant].profiles
    if invariant in injectable(profile)
]


@pytest.mark.parametrize(("invariant", "profile"), CASES, ids=[f"{i}-{p}" for i, p in CASES])
def test_the_rule_reports_the_injected_violation_as_the_check_does(invariant: str, profile: str) -> None:
    events, seq = inject(invariant, profile, DEFAULT_CONFIG)
    rows = [dict(zip(events, values, strict=True)) for values in zip(*events.values(), strict=True)]
    chunk = chunk_from_events(rows)
    declared = BY_ID[invariant]
    assert declared.check is not None
    replay = Replay("b", profile, DEFAULT_CONFIG, [declared], keep=None)
    replay.feed(chunk)
    judge = Judge("b", profile, DEFAULT_CONFIG, [(invariant, declared.check)], keep=None)
    judge.feed(Event.of(row, seq=i + 1, row=i) for i, row in enumerate(rows))
    plain = sorted((f.seq, f.message) for f in judge.findings)
    assert plain == sorted((f.seq, f.message) for f in replay.findings)
    assert plain[0][0] == seq


def _insert(time: int, ledger: int, entry: int, size: int = 10, **fields: Any) -> dict[str, Any]:
    return {"kind": "insert", "time": time, "ledger": ledger, "entry": entry, "size": size, "timestamp": time} | fields


def _pass(reason: str, time: int, *removed: tuple[int, int, int], **fields: Any) -> list[dict[str, Any]]:
    """A pass of ``reason`` at ``time`` removing (ledger, entry, size) in order."""
    start = {"kind": "pass_start", "time": time, "reason": reason} | fields
    removals = [
        {"kind": "remove", "time": time, "reason": reason, "ledger": lg, "entry": en, "size": size}
        for lg, en, size in removed
    ]
    return [start, *removals, {"kind": "pass_end", "time": time, "reason": reason}]


_SMALL = {"kind": "config", "time": 0, "reason": "max_size", "value": 100}
"""maxSize 100: trigger 98, watermark 90."""

# (invariant, profile, events, the seq of the first violation): parts the injections do not break
HAND_MADE: list[tuple[str, str, list[dict[str, Any]], int]] = [
    (
        "CACHE-FIFO",  # a requeue of a position not cached
        "pulsar-master",
        [
            {"kind": "pass_start", "time": 5, "reason": "ttl"},
            {"kind": "requeue", "time": 5, "ledger": 1, "entry": 0, "timestamp": 5},
            {"kind": "pass_end", "time": 5, "reason": "ttl"},
        ],
        2,
    ),
    (
        "CACHE-FIFO",  # a requeue stamped with another time than the pass's
        "pulsar-master",
        [
            _insert(1, 1, 0),
            {"kind": "pass_start", "time": 5, "reason": "size"},
            {"kind": "requeue", "time": 5, "ledger": 1, "entry": 0, "timestamp": 4},
            {"kind": "pass_end", "time": 5, "reason": "size"},
        ],
        3,
    ),
    (
        "CACHE-OLDEST-FIRST",  # the newer entry goes, the older unprotected one stays
        "pip430",
        [_insert(1, 1, 0), _insert(2, 1, 1), *_pass("size", 3, (1, 1, 10))],
        5,
    ),
    (
        "CACHE-TTL",  # a cutoff pass removes an entry stamped at the cutoff (judged at its end)
        "pulsar-master",
        [_insert(1, 1, 0), _insert(3, 1, 1), *_pass("cutoff", 4, (1, 1, 10), value=3)],
        5,
    ),
    (
        "CACHE-TTL-WALK",  # the walk removes entry 1 and keeps entry 0 below it
        "legacy",
        [_insert(1, 1, 0), _insert(1, 1, 1), *_pass("cutoff", 5, (1, 1, 10), value=2)],
        5,
    ),
    (
        "CACHE-PROTECT-UNTIL-EXPIRED",  # a size pass removes an entry expected to be read, just inserted
        "pip430",
        [_insert(1, 1, 0, count=1, value=1), *_pass("size", 2, (1, 0, 10))],
        3,
    ),
    (
        "CACHE-BOUNDED-PROTECTION",  # a requeue of an entry never read and with no expected reads
        "pulsar-master",
        [
            _insert(1, 1, 0, count=0),
            {"kind": "pass_start", "time": 5, "reason": "size"},
            {"kind": "requeue", "time": 5, "ledger": 1, "entry": 0, "timestamp": 5},
            {"kind": "pass_end", "time": 5, "reason": "size"},
        ],
        3,
    ),
    (
        "CACHE-LEGACY-SIZE-POLICY",  # scheduled, but ledger 1 loses entry 1 and keeps entry 0 below it
        "legacy",
        [_SMALL, _insert(1, 1, 0, 50), _insert(2, 1, 1, 50), _insert(3, 2, 0), *_pass("size", 4, (1, 1, 50))],
        7,
    ),
    (
        "CACHE-SEGMENT-RING",  # a size pass that is no rotation removes an entry
        "segmented",
        [_insert(1, 1, 0), *_pass("size", 2, (1, 0, 10))],
        4,
    ),
    (
        "CACHE-SEGMENT-PLACEMENT",  # a read answers another size than the newest copy's
        "segmented",
        [_insert(1, 1, 0), {"kind": "hit", "time": 2, "ledger": 1, "entry": 0, "copy": 0, "size": 20}],
        2,
    ),
    (
        "CACHE-SPACE-CHECK",  # refused while the cache is empty
        "legacy",
        [{"kind": "insert_refused", "time": 1, "ledger": 1, "entry": 0, "size": 10}],
        1,
    ),
]


@pytest.mark.parametrize(
    ("invariant", "profile", "events", "seq"), HAND_MADE, ids=[f"{c[0]}-{i}" for i, c in enumerate(HAND_MADE)]
)
def test_the_rule_finds_a_hand_made_violation_where_the_check_does(
    invariant: str, profile: str, events: list[dict[str, Any]], seq: int
) -> None:
    chunks = [chunk_from_events(events)]
    found = differential.plain(profile, DEFAULT_CONFIG, chunks, [invariant])
    assert found.first[invariant] == seq
    assert differential.compare(invariant, profile, DEFAULT_CONFIG, chunks, [invariant]) == []


@pytest.mark.parametrize("invariant", STEP_ONLY)
def test_a_conformance_only_check_runs_its_rule(invariant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    declared = BY_ID[invariant]
    assert declared.check is not None
    assert declared.check is not None
    seen: list[object] = []
    monkeypatch.setattr(declared.check, "step", seen.append)
    view = object()
    declared.check.step(view)  # type: ignore[arg-type]
    assert seen == [view]


def test_an_unknown_timestamp_or_limit_counts_as_the_earliest() -> None:
    assert at_or_before(None, 5)
    assert at_or_before(None, None)
    assert not at_or_before(6, None)
    assert at_or_before(5, 5)
    assert before(None, 5)
    assert not before(None, None)
    assert not before(4, None)
    assert not before(5, 5)


def _shadow_with(profile: str, *entries: Cached) -> Shadow:
    shadow = Shadow(profile, DEFAULT_CONFIG)
    shadow.entries = {entry.position: entry for entry in entries}
    return shadow


def test_order_violations_name_what_was_skipped_and_spare_what_the_profile_allows() -> None:
    gone = Cached(1, 2, 10, 100, enter=5, handler=-1)
    older = Cached(1, 0, 10, 90, enter=1, handler=-1)
    done = Pass("ttl", now=200, rank=9, before=30, ledger=None, entry=None, value=None, removed=[(gone, None)])
    skipped = (
        "timestamp pass removed (1, 2) but kept (1, 0), which entered the queue earlier (count None, "
        "timestamp 90) and may not be skipped"
    )
    assert order_violations(done, _shadow_with("pulsar-master", older), "pulsar-master", 50, "timestamp pass") == [
        skipped
    ]
    stamped = Cached(1, 0, 10, 200, enter=1, handler=-1)  # requeued by the pass: stamped with its time
    assert order_violations(done, _shadow_with("pulsar-master", stamped), "pulsar-master", 50, "timestamp pass") == []
    newer = Cached(1, 3, 10, 150, enter=7, handler=-1)
    assert order_violations(done, _shadow_with("pip430", newer), "pip430", 50, "timestamp pass") == []
