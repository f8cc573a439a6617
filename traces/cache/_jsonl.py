"""Reading a JSON-lines trace: the header line, then one event object per line, as Arrow batches.

Each line is decoded and typed here, so that every problem names the file, the line and the field: bytes
that are not UTF-8, bad JSON, a line that is not an object (``null`` too), a field of the wrong type, an
integer outside int64. The events' meaning (kinds, required fields, signs, order) is checked afterwards
by the row checks both engines share (``_rows.py``). Lines are read as bytes: a decoding error then names
its line instead of escaping from the file object's iterator.

The line reader (``jsonl_header``, ``jsonl_objects``, ``int64_problem``) is the one every trace uses
(``traces/core/_files.py``); the columns and their types are the cache's, here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.cache._format import COLUMNS, READ_SCHEMA
from ledgerspec.traces.core._files import int64_problem, jsonl_objects

_TYPES = {field.name: str(field.type) for field in READ_SCHEMA}
_PY_TYPES: dict[str, tuple[type, ...]] = {"int64": (int,), "double": (int, float), "string": (str,)}


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
