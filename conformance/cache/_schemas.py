"""JSON Schema fragments derived from the spec's Python types, shared by cases and the protocol.

The committed schema files (conformance/cache/case.schema.json, conformance/protocol/v1/common.json) are
these functions' output; tests keep them equal, so the Python types and the schemas cannot drift.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ledgerspec.conformance.cache.adapters._api import CAPABILITIES
from ledgerspec.spec.cache import OPERATIONS, PROFILES, CacheConfig, CachedEntry, Counters

_JSON_TYPES: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "int | None": {"type": ["integer", "null"]},
    "float": {"type": "number"},
    "float | None": {"type": ["number", "null"]},
    "bool": {"type": "boolean"},
    "bool | None": {"type": ["boolean", "null"]},
    "str": {"type": "string"},
}


def op_variants() -> list[dict[str, Any]]:
    """One object schema per operation kind: ``op`` is the kind, the other keys its fields."""
    variants = []
    for kind, cls in OPERATIONS.items():
        fields = dataclasses.fields(cls)
        properties: dict[str, Any] = {"op": {"const": kind}}
        properties |= {f.name: _JSON_TYPES[str(f.type)] for f in fields}
        required = ["op"] + [f.name for f in fields if f.default is dataclasses.MISSING]
        variants.append(
            {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        )
    return variants


def config_schema() -> dict[str, Any]:
    """``CacheConfig`` as an object: every field optional (defaults apply), no others."""
    return {
        "type": "object",
        "properties": {f.name: _JSON_TYPES[str(f.type)] for f in dataclasses.fields(CacheConfig)},
        "additionalProperties": False,
    }


def _entry_schema() -> dict[str, Any]:
    """An entry; ``requeues`` and ``accessed`` only from an adapter that claims them (observe_requeues, ...)."""
    fields = {f.name: _JSON_TYPES[str(f.type)] for f in dataclasses.fields(CachedEntry)}
    required = [f.name for f in dataclasses.fields(CachedEntry) if f.default is dataclasses.MISSING]
    return {"type": "object", "required": required, "properties": fields, "additionalProperties": False}


_QUEUE_FIELDS: dict[str, Any] = {
    "queue_length": {
        "type": ["integer", "null"],
        "minimum": 0,
        "description": "capability observe_queue_length: the removal queue's wrappers, tombstones included",
    },
    "non_evictable_size": {
        "type": ["integer", "null"],
        "minimum": 0,
        "description": "capability observe_non_evictable_size: the bytes getNonEvictableSize() counts",
    },
}


def _counters_schema() -> dict[str, Any]:
    counters = {f.name: {"type": "integer", "minimum": 0} for f in dataclasses.fields(Counters)}
    optional = [f.name for f in dataclasses.fields(Counters) if f.default is None]  # capabilities observe_...
    for name in optional:
        counters[name] = {"type": ["integer", "null"], "minimum": 0}
    required = [name for name in counters if name not in optional]
    return {"type": "object", "required": required, "properties": counters, "additionalProperties": False}


_COPY = {
    "type": "array",
    "prefixItems": [{"type": "integer", "minimum": 0}, {"type": ["integer", "null"]}],
    "minItems": 2,
    "maxItems": 2,
}


def observation_schema() -> dict[str, Any]:
    """``Observation.to_dict()``."""
    return {
        "type": "object",
        "required": ["entries", "size", "counters", "copies"],
        "additionalProperties": False,
        "properties": {
            "entries": {"type": "array", "items": _entry_schema()},
            "size": {"type": "integer"},
            "counters": _counters_schema(),
            "copies": {"type": "array", "items": _COPY},
            **_QUEUE_FIELDS,
        },
    }


def observation_delta_schema() -> dict[str, Any]:
    """What changed since the previous observation (conformance/cache/adapters/_delta.py)."""
    pair = [{"type": "integer"}, {"type": "integer"}]
    position = {"type": "array", "prefixItems": pair, "minItems": 2, "maxItems": 2}
    return {
        "type": "object",
        "description": (
            "The observation as a difference from the previous one the implementation sent (full or delta) "
            "since configure, or from the empty cache: entries added or changed, positions removed, copies "
            "opened or changed, copy ids closed; size, counters, queue_length and non_evictable_size in full. "
            "Removals apply first."
        ),
        "required": ["entries", "removed", "size", "counters", "copies", "closed"],
        "additionalProperties": False,
        "properties": {
            "entries": {"type": "array", "items": _entry_schema()},
            "removed": {"type": "array", "items": position},
            "size": {"type": "integer"},
            "counters": _counters_schema(),
            "copies": {"type": "array", "items": _COPY},
            "closed": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            **_QUEUE_FIELDS,
        },
    }


def protocol_common_schema() -> dict[str, Any]:
    """conformance/protocol/v1/common.json: the definitions every command refers to."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://ledgerspec.invalid/conformance/protocol/v1/common.json",
        "title": "ledgerspec process protocol v1: shared definitions",
        "description": (
            "JSON lines over stdin/stdout: one request per line from the runner, one reply per line from the "
            "implementation, in order. Every request carries an opaque seq that the reply echoes. Every reply "
            "is exactly one of result, skipped (unsupported, with a reason) or errored (with context). Logs go "
            "to stderr, never stdout."
        ),
        "$defs": {
            "seq": {"type": ["integer", "string"]},
            "profile": {"enum": sorted(PROFILES)},
            "capability": {"enum": sorted(CAPABILITIES)},
            "skipped": {
                "type": "object",
                "required": ["message"],
                "properties": {"message": {"type": "string"}, "issue_url": {"type": "string"}},
                "additionalProperties": False,
            },
            "errored": {
                "type": "object",
                "required": ["message"],
                "properties": {
                    "message": {"type": "string"},
                    "traceback": {"type": "string"},
                    "stderr": {"type": "string"},
                },
                "additionalProperties": False,
            },
            "config": config_schema(),
            "op": {"oneOf": op_variants()},
            "op_result": {
                "oneOf": [
                    {"type": "null"},
                    {"type": "boolean"},
                    {"type": "integer"},
                    {"type": "array", "items": {"type": ["integer", "null"]}},
                ]
            },
            "observation": observation_schema(),
            "observation_delta": observation_delta_schema(),
        },
    }
