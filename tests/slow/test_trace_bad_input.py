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
from ledgerspec.traces.cache._format import SCHEMA, Header, event
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._io import TraceWriter
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._spark import check_spark, spark_session


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


def nullable_with_null(column: str) -> Callable[[pa.Table], tuple[pa.Table, int]]:
    """A file whose schema lets every column be null (as many writers make it), with a null in ``column``."""

    def change(t: pa.Table) -> tuple[pa.Table, int]:
        nullable = pa.schema([f.with_nullable(True) for f in t.schema], metadata=t.schema.metadata)
        row = row_of(t, "insert")
        return with_value(t.cast(nullable), column, row, None), row

    return change


def time_back(t: pa.Table) -> tuple[pa.Table, int]:
    row = row_of(t, "insert")
    return with_value(t, "time", row, t["time"][previous_of_broker(t, row)].as_py() - 1), row


def config_event(value: float, reason: str = "max_size") -> Callable[[pa.Table], tuple[pa.Table, int]]:
    """A cursor_seek turned into a config event setting ``reason`` to ``value``."""

    def change(t: pa.Table) -> tuple[pa.Table, int]:
        row = row_of(t, "cursor_seek")
        for column, new in {"kind": "config", "reason": reason, "value": value}.items():
            t = with_value(t, column, row, new)
        for column in ("ledger", "entry", "cursor"):
            t = with_value(t, column, row, None)
        return t, row

    return change


def segments_past_the_limit(t: pa.Table) -> tuple[pa.Table, int]:
    """1 MiB segments in the header (64 of them), then a config event making 9536: valid each alone."""
    t, row = config_event(1e10)(t)
    config = {**header(t)["config"], "segment_size_max": 1024 * 1024}
    return t.replace_schema_metadata({b"ledgerspec": json.dumps({**header(t), "config": config}).encode()}), row


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
    "misplaced-header-key": (  # beside config, not in it: ignored, it would leave tracking on unseen
        lambda t: t.replace_schema_metadata({b"ledgerspec": json.dumps({**header(t), "track_reads": False}).encode()}),
        ["unknown header key(s) track_reads; known: config, description"],
    ),
    "remove-outside-a-pass": (without_pass_start, ["broker 'broker-", "remove with reason", "outside a pass"]),
    "nullable-schema-null-broker": (nullable_with_null("broker"), ["field 'broker' is null"]),
    "nullable-schema-null-seq": (nullable_with_null("seq"), ["field 'seq' is null"]),
    "nullable-schema-null-time": (nullable_with_null("time"), ["field 'time' is null"]),
    "nullable-schema-null-kind": (nullable_with_null("kind"), ["field 'kind' is null"]),
    "negative-time": (
        lambda t: (with_value(t, "time", row_of(t, "insert"), -5), row_of(t, "insert")),
        ["field 'time' is negative (-5)"],
    ),
    "time-goes-back": (time_back, ["field 'time'", "goes back from", "for broker 'broker-"]),
    "config-nan": (config_event(float("nan")), ["field 'value': expected an int >= 0 for max_size, got nan"]),
    "config-infinity": (config_event(float("inf")), ["field 'value': expected an int >= 0 for max_size, got inf"]),
    "config-negative": (config_event(-1.0, "ttl"), ["field 'value': expected an int >= 0 for ttl, got -1"]),
    "config-fraction-of-a-count": (
        config_event(2.5, "max_requeue"),
        ["field 'value': expected an int >= 0 for max_requeue, got 2.5"],
    ),
    "config-watermark-nan": (
        config_event(float("nan"), "watermark"),
        ["field 'value': expected a number in [0, 1] for watermark, got nan"],
    ),
    "config-too-many-segments": (
        segments_past_the_limit,
        ["max_size 10000000000 over segment_size_max 1048576 makes 9536 ReadCache segments; at most 4096"],
    ),
    "config-extend-ttl-not-a-flag": (
        config_event(2.0, "extend_ttl"),
        ["field 'value': expected 1.0 or 0.0 for extend_ttl, got 2.0"],
    ),
}


