"""``traces record`` then ``traces check`` on a correct reference gives OK (issue 15's opening example).

The recorder sees a size pass's requeues but not their order: a pass may go round the queue and
requeue an entry twice. It used to order them by when they entered the queue before, and the
checker then reported CACHE-OLDEST-FIRST on the correct reference-pulsar-master with a 512 KiB cache.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.conformance.cli import main
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._record import record_trace


def test_recording_a_correct_reference_then_checking_it_is_ok(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    config = '{"max_size":524288}'
    assert (
        main(["traces", "record", "--adapter", "reference-pulsar-master", "--config", config, "--out", str(trace)]) == 0
    )
    assert main(["traces", "check", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "OK: " in out
    assert "violation" not in out
    assert '"kind":"requeue"' in trace.read_text().replace(" ", "")  # the passes did requeue entries


def test_a_ttl_near_the_int64_range_gives_a_trace_the_checker_reads(tmp_path, capsys):
    """The edge workload jumps to entries' TTLs; with a TTL of 10^18 its jumps used to run the clock past
    int64, and the checker refused the trace the recorder wrote (and ``generate --expected`` said OK)."""
    trace = tmp_path / "t.jsonl"
    config = '{"ttl":1000000000000000000}'
    args = ["--workload", "edge", "--events", "3000", "--seed", "155", "--config", config, "--out", str(trace)]
    assert main(["traces", "record", "--adapter", "reference-pip430", *args]) == 0
    assert main(["traces", "check", "--engine", "local", str(trace)]) == 0
    assert "OK: " in capsys.readouterr().out
    times = [json.loads(line).get("time", 0) for line in trace.read_text().splitlines()[1:]]
    assert max(times) > 10**18  # the jumps were made, as far as the range allows


class _Strict:
    """A reference behind a narrower claim, erring like a strict adapter on what it does not claim."""

    def __init__(self, inner, claims: frozenset[str]) -> None:
        self.inner = inner
        self.info = dataclasses.replace(inner.info, capabilities=claims)

    def apply(self, op):
        assert self.info.supports(op), f"sent {type(op).__name__}, which needs a capability not claimed"
        return self.inner.apply(op)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize(
    "claims",
    [
        frozenset({"observe_timestamps", "observe_counts", "observe_copies"}),
        frozenset({"observe_timestamps", "observe_counts", "observe_copies", "configure", "managed_ledger"}),
    ],
)
@pytest.mark.parametrize("workload", ["mixed", "edge", "key-shared"])
def test_recording_sends_only_what_the_adapter_claims_and_says_what_it_left_out(tmp_path, workload, claims):
    """The protocol's promise (conformance/protocol/README.md): nothing of a capability not claimed is sent,
    nor a cursor read through a cursor that was not (the managed-ledger layer without cursors)."""
    reference = load_adapter("reference-pulsar-master")
    trace = tmp_path / "t.jsonl"
    recorded = record_trace(lambda: _Strict(reference(), claims), str(trace), workload=workload, events=3000, seed=1)
    assert recorded.events >= 3000
    assert recorded.left_out.get("cursor_seek", 0) > 0  # the workload has cursors; none was sent
    kinds = {json.loads(line)["kind"] for line in trace.read_text().splitlines()[1:]}
    assert not kinds & {"cursor_add", "cursor_seek", "cursor_remove", "cursor_read", "cursor_count"}
    assert check_local(str(trace)).verdict == "OK"
    full = record_trace(reference, str(tmp_path / "full.jsonl"), workload=workload, events=3000, seed=1)
    assert full.left_out == {}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[1,2]", "--config: want a JSON object, got [1, 2]"),
        ("5", "--config: want a JSON object, got 5"),
        ("null", "--config: want a JSON object, got null"),
        ("notjson", "--config: invalid JSON"),
        ('{"bogus": 1}', "--config: unknown field(s) bogus"),
    ],
)
@pytest.mark.parametrize("command", ["generate", "record"])
def test_a_config_that_is_not_an_object_of_known_fields_is_an_option_error(tmp_path, capsys, command, config, message):
    out = tmp_path / "t.jsonl"
    source = ["--adapter", "reference-pip430"] if command == "record" else []
    assert main(["traces", command, *source, "--events", "10", "--config", config, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"error[config-error]: {message}" in err
    assert "internal-error" not in err
    assert "trace file" not in err  # an option, not a trace, is wrong
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("t.csv", "unknown trace format; name it .parquet or .jsonl"),
        ("t", "unknown trace format; name it .parquet or .jsonl"),
        ("jsonl:t.jsonl", "a leading format prefix is stripped on reading"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ["generate"],
        ["record", "--adapter", "reference-pip430"],
        ["record", "--system", "txlog-writer", "--adapter", "reference-pip160"],
    ],
)
def test_an_output_traces_check_could_not_read_back_is_refused_before_any_work(
    tmp_path, capsys, monkeypatch, command, name, message
):
    """Written as JSON lines whatever its name, such a file was then refused by ``traces check``."""
    monkeypatch.chdir(tmp_path)
    assert main(["traces", *command, "--events", "10", "--out", name]) == 2
    assert f"error[input-error]: --out {name}: {message}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _recorded(tmp_path, ops, config):
    """The trace of ``ops`` run by the reference-pulsar-master, recorded as ``traces record`` does."""
    from ledgerspec.traces.cache._format import Header
    from ledgerspec.traces.cache._generate import Recorder
    from ledgerspec.traces.cache._io import TraceWriter
    from ledgerspec.traces.cache._record import RecordingAdapter

    events = Recorder("b1")
    recording = RecordingAdapter(load_adapter("reference-pulsar-master")(), events)
    recording.start(config)
    for op in ops:
        recording.apply(op)
    path = tmp_path / "t.jsonl"
    with TraceWriter(path, Header(profile="pulsar-master", config=config.to_dict())) as writer:
        writer.write_columns(events.take())
    return path


def test_a_requeue_in_the_tick_an_entry_was_cached_is_refused_not_lost(tmp_path):
    """A size pass in the insert's own tick requeues the entry with the timestamp it had: seen from
    outside, nothing changed, and its later TTL removal looked like one never requeued (a false
    CACHE-BOUNDED-PROTECTION violation on the correct reference). The derivation needs a clock that moves."""
    from ledgerspec.spec import SpecError
    from ledgerspec.spec.cache import CacheConfig, EvictSize, EvictTimestamp, Insert

    config = CacheConfig(max_size=100, watermark=1.0, trigger=1.0, ttl=1, ttl_max=10**9, max_requeue=5)

    def ops(second: int, evict: int) -> list:
        return [
            Insert(now=50, ledger=1, entry=0, size=1000, expected_reads=1),
            Insert(now=second, ledger=1, entry=1, size=100, expected_reads=1),
            EvictSize(now=evict),
            EvictTimestamp(now=60),
        ]

    with pytest.raises(SpecError, match=r"strictly increasing clock: Insert\(now=50, ledger=1, entry=1.* after now=50"):
        _recorded(tmp_path, ops(50, 50), config)
    trace = _recorded(tmp_path, ops(51, 52), config)
    assert "requeue" in [json.loads(line)["kind"] for line in trace.read_text().splitlines()[1:]]
    assert check_local(str(trace)).verdict == "OK"


def test_a_requeue_shows_by_the_requeue_count_where_the_candidate_shows_it():
    """A candidate that requeues an entry without restamping it: its ``requeues`` still shows the requeue,
    which the checks then judge (the requeue's timestamp must be the pass's time)."""
    from ledgerspec.spec.cache import EvictSize
    from ledgerspec.spec.cache._derive import Derivation
    from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation

    def seen(requeues: int) -> Observation:
        entry = CachedEntry(ledger=1, entry=0, size=10, count=1, timestamp=5, requeues=requeues)
        return Observation(entries=(entry,), size=10, counters=Counters(), copies=())

    kinds = [event["kind"] for event in Derivation().step(EvictSize(now=9), None, seen(0), seen(1))]
    assert kinds == ["pass_start", "requeue", "pass_end"]
    assert [event["kind"] for event in Derivation().step(EvictSize(now=9), None, seen(1), seen(1))] == [
        "pass_start",
        "pass_end",
    ]
