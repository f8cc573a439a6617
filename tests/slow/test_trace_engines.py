"""The Spark checker gives exactly the local checker's result: verdict, counts, and every violation
with its row, message, event and context, in the same order; and UNKNOWN, never OK, when it cannot
finish. One Spark session serves the whole module."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.traces.cache import _spark
from ledgerspec.traces.cache._format import Header
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._inject import injectable
from ledgerspec.traces.cache._io import TraceWriter, open_trace
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._spark import check_spark, spark_session

SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"
SAMPLE_TRACES = sorted(p for p in SAMPLES.iterdir() if p.suffix in {".jsonl", ".parquet"})


@pytest.fixture(scope="module")
def spark():
    # Not stopped here: test_trace_bad_input.py, run next, gets the same session back, warm (a new one
    # costs a JVM start and warm-up). The JVM ends with the interpreter.
    return spark_session("local[2]")


def comparable(result) -> dict:
    """The report without what legitimately differs between engines."""
    report = result.to_dict()
    del report["engine"], report["seconds"]
    return report


@pytest.mark.parametrize(
    "case",
    [
        # Small partitions spread the 3 brokers over several Spark partitions: one each when packed
        # by their counts (2,000), two sharing one (10,000); the default puts a trace this small in
        # one partition. "hash" is the placement without counts: by the hash of the broker name.
        ("pip430", "mixed", 2_000, "packed"),
        ("pulsar-master", "key-shared", None, "packed"),
        ("legacy", "catchup", 2_000, "hash"),
        ("segmented", "fanout", 10_000, "packed"),
    ],
    ids=lambda case: "-".join(map(str, case)),
)
def test_spark_equals_local_on_every_injected_violation(spark, tmp_path, monkeypatch, case):
    profile, workload, rows_per_partition, placement = case
    if rows_per_partition:
        monkeypatch.setattr(_spark, "ROWS_PER_PARTITION", rows_per_partition)
    if placement == "hash":
        monkeypatch.setattr(_spark, "broker_counts", lambda trace: None)
    injected = injectable(profile)
    generated = generate_trace(
        str(tmp_path / f"{profile}.parquet"),
        workload=workload,
        brokers=3,
        topics=12,
        events=20_000,
        seed=11,
        profile=profile,
        inject=injected,
    )
    local = check_local(generated.path)
    remote = check_spark(generated.path, spark=spark)
    assert remote.engine == "spark"
    assert comparable(remote) == comparable(local)
    assert remote.verdict == "VIOLATION"
    found = {(v.invariant, v.broker, v.seq) for v in remote.violations}
    assert found == {(v["invariant"], v["broker"], v["seq"]) for v in generated.expected()["violations"]}
    assert {v.invariant for v in remote.violations} == set(injected)
    assert all(v.event for v in remote.violations)
    assert any(v.context for v in remote.violations)


@pytest.mark.parametrize(("rows_per_partition", "placed"), [(2_000, [1, 1, 1]), (5_000, [1, 2])])  # brokers in each
def test_packed_brokers_get_a_partition_each_heaviest_first(spark, tmp_path, monkeypatch, rows_per_partition, placed):
    from pyspark.sql import functions as F  # noqa: N812

    monkeypatch.setattr(_spark, "ROWS_PER_PARTITION", rows_per_partition)
    path = generate_trace(str(tmp_path / "t.parquet"), brokers=3, topics=6, events=6_000, seed=3).path
    trace = open_trace(path)
    events, rows = _spark.trace_frame(spark, trace)
    counts = _spark.broker_counts(trace)
    assert sum(counts.values()) == rows
    staged, partitions = _spark.replay_frame(events, spark, rows, counts)
    assert partitions == len(placed)
    by_partition = (
        staged.groupBy(F.spark_partition_id().alias("p"))
        .agg(F.collect_set("broker").alias("brokers"), F.count("*").alias("n"))
        .orderBy("p")
        .collect()
    )
    assert sorted(len(row.brokers) for row in by_partition) == placed
    assert [row.p for row in by_partition] == list(range(len(placed)))
    loads = [row.n for row in by_partition]
    assert loads == sorted(loads, reverse=True)


@pytest.mark.parametrize("profile", ["pip430", "pulsar-master", "legacy", "segmented"])
def test_clean_traces_are_ok_in_both_engines(spark, tmp_path, profile):
    path = generate_trace(
        str(tmp_path / f"{profile}.parquet"),
        workload="mixed",
        brokers=3,
        topics=9,
        events=10_000,
        seed=5,
        profile=profile,
    ).path
    local, remote = check_local(path), check_spark(path, spark=spark)
    assert comparable(remote) == comparable(local)
    assert remote.verdict == "OK"
    assert remote.events == local.events > 0


@pytest.mark.parametrize("path", SAMPLE_TRACES, ids=[p.name for p in SAMPLE_TRACES])
def test_spark_equals_local_on_the_shipped_samples(spark, path):
    # JSON lines (every profile) and Parquet, ok and bad.
    assert comparable(check_spark(path, spark=spark)) == comparable(check_local(path))


def test_a_trace_ending_inside_a_pass_is_unknown_in_both(spark, tmp_path):
    # broker-0 stops right after it starts its last pass; the other broker is complete.
    path = generate_trace(
        str(tmp_path / "full.parquet"), brokers=2, topics=4, events=6_000, seed=3, profile="pip430"
    ).path
    table = pq.read_table(path)
    brokers, kinds = table["broker"].to_pylist(), table["kind"].to_pylist()
    cut = max(i for i, (b, k) in enumerate(zip(brokers, kinds, strict=True)) if b == "broker-0" and k == "pass_start")
    truncated = tmp_path / "ends-in-a-pass.parquet"
    pq.write_table(table.filter([b != "broker-0" or i <= cut for i, b in enumerate(brokers)]), truncated)
    local, remote = check_local(truncated), check_spark(truncated, spark=spark)
    assert comparable(remote) == comparable(local)
    assert remote.verdict == "UNKNOWN"
    assert remote.unknown == [f"broker 'broker-0': the trace ends inside a {table['reason'][cut]} pass"]


def test_an_exhausted_budget_is_unknown_never_ok(spark, tmp_path):
    path = generate_trace(str(tmp_path / "clean.parquet"), brokers=2, topics=4, events=4_000, seed=2).path
    result = check_spark(path, spark=spark, budget=0.0)
    assert result.verdict == "UNKNOWN"
    assert "budget of 0 s ran out" in result.unknown[0]
    assert json.loads(json.dumps(result.to_dict()))["verdict"] == "UNKNOWN"


def test_the_budget_cancels_a_running_job(spark, tmp_path):
    # A job far longer than the budget: the timer cancels it by its tag within about a second.
    path = generate_trace(str(tmp_path / "any.jsonl"), brokers=1, topics=1, events=50, seed=2).path
    trace = open_trace(path)
    endless = spark.range(0, 1 << 62, numPartitions=2).selectExpr("sum(id % 7)")
    started = time.perf_counter()
    with _spark._Budget(spark, 1.0, started) as clock, pytest.raises(_spark._OutOfTimeError):
        clock.run(endless.collect, trace)
    assert time.perf_counter() - started < 30
    # The session is still usable afterwards, and the tag is gone.
    assert spark.range(3).count() == 3


def test_traces_bench_measures_both_engines_and_they_agree(spark, capsys, tmp_path):
    report = tmp_path / "bench.json"
    status = main(["traces", "bench", "--events", "30000", "--brokers", "3", "--json", str(report)])
    figures = json.loads(report.read_text())
    assert status == 0, capsys.readouterr().out
    assert figures["agree"] is True
    assert figures["local"]["verdict"] == figures["spark"]["verdict"] == "OK"
    assert figures["events"] >= 30000
    assert figures["local"]["events_per_second"] > 0
    assert figures["spark"]["events_per_second"] > 0
    assert figures["scan_sort"]["seconds"] > 0
    assert len(figures["read"]["seconds"]) == len(figures["floor"]["seconds"]) == 2  # each checker between two floors
    assert figures["local_over_read"] > 0
    assert figures["spark_over_floor"] > 0
    out = capsys.readouterr().out
    assert "local / bare pyarrow read" in out
    assert "spark / its floor" in out


def test_a_trace_ending_on_an_event_only_a_later_one_judges_is_unknown_in_both(spark, tmp_path):
    # b1 ends on an append its cursor awaits, b2 on a close that left entries cached, b3 on a close
    # that left none: two reasons, one per broker, in broker order.
    header = {"format": "ledgerspec-trace", "version": 1, "profile": "pulsar-master", "config": {"max_size": 10_000}}
    cursor = {"kind": "cursor_add", "ledger": 1, "cursor": "a", "entry": 0}
    insert = {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 2, "count": 1}
    ends = {
        "b1": [cursor, {"kind": "append", "ledger": 1, "entry": 0, "size": 10}],
        "b2": [cursor, insert, {"kind": "ledger_close", "ledger": 1}],
        "b3": [cursor, {"kind": "ledger_close", "ledger": 1}],
    }
    rows = [
        {"broker": broker, "seq": seq, "time": seq, **event}
        for broker, events in ends.items()
        for seq, event in enumerate(events, start=1)
    ]
    path = tmp_path / "ends.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in [header, *rows]) + "\n")
    local, remote = check_local(path), check_spark(path, spark=spark)
    assert comparable(remote) == comparable(local)
    assert remote.verdict == "UNKNOWN"
    assert [reason.split(":")[:2] for reason in remote.unknown] == [
        ["broker 'b1'", " CACHE-APPEND-CACHING"],
        ["broker 'b2'", " CACHE-LEDGER-CLOSE"],
    ]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_both_engines_name_the_same_first_divergence_and_line(spark, tmp_path, suffix):
    # Broker b's size agrees at seq 1; the insert at seq 2 is miscounted; the reports at seq 4 and 5
    # show it, with 2000 rows of another broker between (the rows are the file's, not the broker's).
    b = [
        {"kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 1},
        {"kind": "size_sample", "size": 10},
        {"kind": "insert", "ledger": 1, "entry": 1, "size": 20, "timestamp": 3},
        {"kind": "miss", "ledger": 1, "entry": 5},
        {"kind": "size_sample", "size": 40},
        {"kind": "size_sample", "size": 40},
    ]
    times = [1, 2, 3, 4, 4, 4]  # an insert's timestamp is its time
    rows = [{"broker": "b", "seq": seq, "time": times[seq], **event} for seq, event in enumerate(b)]
    filler = [{"broker": "a", "seq": seq, "time": 1, "kind": "size_sample", "size": 0} for seq in range(2000)]
    events = [*rows[:3], *filler, *rows[3:]]
    path = tmp_path / f"drift{suffix}"
    with TraceWriter(path, Header(profile="pulsar-master", config={})) as writer:
        writer.write(events)
    local, remote = check_local(path), check_spark(path, spark=spark)
    assert comparable(remote) == comparable(local)
    firsts = [(v.row, v.line, v.first["row"], v.first["line"], v.first["seq"]) for v in remote.violations]
    line = (lambda row: row + 2) if suffix == ".jsonl" else (lambda row: None)
    assert firsts == [(row, line(row), 2, line(2), 2) for row in (2004, 2005)]
    assert remote.violations[0].first["event"]["kind"] == "insert"
