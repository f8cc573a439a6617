"""Progress by rows on the local trace checker: what it reports while it checks, and what the bar shows."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from ledgerspec.conformance.render._term import Out
from ledgerspec.traces._cli_run import CheckBar
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._local import check_local

SAMPLES = Path(__file__).parents[2] / "traces" / "samples"


def test_one_process_reports_rows_after_each_batch_up_to_all_of_them(tmp_path):
    source = generate_trace(str(tmp_path / "g.parquet"), workload="mixed", brokers=2, events=3_000, seed=3)
    path = tmp_path / "small-groups.parquet"
    pq.write_table(pq.read_table(source.path), path, row_group_size=500)  # several batches
    heard: list[tuple[int, int | None]] = []
    result = check_local(path, workers=1, on_rows=lambda done, total: heard.append((done, total)))
    total = open_trace(path).num_rows()
    assert len(heard) >= 2
    assert [done for done, _ in heard] == sorted(done for done, _ in heard)
    assert heard[-1] == (result.events, total)
    assert all(t == total for _, t in heard)


def test_json_lines_have_no_total(tmp_path):
    heard: list[tuple[int, int | None]] = []
    result = check_local(SAMPLES / "pip430-ok.jsonl", on_rows=lambda done, total: heard.append((done, total)))
    assert heard[-1] == (result.events, None)


def test_the_bar_counts_rows_across_traces_and_names_the_one_checked():
    seen: list[dict] = []
    bar = CheckBar(lambda n=1, note="", completed=None: seen.append({"completed": completed, "note": note}), True, 2)
    told = bar.rows(1, "a.parquet")
    assert told is not None
    told(100, 300)
    bar.done("a.parquet", 300)
    bar.rows(2, "b.jsonl")(50, None)
    assert seen[0] == {"completed": 100, "note": "trace 1/2 a.parquet: 100/300 rows"}
    assert seen[1]["completed"] == 300
    assert seen[2] == {"completed": 350, "note": "trace 2/2 b.jsonl: 50 rows"}
    assert CheckBar(lambda **_: None, False, 1).rows(1, "x") is None  # Spark: its stages are the bar


def test_no_bar_where_stderr_is_not_a_terminal(capsys):
    with CheckBar.open(Out("plain"), "local", [str(SAMPLES / "pip430-ok.jsonl")]) as bar:
        bar.rows(1, "x")(10, None)
    assert capsys.readouterr().err == ""
