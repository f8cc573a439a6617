"""Reading and writing traces: Parquet for bulk, JSON lines for small; lazy, validated batches.

A path may carry a ``format:`` prefix (``parquet:``, ``jsonl:``): a leading ``parquet:`` or ``jsonl:``
always names the format, so a file whose name starts so is written ``./parquet:name``; any other colon
is part of the path. Without a prefix the extension decides, and a directory is a Parquet dataset as
Spark and pyarrow write one (:func:`dataset_files`). Every problem with the input is a
:class:`TraceInputError` naming the file, the row and the field: missing or extra columns, wrong
types, unknown kinds, missing fields, negative sizes, seq or time going back, a truncated, corrupt
or empty file, bad JSON. Nothing is skipped silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from ledgerspec.spec import ConfigError
from ledgerspec.spec.cache import PROFILES, CacheConfig
from ledgerspec.traces._errors import TraceInputError, TraceNotFoundError
from ledgerspec.traces.cache._format import COLUMNS, DICTIONARY_READ_SCHEMA, READ_SCHEMA, SCHEMA, STRING_COLUMNS, Header
from ledgerspec.traces.cache._jsonl import jsonl_batches
from ledgerspec.traces.cache._rows import check_batch
from ledgerspec.traces.core._files import (
    BATCH_ROWS,
    DATASET_HEADER,
    FORMAT,
    HEADER_KEYS,
    SUFFIX_FORMATS,
    UNKNOWN_FORMAT,
    VERSION,
    dataset_files,
    is_this_format,
    jsonl_header,
    parse_spec,
    refuse_unknown_keys,
)


@dataclass
class TraceFile:
    """An opened trace: its header and a way to iterate its events as validated Arrow batches."""

    path: Path
    format: str
    header: Header
    config: CacheConfig
    files: tuple[Path, ...] = field(default_factory=tuple)
    """The Parquet files holding the rows, in row order: the trace itself, or a dataset's part files."""

    @property
    def is_dataset(self) -> bool:
        """A directory of Parquet part files rather than one file."""
        return self.path.is_dir()

    def file_rows(self) -> list[int]:
        """The events of each Parquet file of :attr:`files`, from the footers."""
        return [_parquet_file(path).metadata.num_rows for path in self.files]

    def num_rows(self) -> int:
        """The events of a Parquet trace, from the footers (0 for JSON lines, which has no footer)."""
        return sum(self.file_rows())

    def batches(
        self, check: Callable[[int], bool] | None = None, *, dictionaries: bool = False
    ) -> Iterator[tuple[int, pa.RecordBatch]]:
        """(first row number, batch) pairs in file order, each batch checked by :func:`check_batch`.

        With ``check``, only the batches whose number it accepts are checked (processes share the work).
        With ``dictionaries``, Parquet's string columns stay dictionary-encoded (``_parquet_batches``).
        """
        rows = 0
        source = (
            _parquet_batches(self.files, dictionaries=dictionaries)
            if self.format == "parquet"
            else jsonl_batches(self.path, BATCH_ROWS)
        )
        for number, batch in enumerate(source):
            if check is None or check(number):
                check_batch(batch, rows, str(self.path))
            yield rows, batch
            rows += batch.num_rows
        if rows == 0:
            raise TraceInputError(f"{self.path}: the trace has no events")

    def row_groups(
        self, groups: Iterable[int], *, dictionaries: bool = False
    ) -> Iterator[tuple[int, int, pa.RecordBatch]]:
        """(row group, first row number, batch) of some row groups of a Parquet trace, in file order, unchecked.

        For a process that reads only its share of the file: the caller runs :func:`check_batch` on
        the groups it is responsible for. Row groups are numbered across a dataset's files, in order.
        """
        places: list[tuple[Path, int, int]] = []  # (file, its group, first row)
        rows = 0
        for path in self.files:
            metadata = _parquet_file(path).metadata
            for group in range(metadata.num_row_groups):
                places.append((path, group, rows))
                rows += metadata.row_group(group).num_rows
        for number in sorted(groups):
            path, group, rows = places[number]
            # One group at a time: a batch may span groups.
            for batch in _parquet_batches([path], [group], dictionaries=dictionaries):
                yield number, rows, batch
                rows += batch.num_rows


