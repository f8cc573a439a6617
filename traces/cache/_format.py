"""The trace format, version 1: one event per row, typed columns, the config in the metadata.

traces/FORMAT.md documents every column and event kind; this module is the single definition the
readers, writers and both checkers use (and tests/unit/test_trace_format.py keeps the two in step).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from ledgerspec.spec.cache import _events
from ledgerspec.traces.core._files import FORMAT, VERSION

SCHEMA = pa.schema(
    [
        pa.field("broker", pa.string(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("time", pa.int64(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("ledger", pa.int64()),
        pa.field("entry", pa.int64()),
        pa.field("size", pa.int64()),
        pa.field("count", pa.int64()),
        pa.field("timestamp", pa.int64()),
        pa.field("reason", pa.string()),
        pa.field("copy", pa.int64()),
        pa.field("cursor", pa.string()),
        pa.field("value", pa.float64()),
        pa.field("result", pa.int64()),
    ]
)
"""Arrow schema of a trace, version 1."""

READ_SCHEMA = pa.schema([field.with_nullable(True) for field in SCHEMA])
"""The schema traces are read with: every column nullable, so that a null where :data:`SCHEMA` forbids
one reaches the row checks (``_rows.py``), which name its row and field, on both engines."""

STRING_COLUMNS = tuple(f.name for f in SCHEMA if pa.types.is_string(f.type))
DICTIONARY_READ_SCHEMA = pa.schema(
    [f.with_type(pa.dictionary(pa.int32(), pa.string())) if f.name in STRING_COLUMNS else f for f in READ_SCHEMA]
)
""":data:`READ_SCHEMA` with the string columns as Parquet stores them, dictionary-encoded: what the
local checker reads (a few distinct names per column; decoding a string per row costs more than the
rest of the read). Arrow's compute functions read them by value; a dictionary may repeat a value."""

COLUMNS: tuple[str, ...] = tuple(SCHEMA.names)
INT_COLUMNS = tuple(f.name for f in SCHEMA if pa.types.is_int64(f.type))


KINDS, PASS_KINDS, CONFIG_FIELDS, Kind = _events.KINDS, _events.PASS_KINDS, _events.CONFIG_FIELDS, _events.Kind
"""Every event kind (FORMAT.md has the meaning of each and of its fields), the kinds of pass, and the
fields a ``config`` event may change: the spec's event vocabulary (``spec/cache/_events.py``)."""
CONFIG_INT_FIELDS = ("max_size", "ttl", "ttl_max", "max_requeue")
"""Config fields whose ``value`` must be a whole number (``CacheConfig`` holds them as ints)."""


@dataclass(frozen=True)
class Header:
    """What travels in the trace's metadata: format, version, profile and initial configuration."""

    profile: str
    config: dict[str, Any]
    description: str = ""

    def to_metadata(self) -> dict[bytes, bytes]:
        """Parquet key-value metadata."""
        return {b"ledgerspec": json.dumps(self.to_dict()).encode()}

    def to_dict(self) -> dict[str, Any]:
        """The JSON-lines header line."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "profile": self.profile,
            "config": self.config,
            "description": self.description,
        }


def event(**fields: Any) -> dict[str, Any]:
    """A row with every column present (``None`` where unused)."""
    return {column: fields.get(column) for column in COLUMNS}
