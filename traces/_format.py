"""The trace format, version 1: one event per row, typed columns, the config in the metadata.

traces/FORMAT.md documents every column and event kind; this module is the single definition the
readers, writers and both checkers use (and tests/unit/test_trace_format.py keeps the two in step).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

FORMAT = "ledgerspec-trace"
VERSION = 1

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

COLUMNS: tuple[str, ...] = tuple(SCHEMA.names)
INT_COLUMNS = tuple(f.name for f in SCHEMA if pa.types.is_int64(f.type))


@dataclass(frozen=True)
class Kind:
    """An event kind: its code (used in the replay), the fields it needs and the reasons it allows."""

    name: str
    code: int
    required: tuple[str, ...]
    reasons: tuple[str, ...] = ()


PASS_KINDS = ("size", "ttl", "invalidate", "clear")
KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("config", 0, ("reason", "value")),
        Kind("insert", 1, ("ledger", "entry", "size", "timestamp")),
        Kind("insert_refused", 2, ("ledger", "entry", "size")),
        Kind("merge", 3, ("ledger", "entry", "count", "value")),
        Kind("hit", 4, ("ledger", "entry", "copy")),
        Kind("miss", 5, ("ledger", "entry")),
        Kind("release", 6, ("copy",)),
        Kind("replay_increment", 7, ("copy",)),
        Kind("mark_evicted", 8, ("ledger", "entry")),
        Kind("remove", 9, ("ledger", "entry", "size", "reason"), PASS_KINDS),
        Kind("requeue", 10, ("ledger", "entry", "timestamp")),
        Kind("stash", 11, ("ledger", "entry")),
        Kind("pass_start", 12, ("reason", "size"), PASS_KINDS),
        Kind("pass_end", 13, ("reason", "size"), PASS_KINDS),
        Kind("size_sample", 14, ("size",)),
        Kind("cursor_add", 15, ("ledger", "cursor", "entry")),
        Kind("cursor_remove", 16, ("ledger", "cursor")),
        Kind("cursor_seek", 17, ("ledger", "cursor", "entry")),
        Kind("cursor_count", 18, ("ledger", "cursor", "result")),
    )
}
"""Every event kind; FORMAT.md has the meaning of each and of its fields."""

CONFIG_FIELDS = ("max_size", "watermark", "ttl", "ttl_max", "max_requeue", "extend_ttl")
"""Fields a ``config`` event may change (``reason`` names the field, ``value`` holds the new value)."""
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
