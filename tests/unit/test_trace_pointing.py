"""Trace verdicts that point at the cause (issue 37, item 5).

The plain text lists the earliest violations first, whatever their invariant; a size drift names the
insert that began it (its first divergence), however the events are cut into chunks; a JSON-lines
position gives the file's line beside the event's index, a Parquet one the row; a path that names
nothing is one line saying so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.traces.cache import _check
from ledgerspec.traces.cache._check import select
from ledgerspec.traces.cache._format import Header
from ledgerspec.traces.cache._io import TraceWriter, open_trace
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._replay import BrokerReplay, Finding, chunk_of

SIZE, FIFO = "CACHE-SIZE-ACCOUNTING", "CACHE-FIFO"
DRIFT = [  # broker b: the insert at row 2 is miscounted; the size reports at rows 4 and 5 show it
    {"broker": "b", "seq": 0, "time": 1, "kind": "insert", "ledger": 1, "entry": 0, "size": 10, "timestamp": 1},
    {"broker": "b", "seq": 1, "time": 1, "kind": "size_sample", "size": 10},  # agrees
    {"broker": "b", "seq": 2, "time": 2, "kind": "insert", "ledger": 1, "entry": 1, "size": 20, "timestamp": 2},
    {"broker": "b", "seq": 3, "time": 3, "kind": "miss", "ledger": 1, "entry": 5},  # moves no size
    {"broker": "b", "seq": 4, "time": 3, "kind": "size_sample", "size": 40},  # 30 cached
    {"broker": "b", "seq": 5, "time": 4, "kind": "size_sample", "size": 40},
    {"broker": "b", "seq": 6, "time": 5, "kind": "insert", "ledger": 1, "entry": 2, "size": 10, "timestamp": 0},
    # broker c: the size agrees, then a report alone is off: it is its own first divergence
    {"broker": "c", "seq": 0, "time": 1, "kind": "insert", "ledger": 2, "entry": 0, "size": 10, "timestamp": 1},
    {"broker": "c", "seq": 1, "time": 1, "kind": "size_sample", "size": 10},
    {"broker": "c", "seq": 2, "time": 2, "kind": "size_sample", "size": 11},
]
"""Rows 0-9. A FIFO violation (row 6: the timestamp is not the insert's time) comes after size ones (rows 4, 5, 9)."""


def write(path: Path, events: list[dict[str, Any]], *, blank_after: int | None = None) -> Path:
    """The events as a pulsar-master trace; in JSON lines, a blank line after row ``blank_after``."""
    with TraceWriter(path, Header(profile="pulsar-master", config={})) as writer:
        writer.write(events)
    if blank_after is not None:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines.insert(blank_after + 2, "\n")  # after the header and rows 0..blank_after
        path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def drift(tmp_path: Path) -> Path:
    """DRIFT as JSON lines with a blank line between rows 1 and 2: row r is on line r + 2, from row 2 on r + 3."""
    return write(tmp_path / "drift.jsonl", DRIFT, blank_after=1)


def violation_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.startswith("  CACHE-") and " at broker " in line]


def test_the_text_lists_the_earliest_violations_first_whatever_their_invariant(drift, capsys):
    assert main(["traces", "check", str(drift)]) == 1
    shown = violation_lines(capsys.readouterr().out)
    assert [line.split(" at broker ")[0] for line in shown] == [SIZE, SIZE, FIFO, SIZE]  # rows 4, 5, 6, 9
    assert shown[0].startswith(f"{SIZE} at broker 'b', seq 4, line 7 (event 4): reported size 40")
    assert shown[2].startswith(f"{FIFO} at broker 'b', seq 6, line 9 (event 6): inserted (1, 2)")


def test_the_json_report_keeps_every_violation_in_catalogue_order(drift, tmp_path):
    report = tmp_path / "r.json"
    assert main(["traces", "check", str(drift), "--json", str(report)]) == 1
    listed = json.loads(report.read_text())["violations"]
    assert [(v["invariant"], v["row"], v["line"]) for v in listed] == [
        (FIFO, 6, 9),
        (SIZE, 4, 7),
        (SIZE, 5, 8),
        (SIZE, 9, 12),
    ]


