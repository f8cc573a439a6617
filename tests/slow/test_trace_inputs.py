"""Where traces come from: odd paths, Parquet datasets, several files at once, and a quiet terminal.

Each case runs on both engines, which must agree: a path with ``:`` in it, a dataset directory as
Spark and pyarrow write one, several files with different verdicts (every file checked, the exit
code ranked VIOLATION > ERROR > UNKNOWN > OK), and the Spark engine's JVM staying off the terminal.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._inject import injectable
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._spark import check_spark, spark_session
from ledgerspec.traces.core._files import DATASET_HEADER

ENGINES = ("local", "spark")


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[2]")


@pytest.fixture(scope="module")
def bad_parquet(tmp_path_factory) -> Path:
    """A trace with a violation of every invariant its profile claims, and so violations in several brokers."""
    path = tmp_path_factory.mktemp("bad") / "bad.parquet"
    generate_trace(str(path), brokers=3, topics=6, events=6_000, seed=7, profile="pip430", inject=injectable("pip430"))
    return path


def comparable(result) -> dict:
    report = result.to_dict()
    del report["engine"], report["seconds"], report["path"]
    return report


def check(engine: str, path: Path | str, spark):
    return check_local(path) if engine == "local" else check_spark(path, spark=spark)


# --- paths ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_paths_with_colons_are_read_by_both_engines(spark, bad_parquet, tmp_path, engine):
    expected = comparable(check_local(bad_parquet))
    folder = tmp_path / "runs:2024-01-01"
    folder.mkdir()
    named = folder / "broker:0.parquet"  # a colon in a folder and in the file name
    shutil.copy(bad_parquet, named)
    odd = tmp_path / "parquet:odd.parquet"  # a name that starts like the format prefix
    shutil.copy(bad_parquet, odd)
    for spec in (named, f"parquet:{named}", f"{tmp_path}/./parquet:odd.parquet", f"parquet:{odd}"):
        result = check(engine, spec, spark)
        assert comparable(result) == expected, spec


@pytest.mark.parametrize("engine", ENGINES)
def test_a_leading_format_prefix_always_names_the_format(spark, bad_parquet, tmp_path, engine):
    # "jsonl:" forces JSON lines on a Parquet file: its first line is not a JSON header.
    with pytest.raises(Exception, match=r"line 1 \(the header\): invalid JSON|not UTF-8"):
        check(engine, f"jsonl:{bad_parquet}", spark)
    with pytest.raises(Exception, match="no such file or directory"):
        check(engine, f"parquet:{tmp_path / 'missing'}", spark)


# --- datasets ---------------------------------------------------------------------------------------


def spark_dataset(spark, source: Path, directory: Path, parts: int) -> Path:
    """``source`` written by Spark as ``parts`` part files in row order (part-00000-..., _SUCCESS), header beside."""
    table = pq.read_table(source)
    numbered = table.replace_schema_metadata(None).append_column("n", pa.array(range(table.num_rows), pa.int64()))
    frame = spark.createDataFrame(numbered).repartitionByRange(parts, "n").sortWithinPartitions("n").drop("n")
    frame.write.parquet(str(directory))
    assert (directory / "_SUCCESS").exists()
    (directory / DATASET_HEADER).write_text(table.schema.metadata[b"ledgerspec"].decode())
    return directory


def pyarrow_dataset(source: Path, directory: Path, parts: int) -> Path:
    """``source`` split into ``parts`` files, each with the header in its footer, and a _SUCCESS marker."""
    table = pq.read_table(source)
    directory.mkdir()
    size = -(-table.num_rows // parts)
    for part in range(parts):
        pq.write_table(table.slice(part * size, size), directory / f"part-{part:05d}.parquet", row_group_size=700)
    (directory / "_SUCCESS").write_text("")
    (directory / ".part-00000.parquet.crc").write_bytes(b"\0")
    return directory


@pytest.mark.parametrize("writer", ["spark", "pyarrow"])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_dataset_directory_is_one_trace(spark, bad_parquet, tmp_path, writer, engine):
    directory = (
        spark_dataset(spark, bad_parquet, tmp_path / "t.parquet", 3)
        if writer == "spark"
        else pyarrow_dataset(bad_parquet, tmp_path / "t.parquet", 3)
    )
    assert len([p for p in directory.iterdir() if p.name.startswith("part-")]) >= 3
    result = check(engine, directory, spark)
    # Same verdict, counts and violations, with the same rows, as the single file.
    assert comparable(result) == comparable(check_local(bad_parquet))
    assert result.verdict == "VIOLATION"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_dataset_without_a_header_or_with_two_is_bad_input(spark, bad_parquet, tmp_path, engine):
    directory = pyarrow_dataset(bad_parquet, tmp_path / "d", 2)
    (directory / DATASET_HEADER).write_text("{}")
    with pytest.raises(Exception, match=f"a header in both {DATASET_HEADER} and the part files"):
        check(engine, directory, spark)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    with pytest.raises(Exception, match="a directory with no Parquet part files"):
        check(engine, empty, spark)


# --- several files ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory, bad_parquet) -> dict[str, Path]:
    """One trace per verdict: OK, VIOLATION, UNKNOWN (ends inside a pass), ERROR (a negative size)."""
    directory = tmp_path_factory.mktemp("several")
    ok = Path(generate_trace(str(directory / "ok.jsonl"), brokers=2, topics=4, events=2_000, seed=1).path)
    lines = ok.read_text().splitlines(keepends=True)
    last_start = max(i for i, line in enumerate(lines) if '"pass_start"' in line)
    unknown = directory / "unknown.jsonl"
    unknown.write_text("".join(lines[: last_start + 1]))
    event = json.loads(lines[5])
    bad = directory / "bad.jsonl"
    bad.write_text("".join([*lines[:5], json.dumps({**event, "size": -1}) + "\n", *lines[6:]]))
    return {"OK": ok, "VIOLATION": bad_parquet, "UNKNOWN": unknown, "ERROR": bad}


@pytest.mark.parametrize(
    ("verdicts", "status"),
    [
        (["VIOLATION", "UNKNOWN"], 1),
        (["UNKNOWN", "VIOLATION"], 1),
        (["ERROR", "VIOLATION", "UNKNOWN", "OK"], 1),
        (["UNKNOWN", "ERROR", "OK"], 2),
        (["OK", "UNKNOWN"], 3),
        (["OK", "OK"], 0),
    ],
    ids=lambda value: "-".join(value) if isinstance(value, list) else str(value),
)
@pytest.mark.parametrize("engine", ENGINES)
def test_every_file_is_checked_and_the_exit_code_ranks_violation_first(
    spark, files, tmp_path, capsys, engine, verdicts, status
):
    del spark  # started once for the module: the CLI gets the same session back
    report = tmp_path / "report.json"
    paths = [str(files[verdict]) for verdict in verdicts]
    assert main(["traces", "check", "--engine", engine, "--json", str(report), *paths]) == status
    out = capsys.readouterr()
    body = json.loads(report.read_text())
    body = body if isinstance(body, list) else [body]
    assert [entry["verdict"] for entry in body] == verdicts
    assert [entry["path"] for entry in body] == paths
    for verdict, path in zip(verdicts, paths, strict=True):
        assert re.search(rf"^{verdict}: {re.escape(path)} ", out.out, re.MULTILINE), (verdict, out.out)
    if "ERROR" in verdicts:
        assert f"error[trace-input-error]: {files['ERROR']}: row 4: field 'size' is negative (-1)" in out.err
    assert "Traceback" not in out.out + out.err


# --- a quiet terminal -------------------------------------------------------------------------------------

JVM_NOISE = re.compile(
    r"WARN|INFO|log4j|Setting default log level|setLogLevel|incubator|NativeCodeLoader|SparkContext|"
    r"Exception|^\s+at |^\d\d:\d\d:\d\d |^\d\d/\d\d/\d\d |py4j|Py4J|Stage \d",
    re.MULTILINE,
)


def test_spark_keeps_its_log_off_the_terminal(files, bad_parquet, tmp_path):
    corrupt = tmp_path / "corrupt.parquet"
    pq.write_table(pq.read_table(bad_parquet), corrupt, row_group_size=500)
    column = pq.read_metadata(corrupt).row_group(1).column(4)
    data = bytearray(corrupt.read_bytes())
    data[column.data_page_offset + 4 : column.data_page_offset + 40] = b"\xff" * 36
    corrupt.write_bytes(bytes(data))
    command = [
        sys.executable,
        "-m",
        "ledgerspec.conformance.cli",
        "traces",
        "check",
        "--engine",
        "spark",
        "--master",
        "local[2]",
        str(files["OK"]),
        str(bad_parquet),
        str(corrupt),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert JVM_NOISE.search(done.stdout) is None, done.stdout
    assert JVM_NOISE.search(done.stderr) is None, done.stderr
    assert done.stderr.startswith(f"error[trace-input-error]: {corrupt}: row group 1 (rows 500 to 999 of the file)")
    assert f"OK: {files['OK']} " in done.stdout
    assert f"VIOLATION: {bad_parquet} " in done.stdout


SAMPLE = str(Path(__file__).resolve().parents[2] / "traces" / "samples" / "pulsar-master-ok.parquet")


def test_a_master_the_jvm_refuses_is_one_line_naming_it():
    """A master URL that passes the first test and that Spark's JVM refuses: the JVM's reason, no Java trace."""
    command = [sys.executable, "-m", "ledgerspec.conformance.cli", "traces", "check", SAMPLE, "--engine", "spark"]
    command += ["--master", "local[x]"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        "error[input-error]: --master local[x]: Spark could not start or reach it: "
        "org.apache.spark.SparkException: Could not parse Master URL: 'local[x]' (the JVM's log: "
    ), done.stderr
    assert len(done.stderr.splitlines()) == 2
    assert done.stdout == ""
