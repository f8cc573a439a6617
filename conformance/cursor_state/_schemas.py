"""The JSON Schemas of the cursor-state system's protocol messages, made from the spec's types.

``python -m ledgerspec.conformance.cursor_state._schemas`` writes them to
``conformance/protocol/cursor-state/v1/``; a test keeps the files equal to what this makes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ledgerspec.conformance.adapters._system_process import system_schemas, write_schemas
from ledgerspec.spec.cursor_state import CAPABILITIES, OPERATIONS, PROFILES, CursorConfig

INT = {"type": "integer"}
POSITION = {"type": "array", "prefixItems": [INT, INT], "minItems": 2, "maxItems": 2}
STATE = {
    "type": "object",
    "required": ["mark_delete", "acked", "batch", "properties"],
    "additionalProperties": False,
    "properties": {
        "mark_delete": POSITION,
        "acked": {"type": "array", "items": POSITION},
        "batch": {
            "type": "array",
            "items": {"type": "array", "prefixItems": [POSITION, {"type": "array", "items": INT}], "minItems": 2},
        },
        "properties": {"type": "object", "additionalProperties": INT},
    },
}
RESULT = {
    "description": "none, a persist's number, the callbacks completed ([number, ok] each), a state, or failed",
    "anyOf": [
        {"type": "null"},
        INT,
        {
            "type": "array",
            "items": {"type": "array", "prefixItems": [INT, {"type": "boolean"}], "minItems": 2, "maxItems": 2},
        },
        STATE,
        {"const": "failed"},
    ],
}
JSON_TYPES = {int: "integer", bool: "boolean", str: "string"}


def _op(kind: str) -> dict[str, Any]:
    cls = OPERATIONS[kind]
    fields = list(dataclasses.fields(cls))
    return {
        "type": "object",
        "required": ["op", *(f.name for f in fields if f.default is dataclasses.MISSING)],
        "additionalProperties": False,
        "properties": {"op": {"const": kind}, **{f.name: INT for f in fields}},
    }


def _config() -> dict[str, Any]:
    fields = dataclasses.fields(CursorConfig)
    hints = {"compression": {"enum": ["none", "zlib"]}}
    return {
        "type": "object",
        "required": [f.name for f in fields],
        "additionalProperties": False,
        "properties": {f.name: hints.get(f.name, {"type": JSON_TYPES[type(f.default)]}) for f in fields},
    }


def schemas() -> dict[str, dict[str, Any]]:
    """File name to schema, for every command (the framing is every system's: adapters/_system_process.py)."""
    ops = {"type": "array", "minItems": 1, "items": {"oneOf": [_op(kind) for kind in OPERATIONS]}}
    return system_schemas(
        "cursor-state",
        PROFILES,
        CAPABILITIES,
        configure=("a fresh cursor, BookKeeper and metadata store with this configuration", _config()),
        apply=("one operation (spec/cursor_state/SPEC.md §2) and its result", ops, RESULT),
    )


if __name__ == "__main__":
    from ledgerspec.conformance.cursor_state._process import SCHEMA_DIR

    write_schemas(schemas(), SCHEMA_DIR)
