"""Reading a JSON-lines trace: the header line, then one event object per line, as Arrow batches.

Each line is decoded and typed here, so that every problem names the file, the line and the field: bytes
that are not UTF-8, bad JSON, a field of the wrong type, an integer outside int64. The events' meaning
(kinds, required fields, signs, order) is checked afterwards by the row checks both engines share
(``_rows.py``). Lines are read as bytes: a decoding error then names its line instead of escaping from
the file object's iterator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces._format import COLUMNS, READ_SCHEMA

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_TYPES = {field.name: str(field.type) for field in READ_SCHEMA}
_PY_TYPES: dict[str, tuple[type, ...]] = {"int64": (int,), "double": (int, float), "string": (str,)}


def _text(raw: bytes, path: Path, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TraceInputError(
            f"{path}: line {number}: not UTF-8 (byte 0x{raw[error.start]:02x} at column {error.start + 1})"
        ) from None


def jsonl_header(path: Path) -> Any:
    """The first line, parsed (``_io`` checks what it says)."""
    with path.open("rb") as stream:
        first = stream.readline()
    try:
        return json.loads(_text(first, path, 1))
    except json.JSONDecodeError as error:
        raise TraceInputError(f"{path}: line 1 (the header): invalid JSON: {error.msg}") from None


def _field_problem(column: str, value: Any) -> str | None:
    """Why ``value`` cannot go in ``column`` (None if it can)."""
    kind = _TYPES[column]
    if not isinstance(value, _PY_TYPES[kind]) or isinstance(value, bool):
        return f"expected {kind}, got {value!r}"
    if kind == "int64" and isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        return f"{value} is outside the int64 range [{INT64_MIN}, {INT64_MAX}]"
    return None


def _event(line: str, path: Path, number: int) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise TraceInputError(f"{path}: line {number}: invalid JSON: {error.msg} (column {error.colno})") from None
    if not isinstance(row, dict):
        raise TraceInputError(f"{path}: line {number}: an event must be a JSON object")
    extra = [key for key in row if key not in _TYPES]
    if extra:
        raise TraceInputError(f"{path}: line {number}: unknown field(s) {', '.join(extra)}")
    for column, value in row.items():
        problem = None if value is None else _field_problem(column, value)
        if problem is not None:
            raise TraceInputError(f"{path}: line {number}: field {column!r}: {problem}")
    return row


def jsonl_batches(path: Path, rows_per_batch: int) -> Iterator[pa.RecordBatch]:
    """The events after the header line, typed, in batches of ``rows_per_batch``; blank lines skipped."""
    columns: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    with path.open("rb") as stream:
        stream.readline()
        for number, raw in enumerate(stream, start=2):
            line = _text(raw, path, number)
            if not line.strip():
                continue
            row = _event(line, path, number)
            for column in COLUMNS:
                columns[column].append(row.get(column))
            if len(columns["kind"]) == rows_per_batch:
                yield pa.RecordBatch.from_pydict(columns, schema=READ_SCHEMA)
                columns = {c: [] for c in COLUMNS}
    if columns["kind"]:
        yield pa.RecordBatch.from_pydict(columns, schema=READ_SCHEMA)
