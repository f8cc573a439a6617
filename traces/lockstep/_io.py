"""Traces of the lockstep systems (cursor-state, txlog-writer): header, columns, reading, writing.

The header's ``system`` names the system (a header without one is a cache trace, the default, and
goes to ``_io.py``); its ``events`` lists the kinds the recorder captured. Rows are read whole and
validated here, for both engines, so a bad file gets the same error from each: the file, the row
(or line) and the field. Histories are small by design (one cursor or one writer per ``broker``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.systems import SYSTEMS, System, system_named
from ledgerspec.spec import ConfigError
from ledgerspec.spec._history import END, EventKind, Vocabulary
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.core._files import (
    DATASET_HEADER,
    FORMAT,
    HEADER_KEYS,
    VERSION,
    dataset_files,
    int64_problem,
    is_this_format,
    jsonl_header,
    jsonl_objects,
    parse_spec,
    refuse_unknown_keys,
)

SYSTEM_SCHEMA = pa.schema(
    [
        pa.field("broker", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("time", pa.int64()),
        pa.field("kind", pa.string()),
        *(
            pa.field(name, pa.int64())
            for name in (
                "ledger",
                "entry",
                "index",
                "value",
                "number",
                "keep",
                "by",
                "size",
                "record",
                "count",
                "bytes",
            )
        ),
        pa.field("records", pa.list_(pa.int64())),
        pa.field("batched", pa.bool_()),
        pa.field("trigger", pa.string()),
        pa.field("error", pa.string()),
        pa.field("data", pa.string()),
    ]
)
"""The columns of a system trace (every one nullable; the row checks name a missing field)."""
COLUMNS = tuple(SYSTEM_SCHEMA.names)
COMMON = ("broker", "seq", "time", "kind")
"""The fields of every row, whatever its kind (the others are the kind's: ``EventKind.required``, ``optional``)."""
SYSTEM_HEADER_KEYS = HEADER_KEYS | {"events"}
"""A lockstep system trace header's keys: a cache trace's, and the event kinds it records."""
_TYPES = {f.name: f.type for f in SYSTEM_SCHEMA}
NON_NEGATIVE = ("seq", "time", "entry", "index", "value", "number", "keep", "by", "size", "record", "count", "bytes")


def required_inputs(system: System) -> tuple[str, ...]:
    """Input kinds a trace must record: those that move the model (a pure read, like ``metrics``, may be left out)."""
    read = {kind for inv in system.invariants for kind in inv.trace_events}
    return tuple(kind for kind in system.vocabulary.inputs if kind not in read)


@dataclass(frozen=True)
class SystemHeader:
    """A system trace's header."""

    system: str
    profile: str
    config: dict[str, Any]
    events: tuple[str, ...]
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "system": self.system,
            "profile": self.profile,
            "config": self.config,
            "events": list(self.events),
            "description": self.description,
        }


@dataclass
class SystemTrace:
    """A read and row-checked system trace: its header and rows (dicts of the set fields, with ``row``)."""

    path: str
    header: SystemHeader
    rows: list[dict[str, Any]]
    files: tuple[Path, ...] = ()
    """Parquet: the files holding the rows, in row order (the trace, or a dataset's part files)."""
    file_rows: tuple[int, ...] = ()
    """Parquet: the rows of each of ``files``."""

    @property
    def system(self) -> System:
        return SYSTEMS[self.header.system]


