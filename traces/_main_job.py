"""``ledgerspec run``: the main job on embedded defaults.

1. Conformance of each shipped reference adapter against its own profile (quick settings, fixed seed).
2. The shipped sample traces (an ok/bad pair per profile, JSON lines and Parquet), checked on local
   Spark (or ``--engine local``), each against the verdict it is expected to get.
3. The real Pulsar and BookKeeper code (conformance/adapters/real/, built with Maven on first use)
   against its profiles, each verdict against what DEVIATIONS.md declares (``--skip-real`` leaves
   it out, for a machine without a JDK and Maven).

It prints one table per part and exits 0 only if every adapter passes, every sample gets its
expected verdict with exactly the expected violations, and every real target is as declared.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cli._options import SEED

SAMPLES = Path(__file__).with_name("samples")


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = subcommands.add_parser("run", help="the main job: reference conformance and the sample traces")
    parser.add_argument("--engine", choices=["spark", "local"], default="spark", help="trace checker (default spark)")
    parser.add_argument("--master", help="Spark master URL (default local[*])")
    parser.add_argument("--samples", default=str(SAMPLES), help="directory of traces with *.expected.json files")
    parser.add_argument("--seed", type=SEED, default=430)
    parser.add_argument("--skip-real", action="store_true", help="leave out part 3, the real code (needs Maven)")
    parser.set_defaults(run=run_main_job)


def expected_file(trace: Path) -> Path:
    """``x.jsonl`` -> ``x.expected.json``; ``x.parquet`` -> ``x.parquet.expected.json``."""
    if trace.suffix == ".jsonl":
        return trace.with_name(trace.name.removesuffix(".jsonl") + ".expected.json")
    return trace.with_name(trace.name + ".expected.json")


def run_main_job(args: argparse.Namespace) -> int:
    """Run both parts; print the tables."""
    from ledgerspec.conformance._engine import conform  # noqa: PLC0415 - heavy imports only here
    from ledgerspec.conformance.adapters import installed_adapters, load_adapter  # noqa: PLC0415
    from ledgerspec.traces._cli import check_one  # noqa: PLC0415

    ok = True
    print("1. Conformance of the reference adapters (settings quick)")
    for name in installed_adapters():
        if not name.startswith("reference-"):
            continue
        report = conform(load_adapter(name), settings="quick", seed=args.seed)
        ok &= report.verdict == Verdict.PASS
        print(
            f"   {name:<26} {report.profile:<14} {report.verdict:<5} "
            f"{report.examples} examples, {report.steps} steps, {report.seconds:.1f} s"
        )

    samples = Path(args.samples)
    traces = sorted(p for p in samples.iterdir() if p.suffix in {".jsonl", ".parquet"}) if samples.is_dir() else []
    if not traces:
        print(f"no sample traces in {samples}")
        return 2
    print(f"\n2. Sample traces on the {args.engine} checker ({samples})")
    spark: Any = None
    if args.engine == "spark":
        from ledgerspec.traces._spark_input import spark_session  # noqa: PLC0415

        started = time.perf_counter()
        spark = spark_session(args.master)
        print(
            f"   (Spark {spark.version}, master {spark.sparkContext.master}, started in "
            f"{time.perf_counter() - started:.1f} s)"
        )
    print(f"   {'trace':<32} {'profile':<14} {'events':>7}  {'expected':<10} {'verdict':<10} match")
    for trace in traces:
        expected = json.loads(expected_file(trace).read_text(encoding="utf-8"))
        result = check_one(str(trace), args.engine, args.master, None, spark)
        found = sorted((v.invariant, v.broker, v.seq) for v in result.violations)
        wanted = sorted((v["invariant"], v["broker"], v["seq"]) for v in expected["violations"])
        match = result.verdict == expected["verdict"] and found == wanted
        ok &= match
        print(
            f"   {trace.name:<32} {result.profile:<14} {result.events:>7}  {expected['verdict']:<10} "
            f"{result.verdict:<10} {'yes' if match else 'NO'}"
        )
    if args.skip_real:
        print("\n3. The real Pulsar and BookKeeper code: left out (--skip-real)")
    else:
        from ledgerspec.conformance._real_code import judge_all  # noqa: PLC0415 - needs Maven

        print("\n3. The real Pulsar and BookKeeper code against its profiles (settings quick, preset minimal)")
        ok &= judge_all(print, settings="quick", seed=args.seed, presets=("minimal",))
        from ledgerspec.conformance.cursor_state._real import judge_real_cursors  # noqa: PLC0415 - needs Maven

        print("   The real ManagedCursorImpl, cursor-state, each invariant of pulsar-master alone (settings quick)")
        ok &= judge_real_cursors(print, settings="quick", seed=args.seed, strict=False)
    print("\nAll as expected." if ok else "\nSOMETHING DIFFERS FROM WHAT WAS EXPECTED (see above).")
    return 0 if ok else 1
