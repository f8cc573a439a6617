"""Bad trace files: both checkers raise the same TraceInputError, naming the file and (where there is
one) the row and the field; the CLI exits 2 with that message on stderr, never a traceback.

Each bad file is a small good trace (two brokers, their rows interleaved) with one thing broken.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.traces import TraceInputError
from ledgerspec.traces._format import Header
from ledgerspec.traces._generate import generate_trace
from ledgerspec.traces._io import TraceWriter
from ledgerspec.traces._local import check_local
from ledgerspec.traces._spark import check_spark, spark_session


@pytest.fixture(scope="module")
def spark():
    # The session of test_trace_engines.py when both run (neither stops it); else a new one.
    return spark_session("local[2]")


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> pa.Table:
    """A clean trace whose brokers' rows are interleaved (stable sort by seq keeps each broker's order)."""
    path = tmp_path_factory.mktemp("good") / "good.parquet"
    generate_trace(str(path), brokers=2, topics=4, events=2_000, seed=4)
    return pq.read_table(path).sort_by([("seq", "ascending")])


def row_of(table: pa.Table, kind: str, after: int = 200) -> int:
    """The first row of ``kind`` at or after ``after``."""
    return next(i for i, k in enumerate(table["kind"].to_pylist()) if i >= after and k == kind)


def previous_of_broker(table: pa.Table, row: int) -> int:
    brokers = table["broker"].to_pylist()
    return max(i for i in range(row) if brokers[i] == brokers[row])


def with_value(table: pa.Table, column: str, row: int, value) -> pa.Table:
    values = table[column].to_pylist()
    values[row] = value
    index = table.schema.get_field_index(column)
    return table.set_column(index, table.schema.field(index), pa.array(values, table.schema.field(index).type))


def header(table: pa.Table) -> dict:
    return json.loads(table.schema.metadata[b"ledgerspec"])


def write_parquet(table: pa.Table, path: Path) -> Path:
    pq.write_table(table, path)
    return path


def write_jsonl(table: pa.Table, path: Path) -> Path:
    fields = header(table)
    trace_header = Header(profile=fields["profile"], config=fields["config"], description=fields["description"])
    with TraceWriter(path, trace_header) as writer:
        writer.write_columns(table.to_pydict())
    return path


def seq_back(t: pa.Table) -> tuple[pa.Table, int]:
    row = row_of(t, "insert")
    return with_value(t, "seq", row, t["seq"][previous_of_broker(t, row)].as_py() - 1), row


def seq_repeat(t: pa.Table) -> tuple[pa.Table, int]:
    row = row_of(t, "insert")
    return with_value(t, "seq", row, t["seq"][previous_of_broker(t, row)].as_py()), row


def unknown_profile(t: pa.Table) -> pa.Table:
    return t.replace_schema_metadata({b"ledgerspec": json.dumps({**header(t), "profile": "pip999"}).encode()})


def without_pass_start(t: pa.Table) -> tuple[pa.Table, int]:
    # The first removal of the first pass that removes something is then outside any pass: a structure
    # error, raised by the replay (not by the row checks).
    brokers, kinds = t["broker"].to_pylist(), t["kind"].to_pylist()
    for start, kind in enumerate(kinds):
        if kind == "pass_start":
            following = next(i for i in range(start + 1, t.num_rows) if brokers[i] == brokers[start])
            if kinds[following] == "remove":
                return t.filter([i != start for i in range(t.num_rows)]), following - 1
    raise AssertionError("the good trace has no pass that removes entries")


Change = Callable[[pa.Table], "pa.Table | tuple[pa.Table, int]"]

PARQUET_CASES: dict[str, tuple[Change, list[str]]] = {
    "missing-column": (lambda t: t.drop_columns(["cursor"]), ["missing column(s) cursor"]),
    "extra-column": (lambda t: t.append_column("colour", pa.array([1] * t.num_rows)), ["unknown column(s) colour"]),
    "wrong-type": (
        lambda t: t.set_column(1, pa.field("seq", pa.int32()), t["seq"].cast(pa.int32())),
        ["column 'seq' has type int32, expected int64"],
    ),
    "unknown-kind": (
        lambda t: (with_value(t, "kind", row_of(t, "hit"), "teleport"), row_of(t, "hit")),
        ["field 'kind': unknown event kind 'teleport'"],
    ),
    "null-required-field": (
        lambda t: (with_value(t, "size", row_of(t, "insert"), None), row_of(t, "insert")),
        ["field 'size' is required for 'insert'"],
    ),
    "negative-size": (
        lambda t: (with_value(t, "size", row_of(t, "insert"), -5), row_of(t, "insert")),
        ["field 'size' is negative (-5)"],
    ),
    "seq-goes-back": (seq_back, ["field 'seq'", "goes back from", "for broker 'broker-"]),
    "seq-repeats": (seq_repeat, ["field 'seq'", "repeats", "for broker 'broker-"]),
    "no-metadata": (lambda t: t.replace_schema_metadata(None), ["no 'ledgerspec' key in the Parquet metadata"]),
    "unknown-profile": (unknown_profile, ["header profile 'pip999'"]),
    "remove-outside-a-pass": (without_pass_start, ["broker 'broker-", "remove with reason", "outside a pass"]),
}


def build(case: str, good: pa.Table, directory: Path) -> tuple[Path, list[str]]:
    """The bad file of ``case`` and the fragments its message must contain (besides the path)."""
    if case == "truncated":
        whole = write_parquet(good, directory / "whole.parquet").read_bytes()
        path = directory / "truncated.parquet"
        path.write_bytes(whole[: len(whole) // 2])
        return path, ["not a readable Parquet file"]
    if case == "empty":
        path = directory / "empty.parquet"
        path.write_bytes(b"")
        return path, ["the file is empty"]
    if case == "jsonl-syntax":
        path = write_jsonl(good, directory / "broken.jsonl")
        lines = path.read_text().splitlines(keepends=True)
        lines[10] = lines[10][: len(lines[10]) // 2] + "\n"
        path.write_text("".join(lines))
        return path, ["line 11: invalid JSON"]
    if case == "jsonl-unknown-kind":
        row = row_of(good, "hit")
        path = write_jsonl(with_value(good, "kind", row, "teleport"), directory / "kind.jsonl")
        return path, [f"row {row}: field 'kind': unknown event kind 'teleport'"]
    change, fragments = PARQUET_CASES[case]
    changed = change(good)
    if isinstance(changed, tuple):
        changed, row = changed
        fragments = [f"row {row}: ", *fragments]
    if changed.schema.metadata is None and case != "no-metadata":
        changed = changed.replace_schema_metadata(good.schema.metadata)
    return write_parquet(changed, directory / f"{case}.parquet"), fragments


CASES = [*PARQUET_CASES, "truncated", "empty", "jsonl-syntax", "jsonl-unknown-kind"]


@pytest.fixture(scope="module")
def good_parquet(good, tmp_path_factory) -> Path:
    return write_parquet(good, tmp_path_factory.mktemp("good") / "interleaved.parquet")


def test_the_good_trace_is_ok_in_both(spark, good_parquet):
    local, remote = check_local(good_parquet), check_spark(good_parquet, spark=spark)
    assert local.verdict == remote.verdict == "OK"
    assert local.brokers == remote.brokers == 2


@pytest.mark.parametrize("case", CASES)
def test_both_engines_raise_the_same_input_error(spark, good, tmp_path, case):
    path, fragments = build(case, good, tmp_path)
    with pytest.raises(TraceInputError) as local:
        check_local(path)
    with pytest.raises(TraceInputError) as remote:
        check_spark(path, spark=spark)
    message = str(local.value)
    assert str(remote.value) == message
    assert message.startswith(f"{path}: ")
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize(
    "run",
    [
        (case, engine)
        for case in ("null-required-field", "seq-repeats", "truncated", "jsonl-syntax")
        for engine in ("local", "spark")
    ],
    ids="-".join,
)
def test_the_cli_exits_2_with_the_message_and_no_traceback(spark, good, tmp_path, capsys, run):
    case, engine = run
    path, fragments = build(case, good, tmp_path)
    status = main(["traces", "check", "--engine", engine, str(path)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith(f"error[trace-input-error]: {path}: ")
    assert all(fragment in captured.err for fragment in fragments)
    assert "Traceback" not in captured.err + captured.out
    assert "Py4J" not in captured.err + captured.out


def test_the_cli_process_exits_2_without_a_traceback(good, tmp_path):
    path, fragments = build("negative-size", good, tmp_path)
    command = [sys.executable, "-m", "ledgerspec.conformance.cli", "traces", "check", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error[trace-input-error]: {path}: ")
    assert all(fragment in done.stderr for fragment in fragments)
    assert "Traceback" not in done.stderr
