"""``ledgerspec conform``, ``replay``, ``smoke``, ``adapters`` and ``matrix``: their options.

Parsing imports only the names they offer (conformance/_names.py); what each command does is in
``_conform_run``, imported when it runs: a usage error or ``--help`` costs about a Python start.
"""

from __future__ import annotations

import argparse
from typing import Any

from ledgerspec.conformance._names import (
    PRESET_NAMES,
    PROFILE_HELP,
    SETTINGS_NAMES,
    adapter_name,
    add_output_options,
    add_system_option,
    check_profile,
)
from ledgerspec.conformance.cli._options import COUNT, SEED, seconds

CONFORM_DESCRIPTION = """\
Run an adapter in lockstep with a system's specification and report each invariant of the profile:
PASS (exit 0), FAIL with counterexamples (1) or ERROR, an adapter fault (3). The systems (--system):
  cache         the broker entry cache (PIP-430), the default; adapters reference-<profile>,
                module:attr, exec:COMMAND (conformance/protocol/README.md), the real-code harnesses
  cursor-state  a managed cursor's persisted state (PIP-381); reference-pip381, reference-pulsar-master,
                exec:COMMAND (conformance/protocol/cursor-state.md), cursor-state-managed-cursor-4.2.4,
                cursor-state-managed-cursor-4.0.8
  txlog-writer  the transaction-log buffered writer (PIP-160); reference-pip160,
                reference-pulsar-master, exec:COMMAND (conformance/protocol/txlog-writer.md),
                txlog-writer-buffered-writer-4.2.4
--profile takes only the chosen system's profiles.
"""


def add_adapter_options(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``--adapter`` and the options of process adapters."""
    parser.add_argument(
        "--adapter", required=required, type=adapter_name, help="installed name, module:attr or exec:COMMAND"
    )
    parser.add_argument("--timeout", type=seconds, default=10.0, help="seconds a process adapter may take per step")
    parser.add_argument(
        "--validate-protocol", action="store_true", help="validate process-protocol traffic against the schemas"
    )


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """Profile, preset, settings, examples and seed."""
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help=PROFILE_HELP,
    )
    parser.add_argument("--preset", choices=PRESET_NAMES, default="minimal")
    parser.add_argument("--settings", choices=SETTINGS_NAMES, default="quick", help="how hard to search")
    parser.add_argument("--examples", type=COUNT, help="examples per search (overrides the settings)")
    parser.add_argument("--seed", type=SEED, help="seed, for a reproducible run")
    parser.add_argument(
        "--config-preset",
        metavar="NAME",
        help="a named configuration of the profile, pinned for the run (`ledgerspec spec show` lists them)",
    )


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``conform``, ``replay``, ``smoke``, ``adapters`` and ``matrix``."""
    parser = subcommands.add_parser(
        "conform",
        help="check an adapter of any system against a profile",
        description=CONFORM_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_system_option(parser)
    add_adapter_options(parser)
    add_search_options(parser)
    parser.add_argument("--invariant", action="append", help="check only these invariants (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON")
    parser.add_argument("--junit-xml", metavar="FILE", help="write the report as JUnit XML")
    parser.add_argument("--cases-dir", default="ledgerspec-cases", metavar="DIR", help="where failing cases are saved")
    add_output_options(parser)
    parser.set_defaults(run=run_conform)

    parser = subcommands.add_parser("replay", help="re-run a saved case against an adapter")
    parser.add_argument("case", help="a case file (JSON), or a lockstep system's conform --json report")
    add_system_option(parser, every="the system the case names")
    add_adapter_options(parser)
    parser.add_argument("--all", action="store_true", help="check every claimed invariant, not only the case's")
    parser.set_defaults(run=run_replay)

    parser = subcommands.add_parser("smoke", help="check that an adapter of any system is wired right (not a verdict)")
    add_system_option(parser)
    add_adapter_options(parser)
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help="the profile to drive (default: the adapter's first); the cache's smoke also tries its traps: "
        "pip430's null expected_reads, legacy's cursor-driven invalidation",
    )
    parser.set_defaults(run=run_smoke)

    parser = subcommands.add_parser("adapters", help="list every system's adapters")
    parser.set_defaults(run=run_adapters)

    parser = subcommands.add_parser("matrix", help="every installed adapter of a system against each of its profiles")
    add_system_option(parser)
    add_search_options(parser)
    parser.add_argument("--json", metavar="FILE", help="write all reports as JSON")
    parser.add_argument("--junit-xml", metavar="FILE", help="write all reports as JUnit XML")
    add_output_options(parser)
    parser.set_defaults(run=run_matrix)


def _run(name: str) -> Any:
    """The command's function of ``_conform_run``, imported when the command runs."""

    def run(args: argparse.Namespace) -> int:
        from ledgerspec.conformance.cli import _conform_run  # noqa: PLC0415 - the engine, Hypothesis: only to run

        return int(getattr(_conform_run, name)(args))

    return run


def run_conform(args: argparse.Namespace) -> int:
    """A profile of another system is refused before the engine loads (a usage error costs no import)."""
    check_profile(args.system, args.profile)
    return int(_run("run_conform")(args))


run_replay, run_smoke = _run("run_replay"), _run("run_smoke")
run_adapters, run_matrix = _run("run_adapters"), _run("run_matrix")
