"""``traces record --system S`` for the lockstep systems (``traces check`` finds the system in the header)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ledgerspec.conformance._case_file import read_case_json
from ledgerspec.conformance._errors import AdapterFault, InputError, close_factory
from ledgerspec.conformance.lockstep._adapters import resolve_adapter, unclaimed, walk
from ledgerspec.conformance.lockstep._case import read_case
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.spec import SpecError
from ledgerspec.traces.core._record import discarded
from ledgerspec.traces.lockstep._record import record_history

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
            case = read_case(system, read_case_json(args.case), f"--case {args.case}")
            config, case_profile, histories = case.config, case.profile, [case.steps]
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
    except AdapterFault as fault:
        raise discarded(fault, args.out) from None
    finally:
        stop_fault = close_factory(process)  # the final ``stop``
    if stop_fault is not None:
        raise discarded(stop_fault, args.out)
    print(f"recorded {rows} events of {len(histories)} {system} histories of {args.adapter} to {args.out}")
    return 0
