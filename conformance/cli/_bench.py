"""``ledgerspec bench``: the figures behind BENCHMARKS.md (reference, lockstep, process protocol)."""

from __future__ import annotations

import argparse

from ledgerspec.conformance.cli._options import COUNT


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bench``."""
    parser = subcommands.add_parser("bench", help="benchmark the reference, lockstep runs and the process protocol")
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
    if args.real:
        from ledgerspec.conformance.cache._bench_real import run_real  # noqa: PLC0415 - heavy

        run_real()
        return 0
    from ledgerspec.conformance.cache._bench import run_all  # noqa: PLC0415 - heavy

    run_all(operations=args.operations)
    return 0
