"""``ledgerspec mutants``: run the suite against every mutant of the reference and print the kill matrix."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._mutants import (
    Kill,
    header,
    kill_matrix,
    line,
    load_mutants,
    summary,
    to_json,
)
from ledgerspec.conformance._presets import SETTINGS
from ledgerspec.conformance.cli._main import EXIT_FAIL, EXIT_OK
from ledgerspec.conformance.cli._options import COUNT, SEED, check_outputs


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``mutants``."""
    parser = subcommands.add_parser("mutants", help="check that the suite kills every mutant of the reference")
    parser.add_argument(
        "--path", help="a Python module defining MUTANTS (default: those shipped, ledgerspec.conformance.mutants)"
    )
    parser.add_argument("--settings", choices=list(SETTINGS), default="ci", help="how hard to search")
    parser.add_argument("--seed", type=SEED, help="seed, for a reproducible run (default: random, printed)")
    parser.add_argument(
        "--seeds", type=COUNT, default=1, metavar="N", help="run the matrix N times (seed, seed+1, ...): the kill rate"
    )
    parser.add_argument("--mutant", action="append", metavar="NAME", help="run only these mutants (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="write the kill matrix, with counterexamples, as JSON")
    parser.set_defaults(run=run_mutants)


def run_mutants(args: argparse.Namespace) -> int:
    """Print one row per mutant as it is decided, then the summary; exit 1 if any survived."""
    check_outputs(args, files=("json",))
    mutants = load_mutants(args.path)
    source = args.path or "ledgerspec.conformance.mutants"
    if args.mutant:
        unknown = sorted(set(args.mutant) - {m.name for m in mutants})
        if unknown:
            raise InputError(f"unknown mutant(s) {unknown}; {source} defines {[m.name for m in mutants]}")
        mutants = [m for m in mutants if m.name in args.mutant]
    seed = random.randrange(2**32) if args.seed is None else args.seed
    width = max(len("mutant"), *(len(m.name) for m in mutants))
    every: list[Kill] = []
    for current in range(seed, seed + args.seeds):
        print(f"{len(mutants)} mutants from {source} (settings {args.settings}, seed {current})")
        print(header(width))

        def show(kill: Kill) -> None:
            print(line(kill, width), flush=True)

        kills = kill_matrix(mutants, settings=args.settings, seed=current, on_kill=show)
        print()
        print(summary(kills))
        print()
        every += kills
    if args.seeds > 1:
        print(f"over {args.seeds} seeds:")
        print(summary(every))
    if args.json:
        document = to_json(every, settings=args.settings, seed=seed)
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK if all(kill.killed for kill in every) else EXIT_FAIL
