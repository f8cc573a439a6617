"""``ledgerspec simulate``: its options; the simulator runs in ``_run``.

Parsing imports only the names it offers (traces/_names.py, the workloads' own light module): a
usage error or ``--help`` costs about a Python start, not the reference caches and pyarrow.
Bad options exit 2 with the option named.
"""

from __future__ import annotations

import argparse

from ledgerspec.conformance._names import add_output_options
from ledgerspec.traces._names import SIMULATE_PROFILES, SIMULATE_SIZES
from ledgerspec.traces.cache.simulate._workload import WORKLOADS

DEFAULT_SEEDS = 3
"""Runs per cell unless ``--seeds`` says otherwise."""


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``simulate``."""
    parser = subcommands.add_parser(
        "simulate",
        help="cache policy simulator: hit rate, BookKeeper reads and evictions per profile and cache size",
        description="Replay a Pulsar-like read pattern through each profile's reference cache and its managed "
        "ledgers, per cache size and seed; report the means and spreads over the seeds.",
    )
    parser.add_argument("--workload", default="catchup", help=f"one of {', '.join(WORKLOADS)} (default catchup)")
    parser.add_argument(
        "--profiles", default=",".join(SIMULATE_PROFILES), help="comma-separated (default: every profile)"
    )
    parser.add_argument(
        "--cache-sizes",
        default=",".join(f"{s >> 20}M" for s in SIMULATE_SIZES),
        help="comma-separated sizes, e.g. 8M,32M,1G (default %(default)s)",
    )
    parser.add_argument("--seeds", type=int, help=f"runs per cell, seeds 0..N-1 (default {DEFAULT_SEEDS})")
    parser.add_argument("--steps", type=int, default=20_000, help="workload steps per run (default 20000)")
    parser.add_argument("--topics", type=int, default=8, help="topics (ledgers) on the broker (default 8)")
    parser.add_argument("--engine", choices=["local", "spark"], default="local", help="where the runs go")
    parser.add_argument("--master", help="Spark master URL (default local[*])")
    parser.add_argument("--json", metavar="FILE", help="write every run's numbers and the summary as JSON")
    parser.add_argument("--html", metavar="FILE", help="write an HTML report with the table and the plots")
    parser.add_argument(
        "--bench", action="store_true", help="time the simulator against the reference alone (seed 0, here; a table)"
    )
    add_output_options(parser, html=False)  # --plain (the table is plain text anyway), --quiet: the files only
    parser.set_defaults(run=run_simulate)


def run_simulate(args: argparse.Namespace) -> int:
    """Run the sweep (or the benchmark) and write what was asked."""
    from ledgerspec.traces.cache.simulate._run import run_simulate as run  # noqa: PLC0415 - the simulator

    return run(args)