def open_trace(spec: str | Path) -> TraceFile:
    """Open a trace, read and check its header; the events are read lazily."""
    fmt, path = parse_spec(spec)
    if not path.exists():  # before the format: a missing file is missing, whatever its name says
        raise TraceNotFoundError(f"{path}: does not exist (no such file or directory)")
    if path.is_dir():
        if fmt == "jsonl":
            raise TraceInputError(f"{path}: a directory; only Parquet traces may be directories (datasets)")
        files = dataset_files(path)
        header = _header(_dataset_header(path, files), str(path))
        return _opened(path, "parquet", header, files)
    if fmt is None:
        fmt = SUFFIX_FORMATS.get(path.suffix)
    if fmt is None:
        raise TraceInputError(f"{path}: {UNKNOWN_FORMAT}, or prefix parquet: / jsonl:")
    if not path.is_file():
        raise TraceInputError(f"{path}: not a file or directory a trace can be (a device, a socket, a pipe)")
    if path.stat().st_size == 0:
        raise TraceInputError(f"{path}: the file is empty")
    header = _header(_parquet_header(path) if fmt == "parquet" else jsonl_header(path), str(path))
    return _opened(path, fmt, header, (path,) if fmt == "parquet" else ())


def _opened(path: Path, fmt: str, header: Header, files: tuple[Path, ...]) -> TraceFile:
    try:
        config = CacheConfig.from_dict(header.config, where=f"{path}: header config")
    except ConfigError as error:
        raise TraceInputError(str(error)) from None
    return TraceFile(path=path, format=fmt, header=header, config=config, files=files)


def _header(data: Any, where: str) -> Header:
    if not isinstance(data, dict):
        raise TraceInputError(f"{where}: the header must be a JSON object")
    if not is_this_format(data):
        raise TraceInputError(
            f"{where}: not a {FORMAT} version {VERSION} trace (format {data.get('format')!r}, "
            f"version {data.get('version')!r})"
        )
    if data.get("profile") not in PROFILES:
        raise TraceInputError(f"{where}: header profile {data.get('profile')!r}; known: {', '.join(PROFILES)}")
    if not isinstance(data.get("config"), dict):
        raise TraceInputError(f"{where}: header config must be an object")
    refuse_unknown_keys(data, HEADER_KEYS, where)
    return Header(profile=data["profile"], config=data["config"], description=str(data.get("description", "")))


# --- Parquet -----------------------------------------------------------------------------------------


def _dataset_header(directory: Path, files: tuple[Path, ...]) -> Any:
    """The header of a dataset: in the part files' footers (all the same), else in :data:`DATASET_HEADER`."""
    found: dict[bytes, Path] = {}
    for path in files:
        parquet = _parquet_file(path)
        check_schema(parquet.schema_arrow, str(path))
        value = (parquet.schema_arrow.metadata or {}).get(b"ledgerspec")
        if value is not None:
            found.setdefault(value, path)
    if len(found) > 1:
        first, second = list(found.values())[:2]
        raise TraceInputError(f"{directory}: the part files {first.name} and {second.name} have different headers")
    sidecar = directory / DATASET_HEADER
    if found and sidecar.exists():
        raise TraceInputError(f"{directory}: a header in both {DATASET_HEADER} and the part files; keep one")
    if found:
        return _json(next(iter(found)), f"{found[next(iter(found))]}: the 'ledgerspec' metadata")
    if not sidecar.is_file():
        raise TraceInputError(
            f"{directory}: no header: neither a 'ledgerspec' key in the part files' Parquet metadata "
            f"nor a {DATASET_HEADER} file"
        )
    return _json(sidecar.read_bytes(), str(sidecar))


def _json(data: bytes, where: str) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise TraceInputError(f"{where} is not JSON: {error}") from None


def _parquet_file(path: Path, dictionaries: tuple[str, ...] = ()) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path, read_dictionary=dictionaries or None)
    except (pa.ArrowInvalid, OSError) as error:
        raise TraceInputError(f"{path}: not a readable Parquet file (truncated or corrupt?): {error}") from None


