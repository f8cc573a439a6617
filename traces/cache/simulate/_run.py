"""What ``ledgerspec simulate`` does: the cache policy simulator on the command line.

Imported when the command runs (``_cli`` parses its options without the simulator).

Prints the summary table (stdout), writes the JSON document (``--json``) and the HTML report with
its plots (``--html``). ``--bench`` instead times each profile's first run against the reference
driven alone on the same operations (BENCHMARKS.md). Bad options exit 2 with the option named.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ledgerspec.conformance.cli._options import check_outputs, master_problem
from ledgerspec.conformance.render._term import Out
from ledgerspec.traces.cache.simulate._cli import DEFAULT_SEEDS
from ledgerspec.traces.cache.simulate._sweep import (
    PROFILES,
    SimulationOptionError,
    Sweep,
    format_table,
    human_size,
    parse_names,
    parse_sizes,
    positive,
    simulate,
)
from ledgerspec.traces.cache.simulate._workload import WORKLOADS


def sweep_of(args: argparse.Namespace) -> Sweep:
    """The sweep the options ask for; a bad option raises ``SimulationOptionError`` naming it."""
    if args.workload not in WORKLOADS:
        raise SimulationOptionError(f"--workload: unknown {args.workload!r}; choose one of {', '.join(WORKLOADS)}")
    return Sweep(
        workload=args.workload,
        profiles=parse_names("--profiles", args.profiles, PROFILES),
        cache_sizes=parse_sizes("--cache-sizes", args.cache_sizes),
        seeds=positive("--seeds", DEFAULT_SEEDS if args.seeds is None else args.seeds),
        steps=positive("--steps", args.steps),
        topics=positive("--topics", args.topics),
    )


BENCH_IGNORES = {"json": "--json", "html": "--html", "seeds": "--seeds"}
"""What ``--bench`` does not use: it prints its timing table, of seed 0 (BENCHMARKS.md)."""


def refuse_ignored(args: argparse.Namespace) -> None:
    """A usage error naming an option the run would ignore: what runs must be what was asked for."""
    problem = master_problem(args)
    if problem is not None:
        raise SimulationOptionError(problem)
    if not args.bench:
        return
    if args.engine != "local":
        raise SimulationOptionError(f"--engine {args.engine}: not with --bench, which times both sides in this process")
    for name, option in BENCH_IGNORES.items():
        value = getattr(args, name)
        if value is not None:
            raise SimulationOptionError(
                f"{option} {value}: not with --bench, which prints its timing table of seed 0 and writes no file"
            )


def run_simulate(args: argparse.Namespace) -> int:
    """Run the sweep (or the benchmark) and write what was asked."""
    refuse_ignored(args)
    sweep = sweep_of(args)
    check_outputs(args, files=("json", "html"))  # before the sweep: a bad path must not cost its minutes
    if args.engine == "spark":
        from ledgerspec.traces.core._spark import check_master  # noqa: PLC0415 - pyarrow only where Spark runs

        check_master(args.master)
    if args.bench:
        return run_bench(sweep)
    out = Out.for_args(args)
    runs = len(sweep.profiles) * len(sweep.cache_sizes) * sweep.seeds
    if out.mode != "quiet":
        print(f"simulating {sweep.workload}: {runs} runs on the {args.engine} engine", file=sys.stderr)
    started = time.perf_counter()
    with out.progress(f"simulate {sweep.workload}: runs", total=runs) as advance:
        document = simulate(
            sweep,
            engine=args.engine,
            master=args.master,
            progress=(lambda done: advance(completed=done)) if sys.stderr.isatty() else None,
        )
    if out.mode != "quiet":
        print(format_table(document))
        print(f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    if args.html:
        from ledgerspec.traces.cache.simulate._report import html_report, render  # noqa: PLC0415

        report = html_report(f"ledgerspec simulate --workload {sweep.workload}")
        render(report, document)
        report.write(args.html)
    return 0


def run_bench(sweep: Sweep) -> int:
    """Per profile and size, seed 0: simulated events per second against the reference driven alone."""
    from ledgerspec.traces.cache.simulate._measure import RunSpec, measure_speed  # noqa: PLC0415

    print(f"{'profile':<14} {'size':>8} {'events':>8} {'sim ev/s':>10} {'alone ev/s':>11} {'ratio':>6}")
    for profile in sweep.profiles:
        for size in sweep.cache_sizes:
            spec = RunSpec(workload=sweep.workload, profile=profile, cache_size=size, seed=0, steps=sweep.steps)
            speed = measure_speed(spec)
            simulated = speed.events / speed.simulated_seconds
            alone = speed.events / speed.alone_seconds
            print(
                f"{profile:<14} {human_size(size):>8} {speed.events:>8} {simulated:>10.0f} {alone:>11.0f} "
                f"{speed.ratio:>6.2f}"
            )
    return 0
