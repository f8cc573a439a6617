"""The cache's ``traces generate``, ``traces bench`` and its part of ``traces check`` (its checkers, its row count)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.render._term import Out
from ledgerspec.traces._cli_run import check_out
from ledgerspec.traces._errors import TraceError
from ledgerspec.traces.cache._check import CheckResult
from ledgerspec.traces.cache._record_cli import config_option


def run_generate(args: argparse.Namespace) -> int:
    """Generate a trace and print what was written."""
    from ledgerspec.traces.cache._generate import generate_trace  # noqa: PLC0415
    from ledgerspec.traces.cache._inject import INJECTIONS, injectable  # noqa: PLC0415

    check_out(args, ("out", "expected"))
    inject: list[str] = []
    for name in args.inject:
        if name == "all":
            inject += injectable(args.profile)
        elif name not in INJECTIONS or name not in injectable(args.profile):
            raise InputError(
                f"--inject {name}: not an invariant the {args.profile} profile checks on traces; "
                f"choose from: {', '.join(injectable(args.profile))} or all"
            )
        else:
            inject.append(name)
    with Out.for_args(args).progress("events generated", total=args.events) as advance:
        result = generate_trace(
            args.out,
            workload=args.workload,
            brokers=args.brokers,
            topics=args.topics,
            events=args.events,
            seed=args.seed,
            profile=args.profile,
            config=config_option(args.config),
            inject=inject,
            processes=args.processes,
            on_broker=advance,
        )
    rate = result.events / result.seconds if result.seconds else 0
    print(
        f"wrote {result.events} events of {result.brokers} brokers to {result.path} "
        f"in {result.seconds:.1f} s ({rate:,.0f} events/s)"
    )
    for violation in result.injected:
        print(f"  injected {violation['invariant']} at broker {violation['broker']}, seq {violation['seq']}")
    if args.expected:
        Path(args.expected).write_text(json.dumps(result.expected(), indent=2) + "\n", encoding="utf-8")
    return 0


def rows_in(path: str) -> int | None:
    """Rows of a cache trace, from its Parquet footers; None for JSON lines (no footer) or an unreadable trace."""
    from ledgerspec.traces.cache._io import open_trace  # noqa: PLC0415

    try:
        trace = open_trace(path)
    except TraceError:
        return None
    return trace.num_rows() if trace.format == "parquet" else None


def check_trace(
    path: str,
    engine: str,
    master: str | None,
    budget: float | None,
    spark: Any = None,
    on_rows: Any = None,
) -> CheckResult:
    """Check one cache trace with the chosen engine (``on_rows``: the local checker's rows so far, and in all)."""
    if engine == "spark":
        from ledgerspec.traces.cache._spark import check_spark  # noqa: PLC0415 - pyspark only when asked

        return check_spark(path, master=master, budget=budget, spark=spark)
    from ledgerspec.traces.cache._local import check_local  # noqa: PLC0415

    return check_local(path, budget=budget, on_rows=on_rows)


def run_bench(args: argparse.Namespace) -> int:
    """Benchmark both checkers on a trace (generated into a temporary folder if none is given)."""
    import tempfile  # noqa: PLC0415

    from ledgerspec.traces.cache._bench import bench_engines, render  # noqa: PLC0415
    from ledgerspec.traces.cache._generate import generate_trace  # noqa: PLC0415
    from ledgerspec.traces.core._spark import check_master  # noqa: PLC0415

    check_outputs(args, files=("json",))
    check_master(args.master)  # before the trace is generated and the local checker timed
    with tempfile.TemporaryDirectory(prefix="ledgerspec-bench-") as scratch:
        path = args.path
        if path is None:
            path = str(Path(scratch) / "bench.parquet")
            made = generate_trace(path, events=args.events, brokers=args.brokers, seed=0, processes=args.processes)
            print(
                f"generated {made.events:,} events in {made.seconds:.1f} s ({made.events / made.seconds:,.0f} events/s)"
            )
        report = bench_engines(path, master=args.master)
    print(render(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0 if report["agree"] else 1
