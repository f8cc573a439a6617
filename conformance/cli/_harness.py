"""``ledgerspec harness build | test``: the real-code harnesses' Maven build and their JUnit reproductions.

The harness module (and the adapters package it loads) is imported only when an action runs: a usage
error or ``--help`` costs about a Python start (conformance/cli/_main.py).
"""

from __future__ import annotations

import argparse
import sys

from ledgerspec.conformance.cli._main import EXIT_OK


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``harness`` and its two actions."""
    parser = subcommands.add_parser("harness", help="build the harnesses of the real Pulsar and BookKeeper code")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build_parser = actions.add_parser("build", help="build every harness with Maven into the cache (if needed)")
    build_parser.add_argument("--force", action="store_true", help="build again even if the sources are built")
    build_parser.set_defaults(run=run_build)
    test_parser = actions.add_parser("test", help="run the JUnit reproductions of the harness project (mvn test)")
    test_parser.set_defaults(run=run_test)


def run_build(args: argparse.Namespace) -> int:
    """Build (or find) the harnesses and say where they are."""
    from ledgerspec.conformance.adapters._harness import HARNESSES, SYSTEM_HARNESSES, build, is_built  # noqa: PLC0415

    was_built = is_built()
    directory = build(force=args.force)
    print(f"{'already built' if was_built and not args.force else 'built'}: {directory}")
    width = max(len(name) for name in [*HARNESSES, *SYSTEM_HARNESSES])
    for harness in HARNESSES.values():
        print(f"  {harness.name:<{width}} {harness.coordinates:<42} -> profile {harness.profile}")
    for system, harness in SYSTEM_HARNESSES.values():
        print(f"  {harness.name:<{width}} {harness.coordinates:<42} -> {system}, profile {harness.profile}")
    return EXIT_OK


def run_test(_args: argparse.Namespace) -> int:
    """Run ``mvn test`` with the reproductions switched on; Maven's exit decides."""
    from ledgerspec.conformance.adapters._harness import build_dir, reproductions, run_reproductions  # noqa: PLC0415

    if not reproductions():
        print("no reproductions: no deviation of the real code looks like a bug of it (DEVIATIONS.md)")
        return EXIT_OK
    log = run_reproductions(log=sys.stderr)
    print(f"reproductions passed; Maven's log: {log}")
    print(f"(the build they ran against: {build_dir()})")
    return EXIT_OK