def peek_system(spec: str | Path) -> str | None:
    """The ``system`` a trace's header names; None for the default system's, or for its reader to judge."""
    fmt, path = parse_spec(spec)
    try:
        if path.is_dir():
            data = _dataset_header(path, dataset_files(path))
        elif not path.is_file():
            return None
        elif fmt == "parquet" or (fmt is None and path.suffix == ".parquet"):
            metadata = pq.read_schema(path).metadata or {}
            data = json.loads(metadata.get(b"ledgerspec", b"{}"))
        else:
            with path.open("rb") as stream:
                data = json.loads(stream.readline().decode("utf-8"))
    except (OSError, ValueError, pa.ArrowException):
        return None
    except TraceInputError:
        if path.is_dir() and _has_system_columns(path):
            raise  # a system dataset with a bad header: its error, not the cache reader's
        return None
    system = data.get("system") if isinstance(data, dict) else None
    if system is None:
        return None
    try:
        return None if system_named(str(system)).is_default else str(system)
    except InputError:
        return str(system)  # an unknown system: the reader names the known ones


def _has_system_columns(directory: Path) -> bool:
    try:
        return tuple(pq.read_schema(dataset_files(directory)[0]).names) == COLUMNS
    except (OSError, pa.ArrowException, TraceInputError):
        return False


def _header(data: Any, where: str) -> SystemHeader:
    if not is_this_format(data):
        raise TraceInputError(f"{where}: not a {FORMAT} version {VERSION} trace")
    name = data.get("system")
    if not isinstance(name, str) or name not in SYSTEMS:
        raise TraceInputError(f"{where}: field 'system': {name!r}; known: cache, {', '.join(SYSTEMS)}")
    system = SYSTEMS[name]
    if data.get("profile") not in system.profiles:
        raise TraceInputError(
            f"{where}: field 'profile': {data.get('profile')!r}; the {name} system has {', '.join(system.profiles)}"
        )
    if not isinstance(data.get("config"), dict):
        raise TraceInputError(f"{where}: field 'config' must be an object")
    refuse_unknown_keys(data, SYSTEM_HEADER_KEYS, where)
    try:
        system.config.from_dict(data["config"])
    except (ConfigError, TypeError) as error:
        raise TraceInputError(f"{where}: field 'config': {error}") from None
    events = data.get("events", [k for k, kind in system.vocabulary.kinds.items() if kind.role != END])
    if not isinstance(events, list) or not all(isinstance(k, str) for k in events):
        raise TraceInputError(f"{where}: field 'events' must be a list of event kinds")
    unknown = [k for k in events if k not in system.vocabulary.kinds]
    missing = [k for k in required_inputs(system) if k not in events]
    if unknown or missing:
        what = f"unknown kind(s) {', '.join(unknown)}" if unknown else f"the operation kind(s) {', '.join(missing)} "
        raise TraceInputError(f"{where}: field 'events': {what}{'' if unknown else 'must be recorded'}")
    return SystemHeader(name, data["profile"], data["config"], tuple(events), str(data.get("description", "")))


def read_system_trace(spec: str | Path) -> SystemTrace:
    """Read and row-check a system trace (JSON lines or Parquet)."""
    fmt, path = parse_spec(spec)
    files: tuple[Path, ...] = ()
    counts: list[int] = []
    if path.is_dir() and fmt == "jsonl":
        raise TraceInputError(f"{path}: a directory; only Parquet traces may be directories (datasets)")
    if path.is_dir() or path.suffix == ".parquet" or fmt == "parquet":
        files = dataset_files(path) if path.is_dir() else (path,)
        rows: list[dict[str, Any]] = []
        for part in files:
            table = _parquet_table(part)
            rows += _parquet_rows(table, str(part), len(rows))
            counts.append(table.num_rows)
        if path.is_dir():
            header = _header(_dataset_header(path, files), f"{path}: header")
        else:
            data = _json(_metadata(table), f"{path}: the 'ledgerspec' metadata (the header)")
            header = _header(data, f"{path}: header")
    else:
        header, rows = _jsonl(path)
    if not rows:
        raise TraceInputError(f"{path}: the trace has no events")
    vocabulary = SYSTEMS[header.system].vocabulary
    for event in rows:
        problem = row_problem(event, vocabulary, header.events)
        if problem:
            raise TraceInputError(f"{path}: row {event['row']}: {problem}")
    return SystemTrace(str(path), header, rows, files, tuple(counts))


