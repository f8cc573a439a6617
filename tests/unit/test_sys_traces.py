"""Traces of the lockstep systems (cursor-state, txlog-writer): record, check, UNKNOWN, bad input.

The local engine here; both engines on the same inputs in tests/slow/test_sys_trace_agreement_spark.py,
and every reference and mutant against conform in tests/quality/test_sys_trace_agreement.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.conformance.txlog_writer import conform_txlog
from ledgerspec.conformance.txlog_writer._mutants import TXLOG_MUTANTS
from ledgerspec.spec.cursor_state._events import KINDS as CURSOR_KINDS
from ledgerspec.spec.cursor_state._events import WRITES
from ledgerspec.spec.txlog_writer._events import KINDS as TXLOG_KINDS
from ledgerspec.traces.lockstep._check import check_system

ROOT = Path(__file__).resolve().parents[2]


def record(tmp_path: Path, system: str, adapter: str, *extra: str, name: str = "t.jsonl") -> Path:
    out = tmp_path / name
    assert main(["traces", "record", "--system", system, "--adapter", adapter, "--out", str(out), *extra]) == 0
    return out


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def rewrite(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize(
    ("system", "adapter"),
    [
        ("cursor-state", "reference-pip381"),
        ("cursor-state", "reference-pulsar-master"),
        ("txlog-writer", "reference-pip160"),
        ("txlog-writer", "reference-pulsar-master"),
    ],
)
def test_a_recorded_reference_is_ok(tmp_path, capsys, system, adapter):
    trace = record(tmp_path, system, adapter, "--histories", "2", "--events", "150")
    assert main(["traces", "check", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "OK: " in out
    assert "violation" not in out


def test_a_recorded_mutant_is_a_violation_with_its_event(tmp_path, capsys):
    trace = record(tmp_path, "txlog-writer", "mutant:pulsar-master-index-from-one")
    assert main(["traces", "check", str(trace), "--json", str(tmp_path / "r.json")]) == 1
    out = capsys.readouterr().out
    assert "VIOLATION" in out
    assert "TXLOG-BATCH-POSITIONS at broker 'h0'" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["system"] == "txlog-writer"
    assert report["invariants"]["TXLOG-BATCH-POSITIONS"] == "violation"
    assert report["violations"][0]["event"]["kind"] == "write_complete"


UNBATCHED = {"pulsar-master-closed-still-writes-unbatched"}
"""Its bug needs batching off, and the default configuration batches."""


@pytest.mark.parametrize("mutant", [m.name for m in TXLOG_MUTANTS if m.name not in UNBATCHED])
def test_three_default_txlog_recordings_show_every_batching_mutant(tmp_path, capsys, mutant):
    """The walk fills batches by count, by count and size at once, and closes with records buffered.

    Before its bursts of a batch's worth of records, no default recording filled a batch by count, so a
    writer that credited such a flush to ``max_size`` recorded an OK trace while ``conform`` failed it.
    """
    trace = record(tmp_path, "txlog-writer", f"mutant:{mutant}", "--histories", "3")
    assert main(["traces", "check", str(trace)]) == 1
    assert "VIOLATION" in capsys.readouterr().out


def test_a_conform_counterexample_records_and_fails_the_same_way(tmp_path, capsys):
    mutant = next(m for m in TXLOG_MUTANTS if m.name == "pulsar-master-close-drops-buffered")
    report = conform_txlog(mutant.adapter, mutant.profile, settings_name="ci", seed=1)  # killed on 20/20 seeds at ci
    assert report.violation is not None
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"counterexample": report.case()}))
    trace = record(tmp_path, "txlog-writer", f"mutant:{mutant.name}", "--case", str(case))
    result = check_system(str(trace))
    assert (result.violations[0].invariant, result.violations[0].message) == (
        report.violation.invariant,
        report.violation.message,
    )
    capsys.readouterr()


def test_a_trace_without_recoveries_is_unknown_naming_the_kind(tmp_path, capsys):
    trace = record(tmp_path, "cursor-state", "reference-pulsar-master")
    rows = lines(trace)
    rows[0]["events"] = [k for k in rows[0]["events"] if k != "recovered"]
    rewrite(trace, [rows[0], *(r for r in rows[1:] if r["kind"] != "recovered")])
    assert main(["traces", "check", str(trace)]) == 3
    out = capsys.readouterr().out
    assert "CURSOR-RECOVER-ACKNOWLEDGED: the trace records no 'recovered' events" in out
    assert "CURSOR-CALLBACK-ONCE         ok" in out


def test_parquet_and_json_lines_give_the_same_result(tmp_path):
    a = record(tmp_path, "cursor-state", "mutant:pulsar-master-recover-rolls-back", "--histories", "3")
    b = record(
        tmp_path, "cursor-state", "mutant:pulsar-master-recover-rolls-back", "--histories", "3", name="t.parquet"
    )
    ra, rb = check_system(str(a)), check_system(str(b))
    assert ra.verdict == rb.verdict == "VIOLATION"
    assert ra.counts == rb.counts
    # the same but for the position: JSON lines give the file's line beside the row, Parquet the row alone
    assert [v.line for v in ra.violations] == [v.row + 2 for v in ra.violations]
    assert {v.line for v in rb.violations} == {None}
    assert [{**v.to_dict(), "line": None} for v in ra.violations] == [v.to_dict() for v in rb.violations]


def _bad(tmp_path, capsys, rows: list[dict]) -> str:
    path = rewrite(tmp_path / "bad.jsonl", rows)
    assert main(["traces", "check", str(path)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert str(path) in captured.err
    return captured.err


def test_bad_input_names_the_file_row_and_field(tmp_path, capsys):
    rows = lines(record(tmp_path, "cursor-state", "reference-pip381"))
    header, events = rows[0], rows[1:]
    persist = next(i for i, r in enumerate(events) if r["kind"] == "persist")
    cases = {
        "field 'kind': unknown event kind 'insert' for the cursor-state system": {**events[3], "kind": "insert"},
        "field 'number' is required for 'persist'": {k: v for k, v in events[persist].items() if k != "number"},
        "field 'entry' is negative (-1)": {**next(e for e in events if e["kind"] == "ack"), "entry": -1},
    }
    for message, row in cases.items():
        index = events.index(next(e for e in events if e["seq"] == row["seq"]))
        err = _bad(tmp_path, capsys, [header, *events[:index], row, *events[index + 1 :]])
        assert f"row {index}: {message}" in err, err
    back = [header, *events[:5], {**events[5], "time": 0, "seq": events[5]["seq"]}, *events[6:]]
    back[5]["time"] = 3
    assert "field 'time': 0 goes back from 3" in _bad(tmp_path, capsys, back)
    repeat = [header, *events[:5], {**events[5], "seq": events[4]["seq"]}, *events[6:]]
    assert "row 5: field 'seq'" in _bad(tmp_path, capsys, repeat)
    callback = {"broker": "h0", "seq": 0, "time": 0, "kind": "callback", "number": 1}
    assert "row 0: field 'kind': 'callback' cannot come before any operation" in _bad(
        tmp_path, capsys, [header, callback, *({**e, "seq": e["seq"] + 1} for e in events)]
    )
    recover = [header, {"broker": "h0", "seq": 0, "time": 0, "kind": "recover"}]
    assert "row 0: field 'kind': 'recover' is not possible here" in _bad(tmp_path, capsys, recover)
    assert "field 'system': 'kafka'" in _bad(tmp_path, capsys, [{**header, "system": "kafka"}, *events])
    unwritten = {**header, "events": [k for k in header["events"] if k not in WRITES]}
    kept = [e for e in events if e["kind"] not in WRITES]
    assert "'chunk_write' is not among the kinds" in _bad(
        tmp_path, capsys, [unwritten, {**kept[0], "kind": "chunk_write", "ledger": 3, "bytes": 10}, *kept[1:]]
    )
    ack = next(i for i, e in enumerate(events) if e["kind"] == "ack")
    misplaced = [header, *events[: ack + 1], {**events[ack], "kind": "footer", "ledger": 100, "bytes": 9}]
    misplaced[-1]["seq"] = events[-1]["seq"] + 1
    assert f"row {ack + 1}: field 'kind': 'footer' cannot come after 'ack'" in _bad(tmp_path, capsys, misplaced)


def test_a_recovery_answers_once_with_its_state_or_its_error(tmp_path, capsys):
    """A ``recovered`` with neither was an internal error (KeyError); a second one was silently ignored."""
    recorded = lines(record(tmp_path, "cursor-state", "reference-pip381"))[0]
    header = {**recorded, "events": [k for k in recorded["events"] if k != "end"]}  # rows without end marks
    crash = [{"broker": "h0", "seq": 0, "time": 0, "kind": "crash", "keep": 0}]
    crash.append({"broker": "h0", "seq": 1, "time": 1, "kind": "recover"})
    state = json.dumps({"mark_delete": [1, -1], "acked": [], "batch": [], "properties": {}})
    answer = {"broker": "h0", "seq": 2, "time": 1, "kind": "recovered"}
    neither = _bad(tmp_path, capsys, [header, *crash, answer])
    assert "row 2: fields 'data' / 'error': exactly one is set in 'recovered'" in neither
    both = _bad(tmp_path, capsys, [header, *crash, {**answer, "data": state, "error": "failed"}])
    assert "exactly one is set in 'recovered'" in both
    twice = [header, *crash, {**answer, "data": state}, {**answer, "seq": 3, "error": "failed"}]
    assert "row 3: field 'kind': a second 'recovered' after one 'recover'" in _bad(tmp_path, capsys, twice)


def test_a_null_record_number_in_a_parquet_list_is_bad_input(tmp_path, capsys):
    """JSON lines refuse it as a type; Parquet's list type lets a null through, which was an internal error."""
    import pyarrow.parquet as pq

    trace = record(tmp_path, "txlog-writer", "reference-pip160", "--events", "20", name="t.parquet")
    table = pq.read_table(trace)
    at = next(i for i, value in enumerate(table["records"].to_pylist()) if value)
    records = table["records"].to_pylist()
    records[at] = [None, *records[at]]
    changed = table.set_column(table.schema.get_field_index("records"), "records", [records])
    pq.write_table(changed.replace_schema_metadata(table.schema.metadata), trace)
    assert main(["traces", "check", "--engine", "local", str(trace)]) == 2
    err = capsys.readouterr().err
    assert f"row {at}: field 'records': record numbers are integers from 1" in err
    assert "internal-error" not in err


