"""``ledgerspec mutants``: run the suite against every mutant of the reference and print the kill matrix."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._mutants import (
    Rate,
    header,
    kill_rates,
    line,
    load_mutants,
    summary,
    to_json,
)
from ledgerspec.conformance._presets import SETTINGS
from ledgerspec.conformance.cli import _systems
from ledgerspec.conformance.cli._main import EXIT_FAIL, EXIT_OK
from ledgerspec.conformance.cli._options import COUNT, SEED, check_outputs


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``mutants``."""
    parser = subcommands.add_parser("mutants", help="check that the suite kills every mutant of the reference")
    _systems.add_system_option(parser)
    parser.add_argument(
        "--path", help="a Python module defining MUTANTS (default: those shipped, ledgerspec.conformance.mutants)"
    )
    parser.add_argument("--settings", choices=list(SETTINGS), default="ci", help="how hard to search")
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
    parser.set_defaults(run=run_mutants)


def run_mutants(args: argparse.Namespace) -> int:
    """Print one row per mutant once its seeds are run, then the summary; exit 1 if any survived a seed."""
    if args.system in _systems.SYSTEMS:
        return _systems.run_mutants(args)
    check_outputs(args, files=("json",))
    mutants = load_mutants(args.path)
    source = args.path or "ledgerspec.conformance.mutants"
    if args.mutant:
        unknown = sorted(set(args.mutant) - {m.name for m in mutants})
        if unknown:
            raise InputError(f"unknown mutant(s) {unknown}; {source} defines {[m.name for m in mutants]}")
        mutants = [m for m in mutants if m.name in args.mutant]
    seed = random.randrange(2**32) if args.seed is None else args.seed
    seeds = range(seed, seed + args.seeds)
    width = max(len("mutant"), *(len(m.name) for m in mutants))
    which = f"seed {seed}" if args.seeds == 1 else f"seeds {seed}-{seeds[-1]}"
    print(f"{len(mutants)} mutants from {source} (settings {args.settings}, {which})")
    print(header(width))

    def show(rate: Rate) -> None:
        print(line(rate, width), flush=True)

    rates = kill_rates(mutants, settings=args.settings, seeds=seeds, on_rate=show, jobs=args.jobs)
    print()
    print(summary(rates))
    if args.json:
        document = to_json(rates, settings=args.settings, seed=seed)
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK if all(rate.killed == rate.seeds for rate in rates) else EXIT_FAIL