def _parquet_table(path: Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowException) as error:
        raise TraceInputError(f"{path}: not a readable Parquet file (truncated or corrupt?): {error}") from None


def _metadata(table: pa.Table) -> bytes:
    return bytes((table.schema.metadata or {}).get(b"ledgerspec", b"null"))


def _json(data: bytes, where: str) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise TraceInputError(f"{where} is not JSON: {error}") from None


def _dataset_header(directory: Path, files: tuple[Path, ...]) -> Any:
    """A dataset's header, as for a cache dataset (traces/FORMAT.md).

    The ``ledgerspec`` key of its part files (all the same), or ``_ledgerspec.json`` beside them (Spark
    cannot set Parquet metadata).
    """
    found: dict[bytes, Path] = {}
    for part in files:
        try:
            value = (pq.read_schema(part).metadata or {}).get(b"ledgerspec")
        except (OSError, pa.ArrowException) as error:
            raise TraceInputError(f"{part}: not a readable Parquet file (truncated or corrupt?): {error}") from None
        if value is not None:
            found.setdefault(value, part)
    sidecar = directory / DATASET_HEADER
    if len(found) > 1:
        first, second = list(found.values())[:2]
        raise TraceInputError(f"{directory}: the part files {first.name} and {second.name} have different headers")
    if found and sidecar.exists():
        raise TraceInputError(f"{directory}: a header in both {DATASET_HEADER} and the part files; keep one")
    if found:
        value, part = next(iter(found.items()))
        return _json(value, f"{part}: the 'ledgerspec' metadata (the header)")
    if not sidecar.is_file():
        raise TraceInputError(
            f"{directory}: no header: neither a 'ledgerspec' key in the part files' Parquet metadata "
            f"nor a {DATASET_HEADER} file"
        )
    return _json(sidecar.read_bytes(), str(sidecar))


def _parquet_rows(table: pa.Table, where: str, start: int = 0) -> list[dict[str, Any]]:
    names = table.schema.names
    missing = [c for c in COLUMNS if c not in names]
    extra = [c for c in names if c not in COLUMNS]
    if missing or extra:
        raise TraceInputError(
            f"{where}: columns: missing {missing}, unknown {extra}; a system trace has {', '.join(COLUMNS)}"
        )
    for name in COLUMNS:
        if table.schema.field(name).type != _TYPES[name]:
            raise TraceInputError(
                f"{where}: column {name!r} has type {table.schema.field(name).type}, expected {_TYPES[name]}"
            )
    rows = table.select(list(COLUMNS)).to_pylist()
    return [{"row": start + i, **{k: v for k, v in r.items() if v is not None}} for i, r in enumerate(rows)]


def _jsonl(path: Path) -> tuple[SystemHeader, list[dict[str, Any]]]:
    """The header and the typed rows; the lines are read as every trace's are (``_jsonl.py``)."""
    header = _header(jsonl_header(path), f"{path}: line 1 (the header)")
    lines = enumerate(jsonl_objects(path))
    rows = [{"row": row, **_typed(data, where)} for row, (where, data) in lines]
    return header, rows


def _typed(data: dict[str, Any], where: str) -> dict[str, Any]:
    extra = [key for key in data if key not in _TYPES]
    if extra:
        raise TraceInputError(f"{where}: unknown field(s) {', '.join(extra)}")
    for name, value in data.items():
        kind = _TYPES[name]
        if value is None:
            continue
        if pa.types.is_list(kind):
            ok = isinstance(value, list) and all(_int64(v) for v in value)
        elif pa.types.is_int64(kind):
            ok = _int64(value)
        elif pa.types.is_boolean(kind):
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise TraceInputError(f"{where}: field {name!r}: {_type_problem(kind, value)}")
    return {k: v for k, v in data.items() if v is not None}


def _int64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and int64_problem(value) is None


