"""One JSON-lines reader for every trace (issue 17): a bad line is the same error in a cache and a system trace.

The system reader once had its own copy, which skipped a ``null`` line and said less about bad bytes and
huge integers. Now both call ``traces/cache/_jsonl.py``: the same line gives the same message, naming the file
and the line, whichever trace holds it and whichever engine is asked (a system trace is read before
either engine runs; the cache's Spark engine is compared in tests/slow/test_trace_bad_input.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.traces import TraceInputError
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.lockstep._check import check_system

BAD_LINES = {
    "null": (b"null", "line 3 (row 1): an event must be a JSON object, got null"),
    "a list": (b"[1, 2]", "line 3 (row 1): an event must be a JSON object, got [1, 2]"),
    "a number": (b"7", "line 3 (row 1): an event must be a JSON object, got 7"),
    "bad JSON": (b'{"kind": oops}', "line 3 (row 1): invalid JSON: Expecting value (column 10)"),
    "a cut line": (b'{"broker":"broker-0"', "line 3 (row 1): invalid JSON: Expecting ',' delimiter (column 21)"),
    "not UTF-8": (b'{"broker": "br\xf6ker"}', "line 3 (row 1): not UTF-8 (byte 0xf6 at column 15)"),
    "a lone surrogate": (  # JSON can escape it; no UTF-8 text holds it (Spark's encoder once crashed on it)
        b'{"broker": "b\\ud800"}',
        "line 3 (row 1): a lone UTF-16 surrogate escape ('\\ud800') is not Unicode text",
    ),
    "huge seq": (
        b'{"seq": 9223372036854775808}',
        "line 3 (row 1): field 'seq': 9223372036854775808 is outside the int64 range",
    ),
}


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small recorded trace of the cache and of a lockstep system."""
    folder = tmp_path_factory.mktemp("good")
    argv = {
        "cache": ["--adapter", "reference-pip430", "--events", "40"],
        "system": ["--system", "txlog-writer", "--adapter", "reference-pip160", "--events", "20"],
    }
    for name, args in argv.items():
        assert main(["traces", "record", *args, "--out", str(folder / f"{name}.jsonl")]) == 0
    return {name: folder / f"{name}.jsonl" for name in argv}


def with_line(source: Path, target: Path, line: bytes) -> Path:
    """``source`` with ``line`` put in as its third line (after the header and the first event)."""
    lines = source.read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join([*lines[:2], line + b"\n", *lines[2:]]))
    return target


def error_of(check: object, path: Path) -> str:
    with pytest.raises(TraceInputError) as raised:
        check(str(path))  # type: ignore[operator]
    return str(raised.value).replace(str(path), "<path>")


@pytest.mark.parametrize("case", BAD_LINES)
def test_a_bad_line_is_the_same_error_in_a_cache_and_a_system_trace(tmp_path, good, case):
    line, message = BAD_LINES[case]
    cache = with_line(good["cache"], tmp_path / "cache.jsonl", line)
    system = with_line(good["system"], tmp_path / "system.jsonl", line)
    cache_error = error_of(check_local, cache)
    assert cache_error.startswith(f"<path>: {message}"), cache_error
    assert error_of(check_system, system) == cache_error
    assert error_of(lambda path: check_system(path, engine="spark"), system) == cache_error


def test_a_blank_line_is_skipped_in_both(tmp_path, good):
    assert check_local(str(with_line(good["cache"], tmp_path / "cache.jsonl", b"  "))).verdict == "OK"
    assert check_system(str(with_line(good["system"], tmp_path / "system.jsonl", b""))).verdict == "OK"


def test_a_null_line_fails_the_command_naming_file_and_line(tmp_path, good, capsys):
    """It was skipped in a system trace: a check of fewer events than the file holds, said to be OK."""
    system = with_line(good["system"], tmp_path / "system.jsonl", b"null")
    assert main(["traces", "check", str(system)]) == 2
    assert f"{system}: line 3 (row 1): an event must be a JSON object, got null" in capsys.readouterr().err


def test_an_empty_or_missing_system_trace_is_named(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert error_of(check_system, empty) == "<path>: the file is empty"
    assert error_of(check_system, tmp_path / "missing.jsonl").startswith("<path>: ")


def test_a_bad_line_names_its_row_as_the_row_checks_count_them(tmp_path, good):
    """Blank lines move the line number, not the row: the event's index from 0, which the row checks
    and the violations name."""
    lines = good["cache"].read_bytes().splitlines(keepends=True)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"".join([*lines[:2], b"\n", b"  \n", b"null\n", *lines[2:]]))
    assert error_of(check_local, path) == "<path>: line 5 (row 1): an event must be a JSON object, got null"
    negative = json.loads(lines[3])
    negative["seq"] = -1
    path.write_bytes(b"".join([*lines[:2], b"\n", lines[2], json.dumps(negative).encode() + b"\n", *lines[4:]]))
    assert error_of(check_local, path).startswith("<path>: row 2: field 'seq': -1 ")


@pytest.mark.parametrize("version", [True, 1.0, "1"])
@pytest.mark.parametrize("kind", ["cache", "system"])
def test_a_version_that_only_compares_equal_to_1_is_not_version_1(tmp_path, good, kind, version):
    """``true == 1`` and ``1.0 == 1`` in Python: such headers were read as version 1."""
    lines = good[kind].read_text().splitlines()
    header = {**json.loads(lines[0]), "version": version}
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert "not a ledgerspec-trace version 1 trace" in error_of(check_local if kind == "cache" else check_system, path)