@pytest.mark.parametrize("mutant", ["pip381-footer-first", "pip381-chunk-short"])
def test_a_cursor_writing_its_footer_early_or_a_chunk_short_is_flagged(tmp_path, capsys, mutant):
    """The reference reports its writes (capability ``writes``): CURSOR-WRITES judges them."""
    config = json.dumps({"chunk_size": 11, "max_entry_size": 1000})
    trace = record(tmp_path, "cursor-state", f"mutant:{mutant}", "--config", config, "--events", "60")
    assert set(WRITES) <= set(lines(trace)[0]["events"])
    result = check_system(str(trace))
    assert result.violations[0].invariant == "CURSOR-WRITES", result.violations[:1]
    assert result.violations[0].event["kind"] in ("persist", "rollover", "write_ack")
    good = record(tmp_path, "cursor-state", "reference-pip381", "--config", config, name="good.jsonl")
    assert {r["kind"] for r in lines(good)[1:]} >= {"chunk_write", "footer", "meta_update"}
    assert check_system(str(good)).verdict == "OK"
    capsys.readouterr()


def test_a_trace_without_the_writes_leaves_their_check_unknown(tmp_path, capsys):
    """A recorder that cannot see the writes (an ``exec:`` adapter, a broker log without them)."""
    trace = record(tmp_path, "cursor-state", "reference-pip381")
    rows = lines(trace)
    rows[0]["events"] = [k for k in rows[0]["events"] if k != "meta_update"]
    rewrite(trace, [rows[0], *(r for r in rows[1:] if r["kind"] != "meta_update")])
    assert main(["traces", "check", str(trace)]) == 3
    out = capsys.readouterr().out
    assert "CURSOR-WRITES: the trace records no 'meta_update' events" in out


