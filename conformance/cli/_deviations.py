"""``ledgerspec deviations``: its options; the default system writes DEVIATIONS.md, every system's section in it.

Parsing imports only the names it offers (conformance/_names.py): a usage error or ``--help`` costs
about a Python start, not the engine and Hypothesis (conformance/cli/_main.py).
"""

from __future__ import annotations

import argparse

from ledgerspec.conformance._names import SETTINGS_NAMES
from ledgerspec.conformance.cli._options import SEED

CASES_DIR = "conformance/cases/findings"


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``deviations``."""
    parser = subcommands.add_parser("deviations", help="regenerate DEVIATIONS.md from the suite's own findings")
    parser.add_argument("--output", default="DEVIATIONS.md", help="where to write the report")
    parser.add_argument("--cases-dir", default=CASES_DIR, help="where to save the cases")
    parser.add_argument("--settings", choices=list(SETTINGS_NAMES), default="ci")
    parser.add_argument("--seed", type=SEED, default=11)
    parser.add_argument(
        "--real", action="store_true", help="judge the real-code targets and write only their section (Maven)"
    )
    parser.set_defaults(run=run_deviations)


def run_deviations(args: argparse.Namespace) -> int:
    """Search every observable finding, write the cases and the report; exit 1 if one was not found."""
    from ledgerspec.conformance.systems import commands_of, default  # noqa: PLC0415 - the engine only to run

    return commands_of(default()).deviations(args)