def _parquet_header(path: Path) -> Any:
    parquet = _parquet_file(path)
    metadata = parquet.schema_arrow.metadata or {}
    if b"ledgerspec" not in metadata:
        raise TraceInputError(f"{path}: no 'ledgerspec' key in the Parquet metadata (the header)")
    check_schema(parquet.schema_arrow, str(path))
    return _json(metadata[b"ledgerspec"], f"{path}: the 'ledgerspec' metadata")


def check_schema(schema: pa.Schema, where: str) -> None:
    """Exactly the columns of :data:`SCHEMA`, with its types (nullable or not: nulls are checked per row)."""
    names = set(schema.names)
    missing = [c for c in COLUMNS if c not in names]
    extra = [c for c in schema.names if c not in COLUMNS]
    if missing:
        raise TraceInputError(f"{where}: missing column(s) {', '.join(missing)}")
    if extra:
        raise TraceInputError(
            f"{where}: unknown column(s) {', '.join(extra)}; format v{VERSION} has {', '.join(COLUMNS)}"
        )
    for field_ in SCHEMA:
        actual = schema.field(field_.name).type
        if actual != field_.type and not (pa.types.is_dictionary(actual) and actual.value_type == field_.type):
            raise TraceInputError(f"{where}: column {field_.name!r} has type {actual}, expected {field_.type}")


def _parquet_batches(
    files: Iterable[Path], groups: list[int] | None = None, *, dictionaries: bool = False
) -> Iterator[pa.RecordBatch]:
    """The batches of the files in turn (of some row groups, for one file), cast to :data:`READ_SCHEMA`.

    Read a row group at a time, so that an unreadable page is reported with its row group and rows,
    on one thread (the local checker runs a process per core). With ``dictionaries``, the string
    columns stay dictionary-encoded (:data:`DICTIONARY_READ_SCHEMA`).
    """
    schema = DICTIONARY_READ_SCHEMA if dictionaries else READ_SCHEMA
    columns = list(COLUMNS)
    for path in files:
        parquet = _parquet_file(path, STRING_COLUMNS if dictionaries else ())
        metadata = parquet.metadata
        first = 0
        starts = []
        for group in range(metadata.num_row_groups):
            starts.append(first)
            first += metadata.row_group(group).num_rows
        for group in range(metadata.num_row_groups) if groups is None else groups:
            try:
                batches = parquet.iter_batches(BATCH_ROWS, row_groups=[group], columns=columns, use_threads=False)
                for batch in batches:
                    if dictionaries and not _indices_in_bounds(batch):
                        _read_plain(path, group)  # raises pyarrow's own error, as a plain read reports it
                    yield batch.cast(schema) if batch.schema != schema else batch
            except (pa.ArrowException, OSError) as error:
                raise unreadable(path, metadata, group, starts[group], error) from None


def _indices_in_bounds(batch: pa.RecordBatch) -> bool:
    """Every dictionary index of the batch names a value.

    A corrupt page read as a dictionary is no error to pyarrow; read as strings it is ("Index not in
    dictionary bounds"), and the Spark checker reports it so.
    """
    for column in batch.columns:
        if pa.types.is_dictionary(column.type) and len(column) > column.null_count:
            bounds = pc.min_max(column.indices)
            if bounds["min"].as_py() < 0 or bounds["max"].as_py() >= len(column.dictionary):
                return False
    return True


def _read_plain(path: Path, group: int) -> None:
    """Read a row group with its strings decoded; raise what that read raises (or say the indices are bad)."""
    for _ in _parquet_file(path).iter_batches(BATCH_ROWS, row_groups=[group], columns=list(COLUMNS)):
        pass
    raise pa.ArrowInvalid("a dictionary index out of its dictionary's bounds")


def unreadable(path: Path, metadata: pq.FileMetaData, group: int, first: int, error: Exception) -> TraceInputError:
    """The error for a row group whose pages cannot be read (both engines word it alike)."""
    last = first + metadata.row_group(group).num_rows - 1
    reason = " ".join(str(error).split())
    return TraceInputError(
        f"{path}: row group {group} (rows {first} to {last} of the file): the Parquet data cannot be read "
        f"(truncated or corrupt?): {reason}"
    )


def find_unreadable(trace: TraceFile) -> TraceInputError | None:
    """The first row group of a Parquet trace that pyarrow cannot read, as the local checker reports it."""
    try:
        for _ in _parquet_batches(trace.files):
            pass
    except TraceInputError as error:
        return error
    return None


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
