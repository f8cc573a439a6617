"""Recorded cursor-state and txlog-writer histories agree with conformance on the Spark engine too
(tests/quality/test_sys_trace_agreement.py is the local side): every reference and mutant is recorded
(tests/quality/sys_recorded.py); the recordings of one system, profile, configuration and set of
recorded kinds are put together as the brokers of one file; for each broker the Spark engine's first
violation is conform's on the same steps (or none), UNKNOWN names what is missing, and the whole report
equals the local engine's. Bad input gets the same error from both engines.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.cache._spark import spark_session
from ledgerspec.traces.lockstep import _check as _sys_check
from ledgerspec.traces.lockstep._check import check_system

pytestmark = pytest.mark.slow

_PATH = Path(__file__).resolve().parents[1] / "quality" / "sys_recorded.py"
_SPEC = importlib.util.spec_from_file_location("_ledgerspec_sys_recorded", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
recorded = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = recorded
_SPEC.loader.exec_module(recorded)


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[2]")


@pytest.fixture(scope="module")
def groups(tmp_path_factory):
    """Recordings grouped by (system, profile, config, omitted kinds): one trace file each."""
    directory = tmp_path_factory.mktemp("sys-recorded")
    found: dict[tuple, list] = {}
    for candidate in recorded.CANDIDATES:
        for recording in recorded.record_all(candidate, directory):
            key = (candidate.system, candidate.profile, json.dumps(recording.config.to_dict()), recording.omit)
            found.setdefault(key, []).append(recording)
    return found


def together(recordings, path: Path) -> Path:
    """One JSON-lines trace whose brokers are the recordings (each recording is one history)."""
    from ledgerspec.traces.lockstep._io import SystemTraceWriter, read_system_trace

    first = read_system_trace(str(recordings[0].path))
    writer = SystemTraceWriter(path, first.header)
    for number, recording in enumerate(recordings):
        for row in read_system_trace(str(recording.path)).rows:
            writer.write({**{k: v for k, v in row.items() if k != "row"}, "broker": f"r{number}"})
    writer.close()
    return path


def comparable(result) -> dict:
    report = result.to_dict()
    del report["engine"], report["seconds"]
    return report


def test_spark_verdicts_equal_conform_and_the_local_engine(spark, groups, tmp_path, monkeypatch):
    monkeypatch.setattr(_sys_check, "KEEP_PER_INVARIANT", 10**9)  # every broker's first violation is listed
    for number, recordings in enumerate(groups.values()):
        path = together(recordings, tmp_path / f"g{number}.jsonl")
        remote = check_system(str(path), engine="spark", spark=spark)
        assert comparable(remote) == comparable(check_system(str(path))), path
        for index, recording in enumerate(recordings):
            expected, unknown = recording.expected()
            assert remote.unknown == unknown + recorded.unjudged_after(path, recording.candidate.system, remote)
            mine = [v for v in remote.violations if v.broker == f"r{index}"]
            got = (mine[0].invariant, mine[0].message) if mine else None
            assert got == expected, (recording.path.name, got, expected)
        if not any(r.expected()[0] for r in recordings):
            assert remote.verdict == (Verdict.UNKNOWN if remote.unknown else Verdict.OK)


def test_bad_input_gets_the_same_error_from_both_engines(spark, groups, tmp_path):
    recording = next(iter(groups.values()))[0]
    header, *events = (json.loads(line) for line in recording.path.read_text().splitlines())
    bad = {
        "kind": [header, *events[:2], {**events[2], "kind": "nonsense"}, *events[3:]],
        "seq": [header, *events[:2], {**events[2], "seq": events[1]["seq"]}, *events[3:]],
        "time": [header, *events[:2], {**events[2], "time": -1}, *events[3:]],
    }
    for name, rows in bad.items():
        path = tmp_path / f"bad-{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        messages = []
        for engine in ("local", "spark"):
            with pytest.raises(TraceInputError) as caught:
                check_system(str(path), engine=engine, spark=spark)
            messages.append(str(caught.value))
        assert messages[0] == messages[1], name
        assert f"{path}: row 2" in messages[0], messages[0]


def test_a_cut_history_gets_the_same_unknown_from_both_engines(spark, groups, tmp_path):
    """A history cut inside its last operation (no ``end`` after it) is not judged, on either engine."""
    references = ([x for x in r if not x.candidate.mutant] for r in groups.values())
    recordings = next(r for r in references if len(r) > 1 and not any(x.expected()[0] for x in r))
    whole = together(recordings, tmp_path / "whole.jsonl")
    header, *rows = (json.loads(line) for line in whole.read_text().splitlines())
    last = max(i for i, row in enumerate(rows) if row["broker"] == "r0")
    assert rows[last]["kind"] == "end"
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in [header, *rows[:last], *rows[last + 1 :]]))
    reports = [comparable(check_system(str(path), engine=e, spark=spark)) for e in ("local", "spark")]
    assert reports[0] == reports[1]
    assert reports[0]["verdict"] == Verdict.UNKNOWN
    assert [u for u in reports[0]["unknown"] if u.startswith("history 'r0' ends inside its ")], reports[0]["unknown"]


def spark_dataset(spark, trace: Path, directory: Path) -> Path:
    """The trace's rows as a dataset directory written by Spark (part files, ``_SUCCESS``).

    The header goes in ``_ledgerspec.json`` beside them (Spark cannot set Parquet metadata).
    """
    import pyarrow as pa
    from ledgerspec.traces.lockstep._io import COLUMNS, SYSTEM_SCHEMA, read_system_trace

    read = read_system_trace(str(trace))
    table = pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in read.rows], schema=SYSTEM_SCHEMA)
    # a DataFrame made from local data keeps its row order across its partitions: part-00000 holds the first rows
    spark.createDataFrame(table).write.parquet(str(directory))
    (directory / "_ledgerspec.json").write_text(json.dumps(read.header.to_dict()))
    return directory


def test_parquet_files_and_spark_written_datasets_give_the_same_report(spark, groups, tmp_path):
    """The executors read a Parquet trace (a file or a dataset directory) themselves.

    The same report as the JSON lines the driver reads, on both engines, for a violating and a passing
    group of each system.
    """
    chosen: dict[tuple[str, bool], list] = {}
    for recordings in groups.values():
        violating = any(r.expected()[0] for r in recordings)
        chosen.setdefault((recordings[0].candidate.system, violating), recordings)
    assert len(chosen) == 4
    for number, recordings in enumerate(chosen.values()):
        jsonl = together(recordings, tmp_path / f"c{number}.jsonl")
        parquet = together(recordings, tmp_path / f"c{number}.parquet")
        dataset = spark_dataset(spark, jsonl, tmp_path / f"c{number}-dataset")
        assert len(list(dataset.glob("part-*"))) > 1
        want = comparable(check_system(str(jsonl)))
        del want["path"]
        for violation in want["violations"]:  # JSON lines give the file's line beside the row; Parquet the row
            assert violation.pop("line") == violation["row"] + 2
            violation["line"] = None
        for path in (parquet, dataset):
            for engine in ("local", "spark"):
                got = comparable(check_system(str(path), engine=engine, spark=spark))
                assert got.pop("path") == str(path)
                assert got == want, (path, engine)
