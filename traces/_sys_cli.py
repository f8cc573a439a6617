"""``traces record --system S`` for the lockstep systems (``traces check`` finds the system in the header)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.spec import SpecError, cursor_state, txlog
from ledgerspec.traces._sys_io import SYSTEMS
from ledgerspec.traces._sys_record import record_history, resolve_adapter, unclaimed, walk

DEFAULT_STEPS = 200
"""Operations per recorded history unless ``--events`` says otherwise."""


def _config(system: str, text: str | None) -> Any:
    try:
        overrides = json.loads(text) if text else {}
        if not isinstance(overrides, dict):
            raise InputError("--config: want a JSON object")
        return SYSTEMS[system].config.from_dict(overrides)
    except json.JSONDecodeError as error:
        raise InputError(f"--config: invalid JSON: {error.msg}") from None
    except (SpecError, TypeError) as error:
        raise InputError(f"--config: {error}") from None


def _case(system: str, path: str) -> tuple[Any, list[Any], str | None]:
    """(config, steps, profile) of a counterexample: a case object, or a ``conform --json`` report holding one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"--case {path}: cannot read a JSON case: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("counterexample"), dict):
        data = data["counterexample"]
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        raise InputError(f"--case {path}: want an object with 'config' and 'steps' (a conform counterexample)")
    if not isinstance(data.get("config", {}), dict):
        raise InputError(f"--case {path}: field 'config': want an object, got {data['config']!r}")
    for number, step in enumerate(data["steps"], 1):
        if not isinstance(step, dict):
            raise InputError(f"--case {path}: step {number}: want an operation object, got {step!r}")
    if data.get("system", system) != system:
        raise InputError(f"--case {path}: field 'system': {data.get('system')!r}, but --system is {system}")
    try:
        config = SYSTEMS[system].config.from_dict(data.get("config", {}))
    except (SpecError, TypeError, KeyError) as error:
        raise InputError(f"--case {path}: {error}") from None
    return config, _steps(system, path, data["steps"]), data.get("profile")


def _steps(system: str, path: str, steps: list[dict[str, Any]]) -> list[Any]:
    """The case's operations; a bad one names its step (from 1) and kind."""
    op_from_dict = cursor_state.op_from_dict if system == "cursor-state" else txlog.op_from_dict
    ops = []
    for number, step in enumerate(steps, 1):
        try:
            ops.append(op_from_dict(step))
        except (SpecError, TypeError, KeyError) as error:
            raise InputError(f"--case {path}: step {number} ({step.get('op')!r}): {error}") from None
    return ops


def refuse_ignored(args: argparse.Namespace) -> None:
    """A usage error naming an option this run would ignore (a trace must be what was asked for)."""
    if args.workload is not None:
        raise InputError(
            f"--workload {args.workload}: the cache's workload generator; a {args.system} trace is a random walk "
            "of the system's operations (--events, --histories, --seed) or a --case's steps"
        )
    if args.case:
        fixed = {"--config": args.config, "--events": args.events, "--histories": args.histories, "--seed": args.seed}
        for option, value in fixed.items():
            if value is not None:
                raise InputError(f"{option} {value}: not with --case, whose config and steps are recorded as they are")


def run_record_system(args: argparse.Namespace) -> int:
    """Drive a candidate of the system through random walks (or a case's steps) and write the trace.

    The walks hold only operations the adapter claims; a case or a config asking for more is refused.
    """
    system = args.system
    refuse_ignored(args)
    default, factory, process, capabilities = resolve_adapter(system, args.adapter)
    try:
        if args.case:
            config, steps, case_profile = _case(system, args.case)
            histories = [steps]
        else:
            config, case_profile = _config(system, args.config), None
        profile = args.profile or case_profile or default
        if profile not in SYSTEMS[system].profiles:
            raise InputError(f"--profile {profile}: the {system} system has {', '.join(SYSTEMS[system].profiles)}")
        problem = unclaimed(system, config, histories[0] if args.case else [], capabilities)
        if problem is not None:
            claims = ", ".join(sorted(capabilities)) or "none"
            where = f"--case {args.case}" if args.case else "--config"
            raise InputError(f"{where}: {problem}, which {args.adapter} does not claim (it claims: {claims})")
        if not args.case:
            count = args.events or DEFAULT_STEPS
            runs = range(args.histories or 1)
            histories = [walk(system, profile, config, (args.seed or 0) + n, count, capabilities) for n in runs]
        source = f"case {args.case}" if args.case else f"seed {args.seed or 0}"
        rows, _ = record_history(
            factory, system, profile, config, histories, args.out, f"recorded from {args.adapter}, {source}"
        )
    finally:
        if process is not None:
            process.close()
    print(f"recorded {rows} events of {len(histories)} {system} histories of {args.adapter} to {args.out}")
    return 0