def test_txlog_time_must_follow_the_clock(tmp_path, capsys):
    rows = lines(record(tmp_path, "txlog-writer", "reference-pulsar-master"))
    header, events = rows[0], rows[1:]
    clock = next(i for i, e in enumerate(events) if e["kind"] == "clock")
    shifted = [header, *events[:clock], *({**e, "time": e["time"] + 100} for e in events[clock:])]
    assert f"row {clock}: field 'time'" in _bad(tmp_path, capsys, shifted)
    assert "the clock events give" in _bad(tmp_path, capsys, shifted)


def test_invalid_json_and_a_missing_operation_kind(tmp_path, capsys):
    rows = lines(record(tmp_path, "txlog-writer", "reference-pip160"))
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[1]) + "\n{oops\n")
    assert main(["traces", "check", str(path)]) == 2
    assert "line 3 (row 1): invalid JSON" in capsys.readouterr().err
    header = {**rows[0], "events": [k for k in rows[0]["events"] if k != "clock"]}
    assert "the operation kind(s) clock must be recorded" in _bad(tmp_path, capsys, [header, *rows[1:]])


def _documented(title: str) -> dict[str, tuple[str, list[str]]]:
    text = (ROOT / "traces/FORMAT.md").read_text()
    table = text[text.index(f"| {title} |") :].split("\n\n")[0].splitlines()[2:]
    found = {}
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        found[re.sub("`", "", cells[0])] = (cells[1], [f for f in cells[2].split(", ") if f])
    return found


