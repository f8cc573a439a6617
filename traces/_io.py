"""Reading and writing traces: Parquet for bulk, JSON lines for small; lazy, validated batches.

A path may carry a ``format:`` prefix (``parquet:``, ``jsonl:``); otherwise the extension decides.
Every problem with the input is a :class:`TraceInputError` naming the file, the row and the field:
missing or extra columns, wrong types, unknown kinds, missing fields, negative sizes, seq going
back, a truncated or empty file, bad JSON. Nothing is skipped silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from ledgerspec.spec import ConfigError
from ledgerspec.spec.cache import PROFILES, CacheConfig
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces._format import COLUMNS, FORMAT, SCHEMA, VERSION, Header
from ledgerspec.traces._rows import check_batch

BATCH_ROWS = 1 << 16


@dataclass
class TraceFile:
    """An opened trace: its header and a way to iterate its events as validated Arrow batches."""

    path: Path
    format: str
    header: Header
    config: CacheConfig

    def batches(self, check: Callable[[int], bool] | None = None) -> Iterator[tuple[int, pa.RecordBatch]]:
        """(first row number, batch) pairs in file order, each batch checked by :func:`check_batch`.

        With ``check``, only the batches whose number it accepts are checked (processes share the work).
        """
        rows = 0
        source = _parquet_batches(self.path) if self.format == "parquet" else _jsonl_batches(self.path)
        for number, batch in enumerate(source):
            if check is None or check(number):
                check_batch(batch, rows, str(self.path))
            yield rows, batch
            rows += batch.num_rows
        if rows == 0:
            raise TraceInputError(f"{self.path}: the trace has no events")

    def row_groups(self, groups: Iterable[int]) -> Iterator[tuple[int, int, pa.RecordBatch]]:
        """(row group, first row number, batch) of some row groups of a Parquet trace, in file order, unchecked.

        For a process that reads only its share of the file: the caller runs :func:`check_batch` on
        the groups it is responsible for.
        """
        parquet = _parquet_file(self.path)
        starts = [0]
        for group in range(parquet.metadata.num_row_groups):
            starts.append(starts[-1] + parquet.metadata.row_group(group).num_rows)
        for group in sorted(groups):
            rows = starts[group]
            for batch in _parquet_batches(self.path, parquet, [group]):  # one group at a time: batches span groups
                yield group, rows, batch
                rows += batch.num_rows


def open_trace(spec: str | Path) -> TraceFile:
    """Open a trace, read and check its header; the events are read lazily."""
    text = str(spec)
    fmt = None
    for prefix in ("parquet:", "jsonl:"):
        if text.startswith(prefix):
            fmt, text = prefix[:-1], text[len(prefix) :]
    path = Path(text)
    if fmt is None:
        fmt = (
            "parquet"
            if path.suffix == ".parquet"
            else "jsonl"
            if path.suffix in {".jsonl", ".ndjson", ".json"}
            else None
        )
    if fmt is None:
        raise TraceInputError(f"{path}: unknown trace format; name it .parquet or .jsonl, or prefix parquet: / jsonl:")
    if not path.is_file():
        raise TraceInputError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise TraceInputError(f"{path}: the file is empty")
    header_data = _parquet_header(path) if fmt == "parquet" else _jsonl_header(path)
    header = _header(header_data, str(path))
    try:
        config = CacheConfig.from_dict(header.config, where=f"{path}: header config")
    except ConfigError as error:
        raise TraceInputError(str(error)) from None
    return TraceFile(path=path, format=fmt, header=header, config=config)


def _header(data: Any, where: str) -> Header:
    if not isinstance(data, dict):
        raise TraceInputError(f"{where}: the header must be a JSON object")
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise TraceInputError(
            f"{where}: not a {FORMAT} version {VERSION} trace (format {data.get('format')!r}, "
            f"version {data.get('version')!r})"
        )
    if data.get("profile") not in PROFILES:
        raise TraceInputError(f"{where}: header profile {data.get('profile')!r}; known: {', '.join(PROFILES)}")
    if not isinstance(data.get("config"), dict):
        raise TraceInputError(f"{where}: header config must be an object")
    return Header(profile=data["profile"], config=data["config"], description=str(data.get("description", "")))


# --- Parquet -----------------------------------------------------------------------------------------


def _parquet_file(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise TraceInputError(f"{path}: not a readable Parquet file (truncated or corrupt?): {error}") from None


def _parquet_header(path: Path) -> Any:
    parquet = _parquet_file(path)
    metadata = parquet.schema_arrow.metadata or {}
    if b"ledgerspec" not in metadata:
        raise TraceInputError(f"{path}: no 'ledgerspec' key in the Parquet metadata (the header)")
    check_schema(parquet.schema_arrow, str(path))
    try:
        return json.loads(metadata[b"ledgerspec"])
    except json.JSONDecodeError as error:
        raise TraceInputError(f"{path}: the 'ledgerspec' metadata is not JSON: {error.msg}") from None


def check_schema(schema: pa.Schema, where: str) -> None:
    """Exactly the columns of :data:`SCHEMA`, with its types."""
    names = set(schema.names)
    missing = [c for c in COLUMNS if c not in names]
    extra = [c for c in schema.names if c not in COLUMNS]
    if missing:
        raise TraceInputError(f"{where}: missing column(s) {', '.join(missing)}")
    if extra:
        raise TraceInputError(
            f"{where}: unknown column(s) {', '.join(extra)}; format v{VERSION} has {', '.join(COLUMNS)}"
        )
    for field in SCHEMA:
        actual = schema.field(field.name).type
        if actual != field.type and not (pa.types.is_dictionary(actual) and actual.value_type == field.type):
            raise TraceInputError(f"{where}: column {field.name!r} has type {actual}, expected {field.type}")


def _parquet_batches(
    path: Path, parquet: pq.ParquetFile | None = None, groups: list[int] | None = None
) -> Iterator[pa.RecordBatch]:
    """The trace's batches, or those of some row groups; ``parquet``: the file, if already open."""
    parquet = _parquet_file(path) if parquet is None else parquet
    try:
        for batch in parquet.iter_batches(batch_size=BATCH_ROWS, row_groups=groups, columns=list(COLUMNS)):
            yield batch.cast(SCHEMA) if batch.schema != SCHEMA else batch
    except (pa.ArrowInvalid, OSError) as error:
        raise TraceInputError(f"{path}: the Parquet data cannot be read (truncated or corrupt?): {error}") from None


