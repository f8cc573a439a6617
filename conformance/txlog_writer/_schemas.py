"""The JSON Schemas of the txlog-writer system's protocol messages, made from the spec's types.

``python -m ledgerspec.conformance.txlog_writer._schemas`` writes them to
``conformance/protocol/txlog-writer/v1/``; a test keeps the files equal to what this makes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ledgerspec.conformance.adapters._system_process import system_schemas, write_schemas
from ledgerspec.conformance.txlog_writer._system import SCHEMA_DIR
from ledgerspec.spec.txlog_writer import CAPABILITIES, OPERATIONS, PROFILES, TRIGGERS, WriterConfig

METRIC_SUMS = ("records", "bytes", "delay")
"""The histograms' sums a ``metrics`` result holds beside the trigger counters (spec/txlog_writer/SPEC.md §2)."""
INT = {"type": "integer", "minimum": 0}
INT_OR_NULL = {"type": ["integer", "null"], "minimum": 0}
WRITE = {
    "description": '["write", entry, [records], batched, trigger]: an entry handed to the managed ledger',
    "type": "array",
    "prefixItems": [
        {"const": "write"},
        INT,
        {"type": "array", "items": INT},
        {"type": "boolean"},
        {"enum": [*TRIGGERS, None]},
    ],
    "minItems": 5,
    "maxItems": 5,
}
DONE = {
    "description": '["done", record, entry, batch_size, batch_index]: a success callback (null, null: plain position)',
    "type": "array",
    "prefixItems": [{"const": "done"}, INT, INT, INT_OR_NULL, INT_OR_NULL],
    "minItems": 5,
    "maxItems": 5,
}
FAILED = {
    "description": '["failed", record]: a failure callback',
    "type": "array",
    "prefixItems": [{"const": "failed"}, INT],
    "minItems": 2,
    "maxItems": 2,
}
METRICS = {
    "description": "each trigger's count, and the records, bytes and oldest-record delays summed over the flushes",
    "type": "object",
    "required": [*TRIGGERS, *METRIC_SUMS],
    "additionalProperties": False,
    "properties": {**dict.fromkeys((*TRIGGERS, "records", "bytes"), INT), "delay": INT_OR_NULL},
}
RESULT = {
    "description": "the events of the step, in the order they happened; the metrics for a metrics operation",
    "anyOf": [{"type": "array", "items": {"oneOf": [WRITE, DONE, FAILED]}}, METRICS],
}


def _op(kind: str) -> dict[str, Any]:
    cls = OPERATIONS[kind]
    fields = list(dataclasses.fields(cls))
    return {
        "type": "object",
        "required": ["op", *(f.name for f in fields if f.default is dataclasses.MISSING)],
        "additionalProperties": False,
        "properties": {"op": {"const": kind}, **{f.name: {"type": "integer", "minimum": 1} for f in fields}},
    }


def _config() -> dict[str, Any]:
    fields = dataclasses.fields(WriterConfig)
    return {
        "type": "object",
        "required": [f.name for f in fields],
        "additionalProperties": False,
        "properties": {
            f.name: {"type": "boolean"} if isinstance(f.default, bool) else {"type": "integer", "minimum": 1}
            for f in fields
        },
    }


def schemas() -> dict[str, dict[str, Any]]:
    """File name to schema, for every command (the framing is every system's: adapters/_system_process.py)."""
    ops = {"type": "array", "minItems": 1, "items": {"oneOf": [_op(kind) for kind in OPERATIONS]}}
    return system_schemas(
        "txlog-writer",
        PROFILES,
        CAPABILITIES,
        configure=("a fresh writer, managed ledger and timer at virtual time 0, with this configuration", _config()),
        apply=("one operation (spec/txlog_writer/SPEC.md §2; tick moves the virtual clock), its result", ops, RESULT),
    )


if __name__ == "__main__":
    write_schemas(schemas(), SCHEMA_DIR)
