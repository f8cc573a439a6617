"""Reading a JSON-lines trace: the header line, then one event object per line, as Arrow batches.

Each line is decoded and typed here, so that every problem names the file, the line and the field: bytes
that are not UTF-8, bad JSON, a line that is not an object (``null`` too), a field of the wrong type, an
integer outside int64. The events' meaning (kinds, required fields, signs, order) is checked afterwards
by the row checks both engines share (``_rows.py``). Lines are read as bytes: a decoding error then names
its line instead of escaping from the file object's iterator.

The line reader (``jsonl_header``, ``jsonl_objects``, ``int64_problem``) is the one every trace uses:
the cache's here, the lockstep systems' in ``traces/lockstep/_io.py`` (with their own columns and header).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.cache._format import COLUMNS, READ_SCHEMA

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_TYPES = {field.name: str(field.type) for field in READ_SCHEMA}
_PY_TYPES: dict[str, tuple[type, ...]] = {"int64": (int,), "double": (int, float), "string": (str,)}
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


def _field_problem(column: str, value: Any) -> str | None:
    """Why ``value`` cannot go in ``column`` (None if it can)."""
    kind = _TYPES[column]
    if not isinstance(value, _PY_TYPES[kind]) or isinstance(value, bool):
        return f"expected {kind}, got {value!r}"
    if kind == "int64" and isinstance(value, int):
        return int64_problem(value)
    return None


def _event(row: dict[str, Any], where: str) -> dict[str, Any]:
    extra = [key for key in row if key not in _TYPES]
    if extra:
        raise TraceInputError(f"{where}: unknown field(s) {', '.join(extra)}")
    for column, value in row.items():
        problem = None if value is None else _field_problem(column, value)
        if problem is not None:
            raise TraceInputError(f"{where}: field {column!r}: {problem}")
    return row


def jsonl_batches(path: Path, rows_per_batch: int) -> Iterator[pa.RecordBatch]:
    """The events after the header line, typed, in batches of ``rows_per_batch``; blank lines skipped."""
    columns: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    for where, data in jsonl_objects(path):
        row = _event(data, where)
        for column in COLUMNS:
            columns[column].append(row.get(column))
        if len(columns["kind"]) == rows_per_batch:
            yield pa.RecordBatch.from_pydict(columns, schema=READ_SCHEMA)
            columns = {c: [] for c in COLUMNS}
    if columns["kind"]:
        yield pa.RecordBatch.from_pydict(columns, schema=READ_SCHEMA)