def _type_problem(kind: pa.DataType, value: Any) -> str:
    """Why ``value`` is not of the column's type: an integer too large says so, as in a cache trace."""
    if pa.types.is_int64(kind) or pa.types.is_list(kind):
        for item in value if isinstance(value, list) else [value]:
            problem = int64_problem(item) if isinstance(item, int) and not isinstance(item, bool) else None
            if problem is not None:
                return problem
    return f"expected {kind}, got {value!r}"


def row_problem(event: Mapping[str, Any], vocabulary: Vocabulary, recorded: tuple[str, ...]) -> str | None:  # noqa: C901, PLR0911 - one return per row check, in the order FORMAT.md lists them
    """Why one row is bad input (None if it is not), naming the field; the order checks are the replay's."""
    for name in COMMON:
        if event.get(name) is None:
            return f"field {name!r} is null"
    kind = event["kind"]
    if kind not in vocabulary.kinds:
        return f"field 'kind': unknown event kind {kind!r} for the {vocabulary.system} system"
    if kind not in recorded:
        return f"field 'kind': {kind!r} is not among the kinds the header's 'events' says were recorded"
    problem = _fields_problem(event, vocabulary.kinds[kind])
    if problem:
        return problem
    for name in NON_NEGATIVE:
        if isinstance(event.get(name), int) and event[name] < 0:
            return f"field {name!r} is negative ({event[name]})"
    if any(r is None or r < 1 for r in event.get("records") or ()):  # Parquet's list may hold a null
        return "field 'records': record numbers are integers from 1 (a null, or less, in the list)"
    if "data" in event:
        try:
            value = json.loads(event["data"])
        except json.JSONDecodeError as error:
            return f"field 'data': invalid JSON: {error.msg}"
        if not isinstance(value, dict):
            return "field 'data': want a JSON object"
        shape = vocabulary.kinds[kind].data
        problem = shape(value) if shape is not None else None
        if problem:
            return f"field 'data': {problem}"
    return None


def _fields_problem(event: Mapping[str, Any], kind: EventKind) -> str | None:
    """A field the kind requires that is not set, not exactly one of those it wants one of, or one it has not.

    ``event`` holds the fields that are set (JSON lines leave out a null, Parquet a null column value) and
    the reader's ``row``: a field set that the kind does not have is information the checks never read.
    """
    for name in kind.required:
        if event.get(name) is None:
            return f"field {name!r} is required for {kind.name!r}"
    if kind.one_of and sum(event.get(name) is not None for name in kind.one_of) != 1:
        return f"fields {' / '.join(repr(name) for name in kind.one_of)}: exactly one is set in {kind.name!r}"
    allowed = (*COMMON, *kind.required, *kind.optional)
    extra = next((name for name, value in event.items() if value is not None and name not in (*allowed, "row")), None)
    if extra is not None:
        return f"field {extra!r} is not a field of {kind.name!r}; its fields are {', '.join(allowed)}"
    return None


class SystemTraceWriter:
    """Writes a system trace: JSON lines (``.jsonl``) or Parquet (``.parquet``)."""

    def __init__(self, path: str | Path, header: SystemHeader) -> None:
        self.path, self.header = Path(path), header
        self.rows: list[dict[str, Any]] = []

    def write(self, event: dict[str, Any]) -> None:
        self.rows.append(event)

    def close(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.suffix == ".parquet":
            table = pa.Table.from_pylist(
                [{c: r.get(c) for c in COLUMNS} for r in self.rows], schema=SYSTEM_SCHEMA
            ).replace_schema_metadata({b"ledgerspec": json.dumps(self.header.to_dict()).encode()})
            pq.write_table(table, self.path)
            return
        with self.path.open("w", encoding="utf-8") as stream:
            stream.write(json.dumps(self.header.to_dict()) + "\n")
            for event in self.rows:
                stream.write(json.dumps(event, separators=(",", ":")) + "\n")
