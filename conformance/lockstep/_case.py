"""A lockstep system's counterexample as a file: a ``conform --system S --json`` report, or its case.

One reader for the two commands that take one: ``ledgerspec replay`` (the steps against an adapter)
and ``traces record --case`` (the steps recorded as a trace). A case is checked against its system's case
schema (:func:`case_schema`), made from the schemas of its process protocol, which are made from the
spec's types: the configuration of ``configure`` and the operations of ``apply``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.systems import SYSTEMS, System
from ledgerspec.spec import SpecError

SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class LockstepCase:
    """What a counterexample holds: the configuration, the steps, and what conform said of them."""

    system: str
    config: Any
    steps: list[Any]
    profile: str | None
    invariant: str | None


def read_case(system: str, data: Any, label: str) -> LockstepCase:
    """The case in ``data`` (a case object, or a report holding one); ``label`` names the file in errors."""
    if isinstance(data, dict) and isinstance(data.get("counterexample"), dict):
        data = data["counterexample"]
    _check_shape(data, label)
    if data.get("system", system) != system:
        raise InputError(f"{label}: field 'system': {data.get('system')!r}, but --system is {system}")
    config_from_dict, op_from_dict = SYSTEMS[system].config.from_dict, SYSTEMS[system].op_from_dict
    try:
        config = config_from_dict(data.get("config", {}))
    except (SpecError, TypeError, KeyError) as error:
        raise InputError(f"{label}: {error}") from None
    steps = []
    for number, step in enumerate(data["steps"], 1):
        try:
            steps.append(op_from_dict(step))
        except (SpecError, TypeError, KeyError) as error:
            raise InputError(f"{label}: step {number} ({step.get('op')!r}): {error}") from None
    _check_schema(SYSTEMS[system], data, label)
    invariant = data.get("invariant")
    return LockstepCase(system, config, steps, data.get("profile"), invariant if isinstance(invariant, str) else None)


def _check_shape(data: Any, label: str) -> None:
    """An input error naming what of a case's outline is wrong: the object, its steps, its config."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise InputError(f"{label}: want an object with 'config' and 'steps' (a conform counterexample)")
    if not data["steps"]:
        raise InputError(f"{label}: field 'steps': empty; a counterexample has at least one step")
    if not isinstance(data.get("config", {}), dict):
        raise InputError(f"{label}: field 'config': want an object, got {data['config']!r}")
    for number, step in enumerate(data["steps"], 1):
        if not isinstance(step, dict):
            raise InputError(f"{label}: step {number}: want an operation object, got {step!r}")


def case_schema(system: System) -> dict[str, Any] | None:
    """The JSON Schema of a case of ``system``: its protocol's config (each field optional) and operations.

    None for a system that publishes no protocol schemas (the test-only queue): its ``from_dict`` reads alone.
    """
    if system.process is None or not (system.process.schema_dir / "apply.json").is_file():
        return None
    request = functools.partial(_request, system.process.schema_dir)
    return {
        "$schema": SCHEMA_DRAFT,
        "title": f"a {system.name} case: the counterexample of `ledgerspec conform --system {system.name}`",
        "type": "object",
        "required": ["steps"],
        "properties": {
            "system": {"const": system.name},
            "profile": {"enum": list(system.profiles)},
            "invariant": {"type": ["string", "null"]},
            "message": {"type": "string"},
            "config": {key: value for key, value in request("configure")["config"].items() if key != "required"},
            "steps": {"type": "array", "minItems": 1, "items": request("apply")["ops"]["items"]},
        },
    }


@functools.cache
def _request(schema_dir: Any, command: str) -> dict[str, Any]:
    """The properties of a protocol request (``configure``, ``apply``), from the system's schema file."""
    document = json.loads((schema_dir / f"{command}.json").read_text(encoding="utf-8"))
    properties: dict[str, Any] = document["$defs"]["request"]["properties"]
    return properties


def _check_schema(system: System, data: dict[str, Any], label: str) -> None:
    """An input error naming the first place where ``data`` breaks the system's case schema."""
    schema = case_schema(system)
    if schema is None:
        return
    from jsonschema import Draft202012Validator  # noqa: PLC0415 - only to read a case

    error = next(iter(sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise InputError(f"{label}: {where}: {error.message} (the {system.name} case schema)")
