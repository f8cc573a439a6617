"""The normative rules of counts, reads and the managed ledger judge small hand-made brokers as the bulk replay does.

Each case is a few events breaking one invariant in a way the sample traces and the injected violations
do not (a replay increment through a copy never opened, a merge into an EVICTED handler, a size drift
that began two inserts before the report, ...). The plain rule must find the violation at the event
named, and the bulk replay must agree with it (tests/quality/differential.py's ``compare``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from ledgerspec.spec.cache import EVICTED
from ledgerspec.spec.cache.invariants import CATALOGUE
from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
from ledgerspec.traces.cache.bulk._chunk import chunk_from_events

_SPEC = importlib.util.spec_from_file_location(
    "_ledgerspec_differential", Path(__file__).parents[1] / "quality" / "differential.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
differential = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = differential
_SPEC.loader.exec_module(differential)

GROUP = (
    "CACHE-READ-COUNT",
    "CACHE-EVICTED-FINAL",
    "CACHE-DUPLICATE-MERGE",
    "CACHE-DUPLICATE-REFUSED",
    "CACHE-INSERT-ACCEPTED",
    "CACHE-NO-STALE-READ",
    "CACHE-SIZE-ACCOUNTING",
    "CACHE-CURSOR-COUNT",
    "CACHE-APPEND-CACHING",
    "CACHE-LEDGER-CLOSE",
    "CACHE-BELOW-SLOWEST",
    "CACHE-BACKLOG-CACHING",
)


def _insert(time: int, ledger: int, entry: int, size: int = 10, **fields: Any) -> dict[str, Any]:
    return {"kind": "insert", "time": time, "ledger": ledger, "entry": entry, "size": size, "timestamp": time} | fields


def _tracking_off(time: int) -> dict[str, Any]:
    return {"kind": "config", "time": time, "reason": "track_reads", "value": 0}


def _cursor(kind: str, time: int, ledger: int, cursor: str, entry: int | None = None) -> dict[str, Any]:
    return {"kind": kind, "time": time, "ledger": ledger, "cursor": cursor, "entry": entry}


# (invariant, profile, events, the seq of the first violation)
CASES: list[tuple[str, str, list[dict[str, Any]], int]] = [
    ("CACHE-READ-COUNT", "pip430", [{"kind": "replay_increment", "time": 1, "copy": 7, "result": 1}], 1),
    (
        "CACHE-EVICTED-FINAL",  # a copy of an entry without a handler: nothing to increment, false
        "pip430",
        [
            _insert(1, 1, 0),
            {"kind": "hit", "time": 2, "ledger": 1, "entry": 0, "copy": 0},
            {"kind": "replay_increment", "time": 3, "copy": 0, "result": 1},
        ],
        3,
    ),
    (
        "CACHE-EVICTED-FINAL",
        "pip430",
        [_insert(1, 1, 0, count=1, value=1), {"kind": "mark_evicted", "time": 2, "ledger": 1, "entry": 0}],
        2,
    ),
    (
        "CACHE-DUPLICATE-MERGE",  # an EVICTED handler refuses the merge
        "pip430",
        [
            _insert(1, 1, 0, count=1, value=1),
            {"kind": "pass_start", "time": 2, "reason": "invalidate", "ledger": 1, "size": 10},
            {"kind": "mark_evicted", "time": 2, "ledger": 1, "entry": 0, "count": EVICTED},
            {"kind": "pass_end", "time": 2, "reason": "invalidate", "size": 10},
            {"kind": "merge", "time": 3, "ledger": 1, "entry": 0, "count": EVICTED + 2, "value": 2},
        ],
        5,
    ),
    (
        "CACHE-DUPLICATE-REFUSED",
        "pulsar-master",
        [
            _insert(1, 1, 0, count=1, value=1),
            {"kind": "merge", "time": 2, "ledger": 1, "entry": 0, "count": 2, "value": 1},
        ],
        2,
    ),
    ("CACHE-INSERT-ACCEPTED", "pulsar-master", [_insert(1, 1, 0, count=0, value=0)], 1),
    (
        "CACHE-INSERT-ACCEPTED",  # a ring's rotation inside an insert removes nothing
        "pulsar-master",
        [
            _insert(1, 1, 0),
            {"kind": "pass_start", "time": 2, "reason": "size", "ledger": 1, "entry": 1, "size": 10},
            {"kind": "remove", "time": 2, "reason": "size", "ledger": 1, "entry": 0, "size": 10},
            {"kind": "pass_end", "time": 2, "reason": "size", "size": 0},
        ],
        4,
    ),
    (
        "CACHE-NO-STALE-READ",
        "pulsar-master",
        [
            _insert(1, 2, 0),
            {"kind": "pass_start", "time": 2, "reason": "invalidate", "ledger": 1, "entry": 5, "size": 10},
            {"kind": "remove", "time": 2, "reason": "invalidate", "ledger": 2, "entry": 0, "size": 10},
            {"kind": "pass_end", "time": 2, "reason": "invalidate", "size": 0},
        ],
        3,
    ),
    (
        "CACHE-SIZE-ACCOUNTING",  # the drift began at the first insert after the size last agreed
        "legacy",
        [
            _insert(1, 1, 0),
            {"kind": "size_sample", "time": 2, "size": 10},
            _insert(3, 1, 1, size=5),
            _insert(4, 1, 2, size=7),
            {"kind": "size_sample", "time": 5, "size": 20},
        ],
        3,
    ),
    (
        "CACHE-CURSOR-COUNT",  # with tracking off, isCacheReadEntry() is false: 0
        "pulsar-master",
        [
            _tracking_off(1),
            _cursor("cursor_add", 2, 1, "a", 0),
            _cursor("cursor_count", 3, 1, "a") | {"result": 1},
        ],
        3,
    ),
    (
        "CACHE-APPEND-CACHING",  # tracking off: no read-count handler
        "pulsar-master",
        [
            _tracking_off(1),
            _cursor("cursor_add", 2, 1, "a", 0),
            {"kind": "append", "time": 3, "ledger": 1, "entry": 0, "size": 10},
            _insert(3, 1, 0, count=1, value=1),
        ],
        4,
    ),
    (
        "CACHE-LEDGER-CLOSE",
        "pulsar-master",
        [_insert(1, 1, 0), {"kind": "ledger_close", "time": 2, "ledger": 1}, _insert(3, 2, 0)],
        2,
    ),
    (
        "CACHE-BELOW-SLOWEST",  # b moves ahead, the slowest (a at 0) stays: its invalidation removes nothing
        "legacy",
        [
            _cursor("cursor_add", 1, 1, "a", 0),
            _cursor("cursor_add", 1, 1, "b", 5),
            _insert(2, 1, 0),
            _cursor("cursor_seek", 3, 1, "b", 6),
            {"kind": "pass_start", "time": 3, "reason": "invalidate", "ledger": 1, "entry": 0, "cursor": "b"},
            {"kind": "remove", "time": 3, "reason": "invalidate", "ledger": 1, "entry": 0, "size": 10},
            {"kind": "pass_end", "time": 3, "reason": "invalidate", "size": 0},
        ],
        7,
    ),
    (
        "CACHE-BACKLOG-CACHING",  # read from storage by a cursor counting 1, never cached
        "pip430",
        [
            _cursor("cursor_add", 1, 1, "a", 0),
            _cursor("cursor_read", 2, 1, "a", 0),
            {"kind": "miss", "time": 2, "ledger": 1, "entry": 0},
            _cursor("cursor_seek", 2, 1, "a", 1),
        ],
        4,
    ),
]


def test_every_invariant_of_the_group_has_its_rule() -> None:
    ruled = {invariant.id for invariant in CATALOGUE if invariant.check is not None}
    assert sorted(set(GROUP) - ruled) == []


@pytest.mark.parametrize(
    ("invariant", "profile", "events", "seq"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_the_rule_finds_it_where_the_bulk_replay_does(
    invariant: str, profile: str, events: list[dict[str, Any]], seq: int
) -> None:
    chunks = [chunk_from_events(events)]
    found = differential.plain(profile, DEFAULT_CONFIG, chunks, [invariant])
    assert found.first[invariant] == seq
    assert differential.compare(invariant, profile, DEFAULT_CONFIG, chunks, [invariant]) == []
