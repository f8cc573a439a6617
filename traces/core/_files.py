"""What every system's trace files share: the format's name and version, file names and formats, the JSON lines.

A trace is a Parquet file, a folder of Parquet files (a dataset, its header in ``_ledgerspec.json``) or
a JSON-lines file; its header names the format, the version and, for a system other than the default,
the system (traces/FORMAT.md). Each system's reader (``traces/<system>/``) reads its own columns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ledgerspec.traces._errors import TraceInputError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


FORMAT = "ledgerspec-trace"


VERSION = 1


def is_this_format(header: Any) -> bool:
    """Whether a header names this format and version (``true`` or ``1.0`` is not the version 1)."""
    if not isinstance(header, dict):
        return False
    version = header.get("version")
    return header.get("format") == FORMAT and type(version) is int and version == VERSION


BATCH_ROWS = 1 << 16
"""Rows per Arrow batch, for both engines' replays: large batches amortize the per-batch conversion."""


DATASET_HEADER = "_ledgerspec.json"
"""In a dataset directory, the header for writers that cannot put it in the Parquet footer (Spark)."""


HEADER_KEYS = frozenset({"format", "version", "profile", "config", "description", "system"})
"""A cache trace header's keys (``system``: ``cache``, or left out)."""


PREFIXES = ("parquet", "jsonl")


SUFFIX_FORMATS = {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}
"""The format a trace file's extension names, when no prefix names one."""


UNKNOWN_FORMAT = "unknown trace format; name it .parquet or .jsonl"


def parse_spec(spec: str | Path) -> tuple[str | None, Path]:
    """The format a path names by its prefix (None: none given) and the path itself."""
    text = str(spec)
    for prefix in PREFIXES:
        if text.startswith(f"{prefix}:"):
            return prefix, Path(text[len(prefix) + 1 :])
    return None, Path(text)


def refuse_unknown_keys(header: dict[str, Any], known: frozenset[str], where: str) -> None:
    """Refuse a header key the format does not have.

    A misplaced field (say ``track_reads`` beside ``config``, not in it) would be ignored, and the check
    would run on another configuration than the one meant.
    """
    unknown = sorted(set(header) - known)
    if unknown:
        raise TraceInputError(f"{where}: unknown header key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def dataset_files(directory: Path) -> tuple[Path, ...]:
    """A dataset's part files in name order: every file but those whose name starts with ``_`` or ``.``.

    That is what Spark and Hive skip too: ``_SUCCESS``, ``_committed_*``, ``.part-0.crc``. A
    subdirectory (a partitioned dataset, ``broker=b1/``) would take columns out of the files: refused.
    """
    entries = sorted(directory.iterdir())
    nested = [entry.name for entry in entries if entry.is_dir() and not entry.name.startswith(("_", "."))]
    if nested:
        raise TraceInputError(f"{directory}: subdirectories {', '.join(nested)}; a dataset must be flat")
    files = tuple(entry for entry in entries if entry.is_file() and not entry.name.startswith(("_", ".")))
    if not files:
        raise TraceInputError(f"{directory}: a directory with no Parquet part files")
    empty = [path.name for path in files if path.stat().st_size == 0]
    if empty:
        raise TraceInputError(f"{directory / empty[0]}: the file is empty")
    return files


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate: valid in a pair, but one alone decodes to no Unicode text."""


def _text(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TraceInputError(
            f"{where}: not UTF-8 (byte 0x{raw[error.start]:02x} at column {error.start + 1})"
        ) from None


def _open(path: Path) -> IO[bytes]:
    try:
        return path.open("rb")
    except OSError as error:
        raise TraceInputError(f"{path}: cannot read: {error.strerror}") from None


def _loads(line: str, where: str) -> Any:
    """A line's JSON; a lone surrogate escape (backslash, ``ud800``) is no text UTF-8 can hold: bad input."""
    data = json.loads(line)
    if _SURROGATE.search(line):
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as error:
            raise TraceInputError(
                f"{where}: a lone UTF-16 surrogate escape ({error.object[error.start]!r}) is not Unicode text"
            ) from None
    return data


def jsonl_header(path: Path) -> Any:
    """The first line, parsed (the caller checks what it says)."""
    with _open(path) as stream:
        first = stream.readline()
    if not first:
        raise TraceInputError(f"{path}: the file is empty")
    try:
        return _loads(_text(first, f"{path}: line 1"), f"{path}: line 1 (the header)")
    except json.JSONDecodeError as error:
        raise TraceInputError(f"{path}: line 1 (the header): invalid JSON: {error.msg}") from None


def jsonl_objects(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, object) of each event line after the header; blank lines skipped.

    ``where`` names the file, the line and the row (the event's index from 0, as every other check
    numbers it). Not UTF-8, bad JSON, or anything but an object (``null``, a number, a list) is bad
    input named so: a line that is not an event must not pass for one, or vanish.
    """
    with _open(path) as stream:
        stream.readline()
        row = 0
        for number, raw in enumerate(stream, start=2):
            where = f"{path}: line {number} (row {row})"
            line = _text(raw, where)
            if not line.strip():
                continue
            try:
                data = _loads(line.rstrip("\r\n"), where)  # a column of this line, not of the next
            except json.JSONDecodeError as error:
                raise TraceInputError(f"{where}: invalid JSON: {error.msg} (column {error.colno})") from None
            if not isinstance(data, dict):
                raise TraceInputError(f"{where}: an event must be a JSON object, got {_shown(data)}")
            yield where, data
            row += 1


def jsonl_lines(path: Path, rows: Iterable[int]) -> dict[int, int]:
    """The file line (from 1, the header's) of each of these rows (events, from 0), as :func:`jsonl_objects` counts.

    For reports on a checked trace: a reader opens the file at the line, the checks number the event.
    """
    wanted, found = set(rows), dict[int, int]()
    if not wanted:
        return found
    with _open(path) as stream:
        stream.readline()
        row = 0
        for number, raw in enumerate(stream, start=2):
            if not raw.decode("utf-8", errors="replace").strip():
                continue
            if row in wanted:
                found[row] = number
                if len(found) == len(wanted):
                    break
            row += 1
    return found


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def int64_problem(value: int) -> str | None:
    """Why an integer cannot be an int64 (None if it can), as every reader says it."""
    if INT64_MIN <= value <= INT64_MAX:
        return None
    return f"{value} is outside the int64 range [{INT64_MIN}, {INT64_MAX}]"