def build(case: str, good: pa.Table, directory: Path) -> tuple[Path, list[str]]:  # noqa: C901, PLR0911 - one branch per bad input it writes
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
        return path, ["line 11 (row 9): invalid JSON"]
    if case == "jsonl-unknown-kind":
        row = row_of(good, "hit")
        path = write_jsonl(with_value(good, "kind", row, "teleport"), directory / "kind.jsonl")
        return path, [f"row {row}: field 'kind': unknown event kind 'teleport'"]
    if case == "jsonl-not-utf8":
        path = write_jsonl(good, directory / "latin1.jsonl")
        lines = path.read_bytes().splitlines(keepends=True)
        lines[12] = lines[12].replace(b'"broker-', b'"br\xf6ker-', 1)  # Latin-1, not UTF-8
        path.write_bytes(b"".join(lines))
        return path, ["line 13 (row 11): not UTF-8 (byte 0xf6 at column"]
    if case == "jsonl-int64-overflow":
        path = write_jsonl(good, directory / "huge.jsonl")
        lines = path.read_text().splitlines(keepends=True)
        event = json.loads(lines[20])
        lines[20] = json.dumps({**event, "seq": 2**63}) + "\n"
        path.write_text("".join(lines))
        return path, ["line 21 (row 19): field 'seq': 9223372036854775808 is outside the int64 range"]
    if case == "jsonl-null-line":
        path = write_jsonl(good, directory / "null.jsonl")
        lines = path.read_text().splitlines(keepends=True)
        lines[7] = "null\n"  # not an event: never skipped, in a cache trace as in a system trace (issue 17)
        path.write_text("".join(lines))
        return path, ["line 8 (row 6): an event must be a JSON object, got null"]
    if case == "corrupt-page":
        path = write_parquet(good, directory / "pages.parquet")
        pq.write_table(good, path, row_group_size=500)
        column = pq.read_metadata(path).row_group(2).column(4)
        data = bytearray(path.read_bytes())
        data[column.data_page_offset + 4 : column.data_page_offset + 40] = b"\xff" * 36
        path.write_bytes(bytes(data))
        return path, ["row group 2 (rows 1000 to 1499 of the file): the Parquet data cannot be read"]
    if case == "corrupt-dictionary-index":
        return _corrupt_dictionary_index(good, directory / "indices.parquet")
    change, fragments = PARQUET_CASES[case]
    changed = change(good)
    if isinstance(changed, tuple):
        changed, row = changed
        fragments = [f"row {row}: ", *fragments]
    if changed.schema.metadata is None and case != "no-metadata":
        changed = changed.replace_schema_metadata(good.schema.metadata)
    return write_parquet(changed, directory / f"{case}.parquet"), fragments


def _corrupt_dictionary_index(good: pa.Table, path: Path) -> tuple[Path, list[str]]:
    """Broker indices one past a three-name dictionary, in the middle of an uncompressed page.

    Read as strings, pyarrow raises; read as a dictionary (the local checker's read), it does not,
    and the rows would belong to no broker: the local checker checks the indices.
    """
    rows = [event(broker=b, seq=0, time=0, kind="insert", ledger=1, entry=0, size=10, timestamp=0) for b in "abc"]
    rows += [event(broker=b, seq=i, time=i, kind="size_sample", size=10) for i in range(1, 600) for b in "abc"]
    table = pa.Table.from_pylist(rows, schema=SCHEMA.with_metadata(good.schema.metadata))
    pq.write_table(table, path, compression="NONE")
    column = pq.read_metadata(path).row_group(0).column(0)
    data = bytearray(path.read_bytes())
    middle = column.data_page_offset + column.total_compressed_size // 2
    data[middle : middle + 8] = b"\xff" * 8  # 2-bit indices: 3, where the dictionary has 0 to 2
    path.write_bytes(bytes(data))
    return path, ["row group 0 (rows 0 to 1799 of the file): the Parquet data cannot be read"]


CASES = [
    *PARQUET_CASES,
    "truncated",
    "empty",
    "jsonl-syntax",
    "jsonl-unknown-kind",
    "jsonl-not-utf8",
    "jsonl-int64-overflow",
    "jsonl-null-line",
    "corrupt-page",
    "corrupt-dictionary-index",
]


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


@pytest.mark.parametrize("case", ["negative-time", "time-goes-back", "config-nan", "config-infinity"])
def test_row_checks_of_json_lines_match_between_engines(spark, good, tmp_path, case):
    change, fragments = PARQUET_CASES[case]
    changed, row = change(good)
    path = write_jsonl(changed, tmp_path / f"{case}.jsonl")
    with pytest.raises(TraceInputError) as local:
        check_local(path)
    with pytest.raises(TraceInputError) as remote:
        check_spark(path, spark=spark)
    assert str(remote.value) == str(local.value)
    assert str(local.value).startswith(f"{path}: row {row}: ")
    assert all(fragment in str(local.value) for fragment in fragments)