def test_the_kept_violations_of_an_invariant_are_its_earliest_by_row(monkeypatch):
    """Past the limit an invariant keeps its earliest rows, whichever broker: the text shows the first by row."""
    monkeypatch.setattr(_check, "KEEP_PER_INVARIANT", 1)
    late, early = Finding(SIZE, "a", 1, 10, "late"), Finding(SIZE, "z", 1, 2, "early")
    assert select([late, early], {SIZE: 2}) == [early]


def test_a_size_drift_names_the_insert_that_began_it(drift, capsys):
    result = check_local(drift)
    firsts = {(v.broker, v.seq): v.first for v in result.violations if v.invariant == SIZE}
    began = {"seq": 2, "row": 2, "line": 5, "event": DRIFT[2]}
    assert firsts == {("b", 4): began, ("b", 5): began, ("c", 2): None}  # c: no entry changed since it agreed
    fifo = next(v for v in result.violations if v.invariant == FIFO)
    assert fifo.first is None
    assert next(v for v in result.to_dict()["violations"] if v["seq"] == 4)["first_divergence"] == began
    assert main(["traces", "check", str(drift)]) == 1
    text = capsys.readouterr().out
    assert f"first divergence: seq 2, line 5 (event 2): {json.dumps(DRIFT[2])}" in text


@pytest.mark.parametrize("cut", [1, 2, 3, 5])
def test_the_first_divergence_does_not_depend_on_where_the_events_are_cut(drift, cut):
    """The replay carries the last agreement across chunks (and segments) of a broker's events."""
    trace = open_trace(drift)
    (_, batch), *_ = list(trace.batches())
    rows = np.flatnonzero(np.asarray(batch.column("broker").to_pylist()) == "b")
    events = chunk_of(batch.take(rows), rows)

    def findings(step: int) -> list[Finding]:
        replay = BrokerReplay("b", "pulsar-master", trace.config, [SIZE])
        for start in range(0, len(events), step):
            replay.feed(events.part(start, min(start + step, len(events))))
        return replay.findings

    whole = findings(len(events))
    assert [f.first for f in whole] == [(2, 2), (2, 2)]
    assert findings(cut) == whole


def test_a_parquet_position_is_its_row(tmp_path, capsys):
    path = write(tmp_path / "drift.parquet", DRIFT)
    assert main(["traces", "check", str(path)]) == 1
    text = capsys.readouterr().out
    assert violation_lines(text)[0].startswith(f"{SIZE} at broker 'b', seq 4, row 4: reported size 40")
    assert f"first divergence: seq 2, row 2: {json.dumps(DRIFT[2])}" in text
    assert {v.line for v in check_local(path).violations} == {None}


@pytest.mark.parametrize("name", ["nosuch.parquet", "nosuch.jsonl", "nosuch", "jsonl:nosuch.parquet"])
def test_a_trace_that_does_not_exist_is_one_line_saying_so(tmp_path, capsys, name):
    path = f"{tmp_path}/{name}" if ":" not in name else f"jsonl:{tmp_path}/{name.split(':', 1)[1]}"
    shown = str(tmp_path / name.split(":", 1)[-1])
    assert main(["traces", "check", path]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"error[trace-not-found]: {shown}: does not exist (no such file or directory)"]
    assert out.splitlines() == [f"ERROR: {path} (engine local): not checked, trace-not-found: see stderr"]


def test_a_system_traces_json_lines_position_gives_its_line_too(tmp_path, capsys):
    """A lockstep system's trace is read by the same line reader: its violations name the line as well."""
    out = tmp_path / "t.jsonl"
    record = ["traces", "record", "--system", "txlog-writer", "--adapter", "mutant:pulsar-master-index-from-one"]
    assert main([*record, "--out", str(out)]) == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join([rows[0], "", *rows[1:]]) + "\n", encoding="utf-8")  # a blank line: rows move down 2
    report = tmp_path / "r.json"
    capsys.readouterr()
    assert main(["traces", "check", str(out), "--json", str(report)]) == 1
    first = json.loads(report.read_text())["violations"][0]
    assert first["line"] == first["row"] + 3
    assert f"seq {first['seq']}, line {first['row'] + 3} (event {first['row']}): " in capsys.readouterr().out
