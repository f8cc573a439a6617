"""A lockstep system's counterexample as a file: a ``conform --system S --json`` report, or its case.

One reader for the two commands that take one: ``ledgerspec replay`` (the steps against an adapter)
and ``traces record --case`` (the steps recorded as a trace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.spec import SpecError


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
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        raise InputError(f"{label}: want an object with 'config' and 'steps' (a conform counterexample)")
    if not isinstance(data.get("config", {}), dict):
        raise InputError(f"{label}: field 'config': want an object, got {data['config']!r}")
    for number, step in enumerate(data["steps"], 1):
        if not isinstance(step, dict):
            raise InputError(f"{label}: step {number}: want an operation object, got {step!r}")
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
    invariant = data.get("invariant")
    return LockstepCase(system, config, steps, data.get("profile"), invariant if isinstance(invariant, str) else None)
