"""``ledgerspec traces generate | check | record | bench``: their options; the work is in ``_cli_run``.

Parsing imports only the names the options offer (conformance/_names.py, traces/_names.py): a usage
error or ``--help`` costs about a Python start, not the spec, the checkers, numpy and pyarrow
(conformance/cli/_main.py).
"""

from __future__ import annotations

import argparse
from typing import Any

from ledgerspec.conformance._names import CACHE_PROFILES, adapter_name, add_output_options, add_system_option
from ledgerspec.conformance._verdict import TRACE_RANK
from ledgerspec.conformance.cli._options import COUNT, SEED, seconds
from ledgerspec.traces._names import GENERATE_WORKLOADS as WORKLOADS

PROFILES = CACHE_PROFILES
"""The cache's profiles (``ledgerspec.spec.cache.PROFILES``)."""

CHECK_EPILOG = (
    "Every trace is checked, a bad one too, and each gets its verdict: OK (exit 0), VIOLATION (1), "
    "ERROR: bad input, named by file, row and field on stderr (2), UNKNOWN: the check could not finish (3). "
    "With several traces the exit code is that of the first of "
    + ", ".join(TRACE_RANK)
    + " that any trace got: a violation is never hidden by another file's error or UNKNOWN."
)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``traces`` and its actions."""
    traces = subcommands.add_parser("traces", help="generate, record and check traces of any system")
    actions = traces.add_subparsers(dest="traces_command", metavar="ACTION", required=True)

    generate = actions.add_parser("generate", help="a Pulsar-like workload on reference caches, as a trace")
    add_system_option(generate)
    generate.add_argument("--workload", choices=WORKLOADS, default="mixed")
    generate.add_argument("--brokers", type=COUNT, default=2)
    generate.add_argument("--topics", type=COUNT, default=8)
    generate.add_argument("--events", type=COUNT, default=100_000)
    generate.add_argument("--seed", type=SEED, default=0)
    generate.add_argument("--profile", choices=sorted(PROFILES), default="pulsar-master")
    generate.add_argument("--out", required=True, help="PATH.parquet (bulk) or PATH.jsonl (small)")
    generate.add_argument(
        "--inject",
        action="append",
        default=[],
        metavar="INVARIANT",
        help="add a broker with a known violation of INVARIANT (repeatable; 'all' for every one)",
    )
    generate.add_argument("--processes", type=COUNT, default=1, help="worker processes (Parquet output)")
    generate.add_argument("--config", metavar="JSON", help="cache configuration overrides, as a JSON object")
    generate.add_argument("--expected", metavar="FILE", help="write the expected verdict as JSON")
    add_output_options(generate, html=False)
    generate.set_defaults(run=run_generate)

    check = actions.add_parser(
        "check", help="check traces against the invariants of their profile", epilog=CHECK_EPILOG
    )
    check.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help=(
            "trace files or Parquet dataset directories; a leading 'parquet:' or 'jsonl:' always names the "
            "format (write ./parquet:x for a file named so)"
        ),
    )
    add_system_option(check, every="each trace's own, named in its header")
    check.add_argument("--engine", choices=["local", "spark"], default="local")
    check.add_argument("--master", help="Spark master URL (default local[*])")
    check.add_argument("--json", metavar="FILE", help="write the results as JSON")
    check.add_argument("--budget", type=seconds, help="seconds per trace; past it the verdict is UNKNOWN")
    add_output_options(check)
    check.set_defaults(run=run_check)

    record = actions.add_parser("record", help="drive an adapter with a workload and write its trace")
    record.add_argument(
        "--adapter", required=True, type=adapter_name, help="installed name, module:attr or exec:COMMAND"
    )
    add_system_option(record)
    from ledgerspec.conformance.systems import AllProfiles  # noqa: PLC0415 - read from the registry when checked

    record.add_argument(
        "--profile",
        choices=AllProfiles(),
        metavar="PROFILE",
        help="profile written in the trace (default: claimed)",
    )
    record.add_argument("--workload", choices=WORKLOADS, help="cache only: the workload to drive (default mixed)")
    record.add_argument("--events", type=COUNT, help="events (cache, default 20000) or operations per history")
    record.add_argument("--histories", type=COUNT, help="lockstep systems: histories (brokers) to record (default 1)")
    record.add_argument("--case", metavar="FILE", help="lockstep systems: record a conform counterexample's steps")
    record.add_argument("--seed", type=SEED, help="seed of the workload or the walks (default 0)")
    record.add_argument(
        "--config", metavar="JSON", help="configuration overrides, as a JSON object (the --system's configuration)"
    )
    record.add_argument("--out", required=True)
    record.set_defaults(run=run_record)

    bench = actions.add_parser("bench", help="time the local and Spark checkers on one Parquet trace")
    add_system_option(bench)
    bench.add_argument("path", nargs="?", help="a Parquet trace (default: generate one of --events events)")
    bench.add_argument("--events", type=COUNT, default=2_000_000, help="events of the generated trace")
    bench.add_argument("--brokers", type=COUNT, default=16, help="brokers of the generated trace")
    bench.add_argument("--processes", type=COUNT, default=2, help="worker processes of the generator")
    bench.add_argument("--master", default="local[2]", help="Spark master URL")
    bench.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    bench.set_defaults(run=run_bench)


def _run(name: str) -> Any:
    """The action's function of ``_cli_run``, imported when the action runs."""

    def run(args: argparse.Namespace) -> int:
        from ledgerspec.traces import _cli_run  # noqa: PLC0415 - the spec, the checkers, pyarrow: only to run

        return int(getattr(_cli_run, name)(args))

    return run


run_generate, run_check = _run("run_generate"), _run("run_check")
run_record, run_bench = _run("run_record"), _run("run_bench")
