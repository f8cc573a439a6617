"""``ledgerspec bench``: the figures behind BENCHMARKS.md (reference, lockstep, process protocol)."""

from __future__ import annotations

import argparse

from ledgerspec.conformance._names import add_system_option
from ledgerspec.conformance.cli._options import COUNT


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bench``."""
    parser = subcommands.add_parser("bench", help="benchmark the reference, lockstep runs and the process protocol")
    add_system_option(parser)
    parser.add_argument("--operations", type=COUNT, default=200_000, help="size of the reference's mixed workload")
    parser.add_argument(
        "--real", action="store_true", help="only the real-code harnesses against the Python reference (Maven)"
    )
    parser.add_argument(
        "--startup",
        action="store_true",
        help="only what --version, --help and usage errors cost against `python -c 'import argparse'`",
    )
    parser.set_defaults(run=run_bench)


def run_bench(args: argparse.Namespace) -> int:
    """Print every figure."""
    if args.startup:
        from ledgerspec.conformance.bench._startup import run_startup  # noqa: PLC0415

        return run_startup()
    from ledgerspec.conformance.systems import commands_of  # noqa: PLC0415 - only to run

    return commands_of(args.system).bench(args)