@pytest.mark.parametrize(("title", "kinds"), [("Cursor-state kind", CURSOR_KINDS), ("Txlog-writer kind", TXLOG_KINDS)])
def test_format_lists_every_kind_of_each_system(title, kinds):
    assert _documented(title) == {k.name: (k.role, list(k.required)) for k in kinds.values()}


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_each_invariant_reads_kinds_of_its_system(system):
    vocabulary = SYSTEMS[system].vocabulary
    for inv in SYSTEMS[system].invariants:
        assert inv.trace_events, inv.id
        assert set(inv.trace_events) <= set(vocabulary.kinds), inv.id


def test_a_flush_comes_right_before_its_entry_write(tmp_path, capsys):
    rows = lines(record(tmp_path, "txlog-writer", "reference-pulsar-master"))
    header, events = rows[0], rows[1:]
    flush = next(i for i, e in enumerate(events) if e["kind"] == "flush")
    assert events[flush + 1]["kind"] == "entry_write"
    without_flush = [header, *events[:flush], *events[flush + 1 :]]
    assert f"row {flush}: field 'kind': 'entry_write' without the 'flush' right before it" in _bad(
        tmp_path, capsys, without_flush
    )
    without_write = [header, *events[: flush + 1], *events[flush + 2 :]]
    assert f"row {flush + 1}: field 'kind':" in _bad(tmp_path, capsys, without_write)
    assert "wants its 'entry_write'" in _bad(tmp_path, capsys, without_write)
    unmarked = {**header, "events": [k for k in header["events"] if k != "end"]}
    ends = [unmarked, *(e for e in events[: flush + 1] if e["kind"] != "end")]
    assert "the trace ends after 'flush', without its 'entry_write'" in _bad(tmp_path, capsys, ends)
    cut = check_system(str(rewrite(tmp_path / "cut.jsonl", [header, *events[: flush + 1]])))
    assert cut.verdict == "UNKNOWN"  # with end marks, that is a cut: the operation is not judged
    op = max(i for i in range(flush) if TXLOG_KINDS[events[i]["kind"]].role == "input")
    message = f"history 'h0' ends inside its {events[op]['kind']!r} at row {op} (no 'end' after it): "
    assert cut.unjudged == [message + "the trace was cut there, and that operation is not judged"]


