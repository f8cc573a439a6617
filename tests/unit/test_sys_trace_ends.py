"""End marks in lockstep traces: a trace cut inside an operation is UNKNOWN, never a false violation.

Without an ``end`` row after each operation's outputs, a trace cut after an input (a broker that died
mid-operation, a truncated file) looked like a candidate that answered less: a correct reference's
trace, cut there, was a VIOLATION. The recorder writes the marks; the replay tells a cut from an
answer (``traces/lockstep/_replay.py``). Both engines on a cut: tests/slow/test_sys_trace_agreement_spark.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cli import main
from ledgerspec.traces.lockstep._check import check_system

REFERENCES = [
    ("cursor-state", "reference-pip381"),
    ("cursor-state", "reference-pulsar-master"),
    ("txlog-writer", "reference-pip160"),
    ("txlog-writer", "reference-pulsar-master"),
]


def _record(tmp_path: Path, system: str, adapter: str, *extra: str) -> tuple[dict, list[dict]]:
    out = tmp_path / "t.jsonl"
    assert main(["traces", "record", "--system", system, "--adapter", adapter, "--out", str(out), *extra]) == 0
    header, *rows = (json.loads(line) for line in out.read_text().splitlines())
    return header, rows


def _check(tmp_path: Path, header: dict, rows: list[dict], name: str = "cut.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in [header, *rows]))
    return check_system(str(path))


def _cut_message(rows: list[dict], at: int) -> str:
    """The report's line for a trace ending at row ``at`` inside the operation that started before it."""
    start = max(i for i in range(at + 1) if rows[i]["kind"] not in OUTPUTS)
    kind = rows[start]["kind"]
    return (
        f"history 'h0' ends inside its {kind!r} at row {start} (no 'end' after it): "
        "the trace was cut there, and that operation is not judged"
    )


OUTPUTS = {"end", "callback", "recovered", "chunk_write", "footer", "meta_update", "flush", "entry_write"}


@pytest.mark.parametrize(("system", "adapter"), REFERENCES)
def test_every_cut_of_a_correct_trace_is_ok_or_unknown(tmp_path, system, adapter):
    """At an end mark the prefix is OK; anywhere else it is UNKNOWN naming the cut operation, never a violation."""
    header, rows = _record(tmp_path, system, adapter, "--events", "40")
    assert "end" in header["events"]
    assert rows[-1]["kind"] == "end"
    inside = 0
    for at in range(len(rows)):
        result = _check(tmp_path, header, rows[: at + 1])
        if rows[at]["kind"] == "end":
            assert result.verdict == Verdict.OK, at
        else:
            inside += 1
            assert result.verdict == Verdict.UNKNOWN, (at, result.to_dict())
            assert result.unknown == [_cut_message(rows, at)]
            assert set(result.statuses().values()) <= {"unknown", "not claimed"}
    assert inside > len(rows) // 3  # every operation was cut after its input, and some after outputs


def test_a_mutants_violation_is_kept_and_a_cut_before_it_is_not_judged(tmp_path):
    header, rows = _record(tmp_path, "txlog-writer", "mutant:pulsar-master-index-from-one")
    whole = _check(tmp_path, header, rows, "whole.jsonl")
    assert whole.verdict == Verdict.VIOLATION
    at = whole.violations[0].row
    end = next(i for i in range(at, len(rows)) if rows[i]["kind"] == "end")
    assert _check(tmp_path, header, rows[: end + 1]).verdict == Verdict.VIOLATION
    cut = _check(tmp_path, header, rows[:end])
    assert cut.verdict == Verdict.UNKNOWN  # the operation that showed it is cut: not judged
    assert cut.unknown == [_cut_message(rows, end - 1)]


