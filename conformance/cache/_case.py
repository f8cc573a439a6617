"""Conformance cases: a counterexample as portable, replayable data.

A case is a configuration, a profile, a list of steps and what the spec expects after each of them.
Saved as JSON (schema: conformance/cache/case.schema.json), it can be replayed against any adapter with
``ledgerspec replay``, by this package or by a runner in another language using ``expected`` alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from ledgerspec.conformance._case_file import read_case_json
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.cache._schemas import config_schema, observation_schema, op_variants
from ledgerspec.spec.cache import (
    PROFILES,
    CacheConfig,
    CursorAdd,
    CursorRemove,
    CursorSeek,
    Monitor,
    Op,
    get_profile,
    op_from_dict,
)
from ledgerspec.spec.cache._catalogue import INVARIANTS

SUITE = "ledgerspec-entry-cache"
SPEC_VERSION = "1"
SCHEMA_PATH = Path(__file__).with_name("case.schema.json")


@dataclass
class Case:
    """A named sequence of steps with the spec's expectations and, for a finding, what broke."""

    description: str
    profile: str
    config: CacheConfig
    steps: list[Op]
    invariant: str | None = None
    """The invariant the candidate broke (None for a plain vector)."""
    failing_step: int | None = None
    """1-based index of the step where it broke; 0: an adapter fault with no step taken (start, configure, stop)."""
    message: str | None = None
    found_with: str | None = None
    """The adapter that broke it."""
    preset: str | None = None
    config_preset: str | None = None
    """The named configuration the run started from (``conform --config-preset``), if any."""
    comment: str | None = None
    requires: list[str] = field(default_factory=list)
    expected: list[dict[str, Any]] | None = None
    """Per step, the spec's result and observation, when the model allows exactly one outcome."""
    source: str | None = field(default=None, compare=False)
    """The file it was read from, for messages (not part of the JSON)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see case.schema.json)."""
        document: dict[str, Any] = {
            "manifest": {
                "suite": SUITE,
                "spec_version": SPEC_VERSION,
                "preset": self.preset,
                **({"config_preset": self.config_preset} if self.config_preset else {}),
            },
            "description": self.description,
            "profile": self.profile,
            "config": self.config.to_dict(),
            "steps": [op.to_dict() for op in self.steps],
        }
        for key in ("comment", "invariant", "failing_step", "message", "found_with"):
            value = getattr(self, key)
            if value is not None:
                document[key] = value
        if self.requires:
            document["requires"] = sorted(self.requires)
        if self.expected is not None:
            document["expected"] = self.expected
        return document

    def dumps(self) -> str:
        """Pretty JSON."""
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: Any, *, where: str) -> Case:
        """Validate against the schema, then build; errors name the file and the JSON path."""
        validate(data, where=where)
        steps = [op_from_dict(step, where=f"{where}: steps[{i}]") for i, step in enumerate(data["steps"])]
        _check_sequence(steps, where)
        _check_pointers(data, len(steps), where)
        return cls(
            description=data["description"],
            profile=data["profile"],
            config=CacheConfig.from_dict(data["config"], where=f"{where}: config"),
            steps=steps,
            invariant=data.get("invariant"),
            failing_step=data.get("failing_step"),
            message=data.get("message"),
            found_with=data.get("found_with"),
            preset=data["manifest"].get("preset"),
            config_preset=data["manifest"].get("config_preset"),
            comment=data.get("comment"),
            requires=list(data.get("requires", [])),
            expected=data.get("expected"),
            source=where,
        )


NO_STEPS = (
    "a case has steps, unless it records an adapter fault with no step taken (failing_step 0, no invariant, "
    "no steps): replayed, the adapter is only started, configured and stopped"
)
"""The rule of ``FAULT_AT_START``, said when a case breaks it."""
FAULT_AT_START = {
    "if": {"required": ["failing_step"], "properties": {"failing_step": {"const": 0}}},
    "then": {"properties": {"steps": {"maxItems": 0}, "invariant": {"not": {}}}},
    "else": {"properties": {"steps": {"minItems": 1}}},
}
"""No steps only for a fault with no step taken (``conform`` saves one when the adapter faults at start or
configure, or at the stop of an example that took none), and then no invariant: an invariant breaks at a step."""


def _check_sequence(steps: list[Op], where: str) -> None:
    """What any runner may send, whatever the adapter answers: a rising clock, cursors added before use.

    A case that breaks this is bad input; replayed, it would be blamed on the adapter that refused it.
    """
    active: set[tuple[int, str]] = set()
    for index, op in enumerate(steps):
        if index and op.now <= steps[index - 1].now:
            raise InputError(
                f"{where}: steps[{index}]: now {op.now} is not after the previous step's {steps[index - 1].now} "
                "(the clock strictly increases)"
            )
        if isinstance(op, CursorAdd | CursorRemove | CursorSeek):
            cursor = (op.ledger, op.cursor)
            if isinstance(op, CursorAdd) == (cursor in active):
                state = "already active" if cursor in active else "not active"
                raise InputError(f"{where}: steps[{index}]: cursor {op.cursor!r} of ledger {op.ledger} is {state}")
            if isinstance(op, CursorAdd):
                active.add(cursor)
            elif isinstance(op, CursorRemove):
                active.discard(cursor)


