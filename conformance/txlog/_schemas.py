"""The JSON Schemas of the txlog-writer system's protocol messages, made from the spec's types.

``python -m ledgerspec.conformance.txlog._schemas`` writes them to
``conformance/protocol/txlog-writer/v1/``; a test keeps the files equal to what this makes.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ledgerspec.spec.txlog import OPERATIONS, PROFILES, TRIGGERS, WriterConfig

BASE = "https://ledgerspec.invalid/conformance/protocol/txlog-writer/v1/"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / "txlog-writer" / "v1"
CAPABILITIES = ("metrics_delay",)
"""``metrics_delay``: the ``delay`` metric is measured on the virtual clock (else it is sent as null)."""
METRIC_SUMS = ("records", "bytes", "delay")
"""The histograms' sums a ``metrics`` result holds beside the trigger counters (spec/txlog/SPEC.md §2)."""
SEQ = {"type": ["integer", "string"]}
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


def _reply(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["seq"],
        "properties": {
            "seq": SEQ,
            "result": result,
            "skipped": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
            "errored": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
        },
        "oneOf": [{"required": ["result"]}, {"required": ["skipped"]}, {"required": ["errored"]}],
        "additionalProperties": False,
    }


def _request(cmd: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["cmd", "seq", *fields],
        "properties": {"cmd": {"const": cmd}, "seq": SEQ, **fields},
        "additionalProperties": False,
    }


EMPTY = {"type": "object", "additionalProperties": False}


def schemas() -> dict[str, dict[str, Any]]:
    """File name to schema, for every command."""
    implementation = {
        "type": "object",
        "required": ["name", "version", "language", "system", "profiles", "capabilities"],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "version": {"type": "string"},
            "language": {"type": "string"},
            "system": {"const": "txlog-writer"},
            "profiles": {"type": "array", "minItems": 1, "items": {"enum": list(PROFILES)}},
            "capabilities": {"type": "array", "uniqueItems": True, "items": {"enum": list(CAPABILITIES)}},
            "homepage": {"type": "string"},
            "issues": {"type": "string"},
        },
    }
    start = {
        "type": "object",
        "required": ["version", "implementation"],
        "additionalProperties": False,
        "properties": {"version": {"const": 1}, "implementation": implementation},
    }
    apply = {
        "type": "object",
        "required": ["results"],
        "additionalProperties": False,
        "properties": {"results": {"type": "array", "items": RESULT}},
    }
    ops = {"type": "array", "minItems": 1, "items": {"oneOf": [_op(kind) for kind in OPERATIONS]}}
    commands = {
        "start": (
            "version handshake: who the implementation is, its profiles and capabilities",
            _request("start", version={"const": 1}),
            start,
        ),
        "configure": (
            "a fresh writer, managed ledger and timer at virtual time 0, with this configuration",
            _request("configure", config=_config()),
            EMPTY,
        ),
        "apply": (
            "one operation (spec/txlog/SPEC.md §2; tick moves the virtual clock) and its result",
            _request("apply", ops=ops),
            apply,
        ),
        "stop": ("the end of the run: answer {} and exit 0", _request("stop"), EMPTY),
    }
    return {
        f"{cmd}.json": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{BASE}{cmd}.json",
            "title": f"{cmd} (txlog-writer): {title}",
            "$defs": {"request": request, "reply": _reply(result)},
        }
        for cmd, (title, request, result) in commands.items()
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2) + "\n"


if __name__ == "__main__":
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas().items():
        (SCHEMA_DIR / name).write_text(render(schema), encoding="utf-8")