def _bad(tmp_path: Path, capsys, header: dict, rows: list[dict], *, renumber: bool = True) -> str:
    """The error for ``rows``; ``renumber``: their ``seq`` in their new order, so only their structure is wrong."""
    path = tmp_path / "bad.jsonl"
    rows = [{**row, "seq": seq} for seq, row in enumerate(rows)] if renumber else rows
    path.write_text("".join(json.dumps(row) + "\n" for row in [header, *rows]))
    assert main(["traces", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_end_marks_out_of_place_are_bad_input(tmp_path, capsys):
    header, rows = _record(tmp_path, "cursor-state", "reference-pip381")
    first_end = next(i for i, row in enumerate(rows) if row["kind"] == "end")
    assert rows[first_end + 1]["kind"] not in OUTPUTS
    missing = rows[:first_end] + rows[first_end + 1 :]
    assert (
        f"row {first_end}: field 'kind': {rows[first_end + 1]['kind']!r} starts an operation; "
        f"the {rows[0]['kind']!r} at row 0 has no 'end'"
    ) in _bad(tmp_path, capsys, header, missing)
    before = [rows[first_end], *rows]  # structure is read before seq and time are
    assert "row 0: field 'kind': 'end' cannot come before any operation" in _bad(tmp_path, capsys, header, before)
    second = [*rows[: first_end + 1], rows[first_end], *rows[first_end + 1 :]]
    assert f"row {first_end + 1}: field 'kind': a second 'end' for the {rows[0]['kind']!r} at row 0" in _bad(
        tmp_path, capsys, header, second
    )


def test_an_output_after_its_operations_end_is_bad_input(tmp_path, capsys):
    header, rows = _record(tmp_path, "txlog-writer", "reference-pip160")
    callback = next(i for i, row in enumerate(rows) if row["kind"] == "callback")
    end = next(i for i in range(callback, len(rows)) if rows[i]["kind"] == "end")
    start = max(i for i in range(callback) if rows[i]["kind"] not in OUTPUTS)
    moved = [*rows[:callback], *rows[callback + 1 : end + 1], rows[callback], *rows[end + 1 :]]
    assert (
        f"row {end}: field 'kind': 'callback' after the 'end' of the {rows[start]['kind']!r} at row {start}"
    ) in _bad(tmp_path, capsys, header, moved)


def test_a_trace_without_end_marks_is_read_as_before(tmp_path):
    """Traces whose header does not list ``end`` (ledgerspec 0.1.0, other recorders) keep their meaning."""
    header, rows = _record(tmp_path, "txlog-writer", "reference-pip160")
    unmarked = {**header, "events": [k for k in header["events"] if k != "end"]}
    kept = [row for row in rows if row["kind"] != "end"]
    assert _check(tmp_path, unmarked, kept).verdict == Verdict.OK


def test_a_header_without_events_records_every_kind_but_end(tmp_path):
    """``events`` left out means every kind but ``end``: such traces (ledgerspec 0.1.0) stay OK."""
    header = {"format": "ledgerspec-trace", "version": 1, "system": "cursor-state", "profile": "pip381", "config": {}}
    rows = [
        {"broker": "h0", "seq": 0, "time": 0, "kind": "ack", "ledger": 1, "entry": 3},
        {"broker": "h0", "seq": 1, "time": 1, "kind": "mark_delete", "ledger": 1, "entry": 2},
    ]
    result = _check(tmp_path, header, rows)
    assert (result.verdict, result.unknown) == (Verdict.OK, [])


def test_the_first_input_error_is_the_smallest_row_even_inside_an_open_operation(tmp_path, capsys):
    """A row's ``seq``, and the model's refusal of an operation, come before a later row's misplacement."""
    header, rows = _record(tmp_path, "cursor-state", "reference-pip381")
    first_end = next(i for i, row in enumerate(rows) if row["kind"] == "end")
    second_end = next(i for i in range(first_end + 1, len(rows)) if rows[i]["kind"] == "end")
    repeated = [dict(row) for row in rows[: second_end + 3]]
    repeated[first_end + 1]["seq"] = repeated[first_end]["seq"]  # the second operation's input repeats a seq
    del repeated[second_end]  # and its end is missing: the later row is the second problem
    repeats = f"row {first_end + 1}: field 'seq': {rows[first_end]['seq']} repeats"
    assert repeats in _bad(tmp_path, capsys, header, repeated, renumber=False)
    refused = [dict(row) for row in rows[: first_end + 1]]
    refused.append({"broker": "h0", "seq": 10**6, "time": 10**6, "kind": "recover"})  # no crash before it
    refused.append({"broker": "h0", "seq": 10**6 + 1, "time": 10**6, "kind": "end"})
    refused.append({"broker": "h0", "seq": 10**6 + 2, "time": 10**6, "kind": "end"})
    assert f"row {first_end + 1}: field 'kind': 'recover' is not possible here" in _bad(
        tmp_path, capsys, header, refused, renumber=False
    )