def _dataset(trace: Path, directory: Path, sidecar: bool) -> Path:
    """A dataset directory of the trace's rows in two part files (as Spark and pyarrow write them)."""
    import pyarrow.parquet as pq

    table = pq.read_table(trace)
    header = table.schema.metadata[b"ledgerspec"]
    rows = table if not sidecar else table.replace_schema_metadata(None)
    directory.mkdir()
    pq.write_table(rows.slice(0, 40), directory / "part-00000.parquet")
    pq.write_table(rows.slice(40), directory / "part-00001.parquet")
    (directory / "_SUCCESS").write_text("")
    if sidecar:
        (directory / "_ledgerspec.json").write_bytes(header)
    return directory


@pytest.mark.parametrize("sidecar", [False, True], ids=["metadata", "sidecar"])
def test_a_dataset_directory_is_checked_as_its_file(tmp_path, capsys, sidecar):
    config = json.dumps({"chunk_size": 11, "max_entry_size": 1000})
    trace = record(tmp_path, "cursor-state", "mutant:pip381-footer-first", "--config", config, name="t.parquet")
    directory = _dataset(trace, tmp_path / "ds", sidecar)
    whole, parts = check_system(str(trace)).to_dict(), check_system(str(directory)).to_dict()
    for report in (whole, parts):
        del report["path"], report["seconds"]
    assert parts == whole
    assert whole["verdict"] == "VIOLATION"
    assert main(["traces", "check", str(directory)]) == 1
    capsys.readouterr()


def test_a_dataset_without_a_header_or_with_two_is_bad_input(tmp_path, capsys):
    trace = record(tmp_path, "cursor-state", "reference-pulsar-master", name="t.parquet")
    both = _dataset(trace, tmp_path / "both", sidecar=False)
    (both / "_ledgerspec.json").write_text(json.dumps(lines(record(tmp_path, "cursor-state", "reference-pip381"))[0]))
    assert main(["traces", "check", str(both)]) == 2
    assert "a header in both _ledgerspec.json and the part files" in capsys.readouterr().err
    none = _dataset(trace, tmp_path / "none", sidecar=True)
    (none / "_ledgerspec.json").unlink()
    assert main(["traces", "check", str(none)]) == 2  # the part files have the system columns: its error
    assert "no header" in capsys.readouterr().err


def test_budget_is_refused_for_a_system_trace_naming_the_option(tmp_path, capsys):
    trace = record(tmp_path, "txlog-writer", "reference-pip160")
    capsys.readouterr()
    assert main(["traces", "check", str(trace), "--budget", "5"]) == 2
    err = capsys.readouterr().err
    assert "--budget: " in err
    assert "is a txlog-writer trace" in err
    assert "Traceback" not in err


def test_a_header_naming_no_system_by_string_is_bad_input_and_later_files_still_get_their_verdict(tmp_path, capsys):
    good = record(tmp_path, "txlog-writer", "reference-pulsar-master", "--histories", "1", "--events", "20")
    rows = lines(good)
    bad = rewrite(tmp_path / "bad.jsonl", [{**rows[0], "system": ["cursor-state"]}, *rows[1:]])
    assert main(["traces", "check", str(bad), str(good)]) == 2
    out, err = capsys.readouterr()
    assert "field 'system': ['cursor-state']" in err
    assert re.search(r"OK.*t\.jsonl", out), out


