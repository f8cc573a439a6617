"""What ``ledgerspec conform``, ``replay``, ``smoke``, ``matrix`` and ``adapters`` do: each asks the system's commands.

``systems.commands_of`` gives a system's engine: the cache's own (its observation monitor), or the
lockstep engine over the system's record. ``replay`` reads the case first: the system is the one it names.
"""

from __future__ import annotations

import argparse

from ledgerspec.conformance._case_file import case_system, read_case_json
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._names import check_profile
from ledgerspec.conformance.cli._main import EXIT_OK
from ledgerspec.conformance.systems import commands_of, names


def run_conform(args: argparse.Namespace) -> int:
    """Search the adapter against the profile (checked before the engine loaded); print and save the report."""
    return commands_of(args.system).conform(args)


def run_replay(args: argparse.Namespace) -> int:
    """Replay a case (or a report holding one) against an adapter, with the engine of the system it names."""
    data = read_case_json(args.case)  # read once
    args.case_system = case_system(data)
    if args.system is not None and args.system != args.case_system:
        raise InputError(f"--system {args.system}: {args.case} is a case of the {args.case_system} system")
    return commands_of(args.case_system).replay(args, data)


def run_smoke(args: argparse.Namespace) -> int:
    """Whether the adapter is wired right: the system's own check (not a verdict)."""
    check_profile(args.system, args.profile)
    return commands_of(args.system).smoke(args)


def run_matrix(args: argparse.Namespace) -> int:
    """Every installed adapter of the system against every profile."""
    return commands_of(args.system).matrix(args)


def run_adapters(_args: argparse.Namespace) -> int:
    """Every system's adapters, with what they claim; real-code harnesses with the versions they drive."""
    print("\n\n".join("\n".join(commands_of(name).adapters()) for name in names()))
    return EXIT_OK