def _check_pointers(data: dict[str, Any], steps: int, where: str) -> None:
    """``failing_step`` and ``expected`` refer to the steps the case has."""
    failing = data.get("failing_step")
    if failing is not None and failing > steps:
        raise InputError(f"{where}: failing_step {failing} is past the {steps} steps")
    expected = data.get("expected")
    if expected is not None and len(expected) != steps:
        raise InputError(f"{where}: expected lists {len(expected)} steps, the case has {steps}")


def load_case(path: str | Path) -> Case:
    """Read a case file; a missing or binary file, bad JSON or a schema violation is an :class:`InputError`."""
    return Case.from_dict(read_case_json(path), where=str(path))


_SCHEMA: dict[str, Any] | None = None


def validate(data: Any, *, where: str) -> None:
    """Check a case document against case.schema.json."""
    global _SCHEMA  # noqa: PLW0603 - loaded once, on first use
    if _SCHEMA is None:
        _SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(_SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        schema_path = errors[0].absolute_schema_path
        rule = f" ({NO_STEPS})" if schema_path and schema_path[0] in FAULT_AT_START else ""
        first = _within_its_op(errors[0])
        location = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise InputError(f"{where}: at {location}: {first.message}{rule}")


def _within_its_op(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """A step that matches no operation's schema: the error of its own operation's (its ``op``), if any.

    Otherwise the schema says only that the step is "not valid under any of the given schemas".
    """
    if error.validator != "oneOf" or not error.context:
        return error
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    own = [subs for subs in branches.values() if not any(list(sub.relative_path) == ["op"] for sub in subs)]
    if len(own) == 1:
        return _within_its_op(min(own[0], key=lambda e: list(e.path)))
    known = sorted({str(sub.validator_value) for sub in error.context if sub.validator == "const"})
    if not own and known and isinstance(error.instance, dict) and "op" in error.instance:
        return jsonschema.ValidationError(
            f"{error.instance['op']!r} is not an operation; known: {', '.join(known)}",
            path=[*error.absolute_path, "op"],
        )
    return error


def expected_observations(profile: str, config: CacheConfig, steps: list[Op]) -> list[dict[str, Any]] | None:
    """The spec's result and observation after each step, or None if the model ever branches."""
    model = get_profile(profile)
    state = model.init(config)
    expected = []
    for op in steps:
        outcomes = model.step(state, op)
        if len(outcomes) != 1:
            return None
        (outcome,) = outcomes
        state = outcome.state
        expected.append({"result": _plain(outcome.result), "observation": model.observe(state).to_dict()})
    return expected


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def model_divergence(
    profile: str, config: CacheConfig, history: list[Any], project: Any = None
) -> tuple[int, str] | None:
    """The first step (1-based) where the candidate left the model, with the difference."""
    monitor = Monitor(profile, config, invariants=["CACHE-MODEL"], project=project)
    for index, step in enumerate(history, start=1):
        violations = monitor.check(step.op, step.result, step.observation)
        if violations:
            return index, violations[0].message
    return None


def build_schema() -> dict[str, Any]:
    """The case schema, derived from the operation classes, the profiles and the catalogue.

    conformance/cache/case.schema.json is this function's output (tests/unit/test_cases.py keeps it so).
    """
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://ledgerspec.invalid/conformance/cache/case.schema.json",
        "title": "ledgerspec entry-cache conformance case",
        "type": "object",
        "required": ["manifest", "description", "profile", "config", "steps"],
        "additionalProperties": False,
        "properties": {
            "manifest": {
                "type": "object",
                "required": ["suite", "spec_version"],
                "properties": {
                    "suite": {"const": SUITE},
                    "spec_version": {"const": SPEC_VERSION},
                    "preset": {"type": ["string", "null"]},
                    "config_preset": {"type": "string"},
                },
                "additionalProperties": False,
            },
            "description": {"type": "string", "minLength": 1, "maxLength": 120},
            "comment": {"type": "string"},
            "profile": {"enum": sorted(PROFILES)},
            "config": config_schema(),
            "steps": {"type": "array", "items": {"oneOf": op_variants()}},
            "invariant": {"enum": sorted(INVARIANTS)},
            "failing_step": {
                "type": "integer",
                "minimum": 0,
                "description": "the 1-based step where the case broke; 0: an adapter fault with no step taken",
            },
            "message": {"type": "string"},
            "found_with": {"type": "string"},
            "requires": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "expected": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["result", "observation"],
                    "properties": {"result": {}, "observation": observation_schema()},
                    "additionalProperties": False,
                },
            },
        },
        **FAULT_AT_START,
    }