@pytest.mark.parametrize("system", ["txlog-writer", "cursor-state"])
def test_a_header_key_of_its_own_is_bad_input_not_ignored(tmp_path, capsys, system):
    """A config field put beside ``config`` rather than in it was ignored: the check ran on the defaults."""
    good = record(tmp_path, system, "reference-pulsar-master", "--histories", "1", "--events", "20")
    rows = lines(good)
    bad = rewrite(tmp_path / "bad.jsonl", [{**rows[0], "max_records": 1}, *rows[1:]])
    assert main(["traces", "check", "--engine", "local", str(bad)]) == 2
    assert "unknown header key(s) max_records; known: config, description, events," in capsys.readouterr().err


@pytest.mark.parametrize(
    ("case", "named"),
    [
        ({"steps": [1]}, "step 1: want an operation object"),
        ({"steps": []}, "field 'steps': empty"),
        ({"config": [1], "steps": [{"op": "persist", "value": 0}]}, "field 'config': want an object"),
    ],
)
def test_a_bad_case_file_is_named_not_an_internal_error(tmp_path, capsys, case, named):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    argv = ["traces", "record", "--system", "cursor-state", "--adapter", "reference-pulsar-master", "--case", str(path)]
    assert main([*argv, "--out", str(tmp_path / "t.jsonl")]) == 2
    assert named in capsys.readouterr().err
    assert not (tmp_path / "t.jsonl").exists()


def test_a_batch_of_one_message_records(tmp_path, capsys):
    """The walk acknowledged index ``entry % 2`` of a batch: with ``batch_size`` 1, index 1 was outside it,
    and every recording with that valid configuration stopped with an error."""
    trace = record(tmp_path, "cursor-state", "reference-pip381", "--config", '{"batch_size": 1}')
    assert any(row["kind"] == "ack_index" for row in lines(trace)[1:])
    assert main(["traces", "check", "--engine", "local", str(trace)]) == 0
    assert "OK: " in capsys.readouterr().out


def test_an_entry_write_counts_the_bytes_of_the_record_whose_add_wrote_it():
    """A record too large to batch is written by its own add: its size was not yet known, so 0 bytes."""
    from ledgerspec.spec.txlog_writer import Add
    from ledgerspec.spec.txlog_writer._events import events

    written = events(Add(size=69), [["write", 1, [3], False, None]], {1: 32, 2: 1})
    assert written[0] == {"kind": "add", "size": 69, "record": 3}
    assert [row for row in written if row["kind"] == "entry_write"] == [
        {"kind": "entry_write", "entry": 1, "records": [3], "bytes": 69}
    ]


def test_a_batch_too_large_to_model_is_bad_input_not_a_process_killed(tmp_path, capsys):
    """A ``batch_size`` of 10^9 held a set of every index at the first ``AckIndex``: the recorder was killed
    for memory. Now the option and a trace's header name the field and the bound; at the bound it records."""
    argv = ["traces", "record", "--system", "cursor-state", "--adapter", "reference-pip381", "--config"]
    assert main([*argv, '{"batch_size": 4097}', "--out", str(tmp_path / "big.jsonl")]) == 2
    assert "--config: config field 'batch_size': want at most 4096" in capsys.readouterr().err
    assert not (tmp_path / "big.jsonl").exists()
    trace = record(tmp_path, "cursor-state", "reference-pip381", "--config", '{"batch_size": 4096}')
    assert main(["traces", "check", "--engine", "local", str(trace)]) == 0
    rows = lines(trace)
    header = {**rows[0], "config": {**rows[0]["config"], "batch_size": 10**9}}
    bad = rewrite(tmp_path / "bad.jsonl", [header, *rows[1:]])
    capsys.readouterr()
    assert main(["traces", "check", "--engine", "local", str(bad)]) == 2
    named = "line 1 (the header): field 'config': config field 'batch_size': want at most 4096"
    assert named in capsys.readouterr().err
