"""The replay the monitor and both trace checkers share: the same verdict however the events are cut.

The monitor feeds the replay one step's events at a time, the local checker a batch per broker, the
Spark checker Arrow batches of any size; the shadow is carried between chunks, so the findings must
not depend on where the cuts fall. And the cheap answers it gives a pass's checks (the queue's head,
the oldest timestamp, the cursor counts computed per ledger as a matrix) must be what rebuilding the
cache, or walking the cursor events one by one, gives.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pyarrow as pa
import pytest
from ledgerspec.traces.cache._check import trace_invariants
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._inject import injectable
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._replay import BrokerReplay, chunk_of
from ledgerspec.traces.cache.bulk import _engine
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._commit import entries_after

CONFIG = {"max_size": 200_000, "ttl": 3_000_000, "ttl_max": 15_000_000, "max_requeue": 2, "segment_size_max": 50_000}


@pytest.fixture(scope="module", params=["pip430", "pulsar-master", "legacy", "segmented"])
def trace(request, tmp_path_factory):
    from ledgerspec.spec.cache import CacheConfig

    profile = request.param
    path = tmp_path_factory.mktemp(profile) / "t.jsonl"
    config = CacheConfig(**CONFIG)
    generate_trace(
        str(path),
        workload="edge",
        brokers=2,
        topics=5,
        events=6000,
        seed=3,
        profile=profile,
        config=config,
        inject=injectable(profile),
    )
    return open_trace(path)


def replay(trace, cuts: list[int] | None) -> dict[str, tuple]:
    """Findings and counts per broker, feeding each broker's events in pieces ending at ``cuts``."""
    table = pa.Table.from_batches([batch for _, batch in trace.batches()])
    outcome = {}
    for broker in sorted(set(table.column("broker").to_pylist())):
        mine = table.filter(np.asarray(table.column("broker").to_pylist()) == broker)
        chunk = chunk_of(mine, np.arange(mine.num_rows, dtype=np.int64))
        engine = BrokerReplay(broker, trace.header.profile, trace.config, trace_invariants(trace.header.profile))
        ends = sorted({c for c in (cuts or []) if 0 < c < len(chunk)} | {len(chunk)})
        start = 0
        for end in ends:
            engine.feed(chunk.part(start, end))
            start = end
        outcome[broker] = (engine.findings, dict(engine.counts), engine.finish())
    return outcome


def test_the_findings_do_not_depend_on_where_the_events_are_cut(trace):
    whole = replay(trace, None)
    assert any(counts for _, counts, _ in whole.values()), "the injected violations are found"
    rng = random.Random(7)
    for cuts in (
        [*range(1, 7000)],
        [rng.randrange(1, 7000) for _ in range(40)],
        [rng.randrange(1, 7000) for _ in range(5)],
    ):
        assert replay(trace, cuts) == whole


def test_the_queue_head_at_each_pass_end_is_the_rebuilt_caches(trace, monkeypatch):
    compared = []
    original = _engine.Replay._pass_end

    def pass_end(self, c, facts, ended, index, head, oldest):
        table = entries_after(c, facts, self.carried, index + 1)
        assert head == (int(table.enter.min()) if len(table) else NULL)
        if oldest != NULL:
            assert oldest == int(table.ts.min())
        compared.append(index)
        return original(self, c, facts, ended, index, head, oldest)

    monkeypatch.setattr(_engine.Replay, "_pass_end", pass_end)
    replay(trace, None)
    assert len(compared) > 10


def test_cursor_counts_and_slowest_cursors_per_ledger_equal_walking_the_events(trace, monkeypatch):
    original = _engine.Replay._cursors
    checked = []

    def both(self, c):
        walked = {ledger: dict(cursors) for ledger, cursors in self.carried.cursors.items()}
        fast = original(self, c)
        slow = tuple(np.full(len(c), NULL, np.int64) for _ in range(2))
        made = (c.kind == _engine.PASS_START) & (c.cursor >= 0)
        appends = (c.kind == _engine.APPEND) | (c.kind == _engine.CURSOR_READ)
        at = np.flatnonzero(((c.kind >= _engine.CURSOR_ADD) & (c.kind <= _engine.CURSOR_COUNT)) | made | appends)
        for ledger in np.unique(c.ledger[at]).tolist():
            _engine._cursor_walk(c, at[c.ledger[at] == ledger], walked.setdefault(ledger, {}), *slow)
        for computed, walked_out in zip(fast, slow, strict=True):
            assert np.array_equal(computed, walked_out)
        assert {k: v for k, v in self.carried.cursors.items() if v} == {k: v for k, v in walked.items() if v}
        checked.append((len(at), int(made.sum()), int((fast[1] != NULL).sum())))
        return fast

    monkeypatch.setattr(_engine.Replay, "_cursors", both)
    replay(trace, [*range(50, 7000, 97)])
    assert sum(n for n, _, _ in checked) > 100
    assert sum(slowest for _, _, slowest in checked) > 100
    if trace.header.profile == "legacy":
        assert sum(made for _, made, _ in checked) > 0, "the legacy edge workload's cursors invalidate"