# --- JSON lines --------------------------------------------------------------------------------------


def _jsonl_header(path: Path) -> Any:
    with path.open(encoding="utf-8") as stream:
        first = stream.readline()
    try:
        return json.loads(first)
    except json.JSONDecodeError as error:
        raise TraceInputError(f"{path}: line 1 (the header): invalid JSON: {error.msg}") from None


_PY_TYPES = {"int64": (int,), "double": (int, float), "string": (str,)}


def _jsonl_batches(path: Path) -> Iterator[pa.RecordBatch]:
    columns: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    types = {f.name: str(f.type) for f in SCHEMA}
    with path.open(encoding="utf-8") as stream:
        stream.readline()
        for number, line in enumerate(stream, start=2):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise TraceInputError(
                    f"{path}: line {number}: invalid JSON: {error.msg} (column {error.colno})"
                ) from None
            if not isinstance(row, dict):
                raise TraceInputError(f"{path}: line {number}: an event must be a JSON object")
            extra = [k for k in row if k not in types]
            if extra:
                raise TraceInputError(f"{path}: line {number}: unknown field(s) {', '.join(extra)}")
            for column in COLUMNS:
                value = row.get(column)
                allowed = _PY_TYPES[types[column]]
                if value is not None and (not isinstance(value, allowed) or isinstance(value, bool)):
                    raise TraceInputError(
                        f"{path}: line {number}: field {column!r}: expected {types[column]}, got {value!r}"
                    )
                columns[column].append(value)
            if len(columns["kind"]) == BATCH_ROWS:
                yield _to_batch(columns, path)
                columns = {c: [] for c in COLUMNS}
    if columns["kind"]:
        yield _to_batch(columns, path)


def _to_batch(columns: dict[str, list[Any]], path: Path) -> pa.RecordBatch:
    try:
        return pa.RecordBatch.from_pydict(columns, schema=SCHEMA)
    except (pa.ArrowInvalid, OverflowError) as error:
        raise TraceInputError(f"{path}: {error}") from None


# --- writing -----------------------------------------------------------------------------------------


class TraceWriter:
    """Writes events (dicts with the columns of :data:`SCHEMA`) to Parquet or JSON lines."""

    def __init__(self, path: str | Path, header: Header, *, row_group: int = 1 << 17) -> None:
        self.path = Path(path)
        self.header = header
        self.format = "parquet" if self.path.suffix == ".parquet" else "jsonl"
        self.row_group = row_group
        self.pending: dict[str, list[Any]] = {c: [] for c in COLUMNS}
        self.rows = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.format == "parquet":
            self._parquet = pq.ParquetWriter(self.path, SCHEMA.with_metadata(header.to_metadata()))
        else:
            self._stream = self.path.open("w", encoding="utf-8")
            self._stream.write(json.dumps(header.to_dict()) + "\n")

    def write_columns(self, columns: dict[str, list[Any]]) -> None:
        """Append events given as columns (each a list of the same length)."""
        count = len(columns["kind"])
        self.rows += count
        if self.format == "jsonl":
            for i in range(count):
                row = {c: columns[c][i] for c in COLUMNS if columns[c][i] is not None}
                self._stream.write(json.dumps(row, separators=(",", ":")) + "\n")
            return
        for column in COLUMNS:
            self.pending[column].extend(columns[column])
        if len(self.pending["kind"]) >= self.row_group:
            self._flush()

    def write(self, events: list[dict[str, Any]]) -> None:
        """Append events given as row dicts."""
        self.write_columns({c: [e.get(c) for e in events] for c in COLUMNS})

    def _flush(self) -> None:
        if self.pending["kind"]:
            self._parquet.write_table(pa.Table.from_pydict(self.pending, schema=SCHEMA))
            self.pending = {c: [] for c in COLUMNS}

    def close(self) -> None:
        """Flush and close the file."""
        if self.format == "parquet":
            self._flush()
            self._parquet.close()
        else:
            self._stream.close()

    def __enter__(self) -> TraceWriter:  # noqa: PYI034 - Self needs 3.11 typing; the class is final
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
