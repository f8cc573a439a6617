"""The queue-order and eviction group's normative rules (``Check`` beside each numpy ``Check``).

Each rule must judge as its check: on the injected violation of every profile that claims it, the
plain Judge reports the same events with the same words as the bulk replay (a counterexample reads
the same in both). The conformance-only ones are the rule itself in the check's slot. The full
agreement over the differential corpus is ``tests/quality/differential.py``.
"""

from __future__ import annotations

import pytest
from ledgerspec.spec.cache._normative import Judge
from ledgerspec.spec.cache._shadow import Cached, Event, Pass, Shadow
from ledgerspec.spec.cache.invariants import CATALOGUE
from ledgerspec.spec.cache.invariants._rules_queue import at_or_before, before, order_violations
from ledgerspec.traces._generate import DEFAULT_CONFIG
from ledgerspec.traces._inject import inject, injectable
from ledgerspec.traces.cache import Replay
from ledgerspec.traces.cache._chunk import chunk_from_events

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
