"""``ledgerspec mutants``: its options; the system's commands run them (``systems.commands_of``).

Parsing imports only the names it offers (conformance/_names.py): a usage error or ``--help`` costs
about a Python start, not the engine and Hypothesis (conformance/cli/_main.py).
"""

from __future__ import annotations

import argparse

from ledgerspec.conformance._names import SETTINGS_NAMES, add_output_options, add_system_option
from ledgerspec.conformance.cli._options import COUNT, SEED


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``mutants``."""
    parser = subcommands.add_parser("mutants", help="check that the suite kills every mutant of a system's reference")
    add_system_option(parser)
    parser.add_argument(
        "--path", help="a Python module defining MUTANTS (default: those shipped, ledgerspec.conformance.cache.mutants)"
    )
    parser.add_argument("--settings", choices=list(SETTINGS_NAMES), default="ci", help="how hard to search")
    parser.add_argument("--seed", type=SEED, help="seed, for a reproducible run (default: random, printed)")
    parser.add_argument(
        "--seeds",
        type=COUNT,
        default=1,
        metavar="N",
        help="run each mutant under N seeds (seed, seed+1, ...): how many kill it, median and worst seconds to kill",
    )
    parser.add_argument(
        "--jobs",
        type=COUNT,
        default=1,
        metavar="N",
        help="run the searches in N processes (default 1); the output is in the same order as with 1",
    )
    parser.add_argument("--mutant", action="append", metavar="NAME", help="run only these mutants (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="write the kill matrix, with counterexamples, as JSON")
    add_output_options(parser)
    parser.set_defaults(run=run_mutants)


def run_mutants(args: argparse.Namespace) -> int:
    """Print one row per mutant once its seeds are run, then the summary; exit 1 if any survived a seed."""
    from ledgerspec.conformance.systems import commands_of  # noqa: PLC0415 - the engine only to run

    return commands_of(args.system).mutants(args)