def test_a_chunk_ending_inside_a_size_pass_that_went_round_changes_nothing(tmp_path):
    """The requeues a round pass made before a chunk's end are lower bounds too, once the pass ends.

    Recorded from the pulsar-master reference with a small cache and tracking off: a size pass requeues
    the one entry left, so it may have gone round; CACHE-BOUNDED-PROTECTION must judge that entry's later
    removal the same whether or not the events are cut between the requeue and the pass's end.
    """
    from ledgerspec.conformance.cache.adapters import load_adapter
    from ledgerspec.spec.cache import CacheConfig
    from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
    from ledgerspec.traces.cache._record import record_trace

    path = tmp_path / "r.jsonl"
    config = DEFAULT_CONFIG.replace(max_size=20_000, track_reads=False)
    assert isinstance(config, CacheConfig)
    record_trace(load_adapter("reference-pulsar-master"), str(path), workload="edge", events=600, seed=3, config=config)
    trace = open_trace(path)
    whole = replay(trace, None)
    kinds = [json.loads(line)["kind"] for line in path.read_text().splitlines()[1:]]
    after_requeues = [row + 1 for row, kind in enumerate(kinds) if kind == "requeue"]
    assert after_requeues
    assert whole == replay(trace, after_requeues)  # the pass's end, and what follows, in the next chunk
    assert whole == replay(trace, [*range(1, len(kinds))])
    assert all(not counts for _, counts, _ in whole.values())


def _keeps_invalidated() -> type:
    """A pulsar-master cache whose invalidations remove nothing."""
    from ledgerspec.reference.cache import PulsarMasterCache

    class KeepsInvalidated(PulsarMasterCache):
        def invalidate_before(self, *, now, ledger, entry):
            self._check_clock(now)
            self._now = now
            self._pass_start("invalidate", ledger=ledger, entry=entry)
            self._pass_end("invalidate")

        def invalidate_ledger(self, *, now, ledger):
            self._check_clock(now)
            self._now = now
            self._pass_start("invalidate", ledger=ledger)
            self._pass_end("invalidate")

    return KeepsInvalidated


@pytest.mark.parametrize("ledger", [7, 2**31 - 2, 2**31 - 1, 2**31, 2**32 + 1])
@pytest.mark.parametrize("entry", [10, 2**32 - 6])
def test_a_ledger_kept_after_its_invalidation_is_seen_at_any_ids(ledger, entry):
    """A pass end reads one ledger's run of keys: at ledger 2^31 - 1 its end was 2^63, past int64, and
    numpy's float comparison dropped the entries near 2^32 from the run (the kept ledger went unseen)."""
    from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
    from ledgerspec.spec.cache import CacheConfig, Insert, InvalidateLedger
    from ledgerspec.spec.cache._monitor import Monitor

    config = CacheConfig(max_size=1000, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1)
    ops = [
        Insert(now=1, ledger=ledger, entry=entry, size=10, expected_reads=0),
        Insert(now=2, ledger=ledger, entry=entry + 1, size=10, expected_reads=0),
        InvalidateLedger(now=3, ledger=ledger),
    ]
    found = []
    for cache in (None, _keeps_invalidated()):
        adapter = ReferenceAdapter("pulsar-master", cache)
        adapter.start(config)
        monitor = Monitor("pulsar-master", config)
        found.append({v.invariant for op in ops for v in monitor.check(op, adapter.apply(op), adapter.observe())})
    reference, keeps = found
    assert reference == set()
    assert "CACHE-NO-STALE-READ" in keeps
