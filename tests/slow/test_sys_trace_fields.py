"""A system trace row's fields: only its kind's, and integers where integers are meant, on both engines.

A field set on a row whose kind has no such field was ignored (a trace carrying what no check reads
passed); a JSON ``true`` in a ``recovered`` state or in the ``metrics`` counters compared equal to 1.
Both are bad input now (exit 2), named by file, row and field, the same from the local and Spark engines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ledgerspec.conformance.cli import main

pytestmark = pytest.mark.slow  # Spark: the spark tox environment

ENGINES = ["local", "spark"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("recorded")
    argv = {
        "cursor-state": ["--adapter", "reference-pip381", "--events", "120"],
        "txlog-writer": ["--adapter", "reference-pip160", "--events", "60"],
    }
    for system, args in argv.items():
        for suffix in ("jsonl", "parquet"):
            out = folder / f"{system}.{suffix}"
            assert main(["traces", "record", "--system", system, *args, "--out", str(out)]) == 0
    return {f"{system}.{suffix}": folder / f"{system}.{suffix}" for system in argv for suffix in ("jsonl", "parquet")}


def changed(source: Path, target: Path, kind: str, change: dict) -> tuple[Path, int]:
    """``source`` with ``change`` made to its first row of ``kind``; that row's number."""
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    at = next(i for i, row in enumerate(rows[1:]) if row["kind"] == kind)
    rows[at + 1] = {**rows[at + 1], **change}
    target.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return target, at


def bad(capsys, path: Path, engine: str) -> str:
    assert main(["traces", "check", "--engine", engine, str(path)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "internal-error" not in captured.err
    return captured.err


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("system", "kind", "change", "message"),
    [
        (
            "cursor-state",
            "ack",
            {"error": "failed"},
            "field 'error' is not a field of 'ack'; its fields are broker, seq, time, kind, ledger, entry",
        ),
        (
            "cursor-state",
            "write_ack",
            {"number": 7},
            "field 'number' is not a field of 'write_ack'; its fields are broker, seq, time, kind",
        ),
        (
            "txlog-writer",
            "clock",
            {"records": [1, 2]},
            "field 'records' is not a field of 'clock'; its fields are broker, seq, time, kind, by",
        ),
    ],
)
def test_a_field_its_kind_has_not_is_bad_input(tmp_path, capsys, recorded, engine, system, kind, change, message):
    trace, at = changed(recorded[f"{system}.jsonl"], tmp_path / "bad.jsonl", kind, change)
    assert f"{trace}: row {at}: {message}" in bad(capsys, trace, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_value_in_a_column_its_kind_has_not_is_bad_input(tmp_path, capsys, recorded, engine):
    """In Parquet every row has every column: a null is no field, a value is one."""
    source = recorded["txlog-writer.parquet"]
    table = pq.read_table(source)
    kinds = table["kind"].to_pylist()
    at = kinds.index("close") if "close" in kinds else kinds.index("write_complete")
    trigger = table["trigger"].to_pylist()
    trigger[at] = "max_size"
    table = table.set_column(table.schema.get_field_index("trigger"), "trigger", pa.array(trigger, pa.string()))
    trace = tmp_path / "bad.parquet"
    pq.write_table(table, trace)
    assert f"{trace}: row {at}: field 'trigger' is not a field of '{kinds[at]}'" in bad(capsys, trace, engine)
    assert main(["traces", "check", "--engine", engine, str(source)]) == 0  # its nulls are no fields
    capsys.readouterr()


def _state(**change) -> str:
    state = {"mark_delete": [1, 5], "acked": [[2, 3]], "batch": [[[2, 6], [0, 2]]], "properties": {"p": 0}}
    return json.dumps({**state, **change})


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_state(mark_delete=[True, 5]), "data.mark_delete[0]: want an integer, got true"),
        (_state(acked=[[2, False]]), "data.acked[0][1]: want an integer, got false"),
        (_state(batch=[[[2, 6], [0, True]]]), "data.batch[0][1][1]: want an integer, got true"),
        (_state(properties={"p": True}), "data.properties.p: want an integer, got true"),
        (_state(mark_delete=[1.0, 5]), "data.mark_delete[0]: want an integer, got 1.0"),
        (_state(mark_delete=[1]), "data.mark_delete: want a position [ledger, entry], got [1]"),
        (_state(extra=1), "data: has the unknown key(s) extra; a recovered state has mark_delete, acked, batch"),
        (json.dumps({"mark_delete": [1, 5]}), "data: lacks acked, batch, properties"),
    ],
)
def test_a_recovered_state_holds_integers_where_it_means_them(tmp_path, capsys, recorded, engine, data, message):
    trace, at = changed(recorded["cursor-state.jsonl"], tmp_path / "bad.jsonl", "recovered", {"data": data})
    assert f"{trace}: row {at}: field 'data': {message}" in bad(capsys, trace, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_metrics_counters_are_integers_not_booleans(tmp_path, capsys, recorded, engine):
    source = recorded["txlog-writer.jsonl"]
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    counters = json.loads(next(row for row in rows[1:] if row["kind"] == "metrics")["data"])
    name = next(name for name, count in counters.items() if count == 1 and name != "delay")
    trace, at = changed(source, tmp_path / "bad.jsonl", "metrics", {"data": json.dumps({**counters, name: True})})
    assert f"{trace}: row {at}: field 'data': data.{name}: want an integer, got true" in bad(capsys, trace, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_boolean_top_level_integer_field_is_bad_input(tmp_path, capsys, recorded, engine):
    """``"entry": true`` was refused already (``_typed``); kept here beside the checks inside ``data``."""
    trace, _ = changed(recorded["cursor-state.jsonl"], tmp_path / "bad.jsonl", "ack", {"entry": True})
    assert "field 'entry': expected int64, got True" in bad(capsys, trace, engine)
