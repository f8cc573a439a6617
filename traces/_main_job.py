"""``ledgerspec run``: the main job on embedded defaults.

1. Conformance of each shipped reference adapter against its own profile (quick settings, fixed seed).
2. The shipped sample traces (an ok/bad pair per profile, JSON lines and Parquet), checked on local
   Spark (or ``--engine local``), each against the verdict it is expected to get.
3. The real Pulsar and BookKeeper code (conformance/adapters/real/, built with Maven on first use)
   against its profiles, each verdict against what DEVIATIONS.md declares, the transaction-log
   writer's (``txlog-writer-buffered-writer-4.2.4``) included (``--skip-real`` leaves it out, for a machine without a
   JDK and Maven).

It prints one table per part (rich on a terminal: every invariant of every reference by name, and
progress bars; ``--html FILE`` writes the same, with plots, as one offline page opening on the
verdict; ``--json FILE`` every part's verdicts, even when the run fails: traces/_run_report.py) and exits 0 only if
every adapter passes, every sample gets its expected verdict with exactly the expected violations,
and every real target is as declared. No Spark or JVM log line reaches the terminal: the JVM's
stdout and stderr go to the log file the run names (traces/core/_spark.py, ``jvm_log``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._names import add_output_options, add_system_option
from ledgerspec.conformance.cli._options import SEED, check_outputs, master_problem
from ledgerspec.conformance.render._term import Out
from ledgerspec.traces._run_report import ALL_AS_EXPECTED, DIFFERS, RunDocument, real_section, sample_entry

if TYPE_CHECKING:
    from ledgerspec.conformance.render._html import HtmlReport

SAMPLES = Path(__file__).with_name("samples")


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = subcommands.add_parser("run", help="the main job: reference conformance and the sample traces")
    parser.add_argument("--engine", choices=["spark", "local"], default="spark", help="trace checker (default spark)")
    parser.add_argument("--master", help="Spark master URL (default local[*])")
    parser.add_argument("--samples", default=str(SAMPLES), help="directory of traces with *.expected.json files")
    parser.add_argument("--seed", type=SEED, default=430)
    parser.add_argument("--skip-real", action="store_true", help="leave out part 3, the real code (needs Maven)")
    add_system_option(parser, every="every system")
    parser.add_argument(
        "--json", metavar="FILE", help="write every part's verdicts as one JSON document (even when the run fails)"
    )
    add_output_options(parser)
    parser.set_defaults(run=run_main_job)


def expected_file(trace: Path) -> Path:
    """``x.jsonl`` -> ``x.expected.json``; ``x.parquet`` -> ``x.parquet.expected.json``."""
    if trace.suffix == ".jsonl":
        return trace.with_name(trace.name.removesuffix(".jsonl") + ".expected.json")
    return trace.with_name(trace.name + ".expected.json")


def run_main_job(args: argparse.Namespace) -> int:
    """Run the parts; print a table each (rich on a terminal); write the HTML report if asked."""
    from ledgerspec.conformance.render._term import Out  # noqa: PLC0415 - heavy imports only here

    check_outputs(args, files=("html", "json"))
    samples = _of_system(sample_expectations(Path(args.samples)), args.system)  # a bad --samples costs no part 1
    _refuse_nothing_to_check(args, samples)
    problem = master_problem(args)
    if problem is not None:
        raise InputError(problem)
    if args.engine == "spark":
        from ledgerspec.traces.core._spark import check_master  # noqa: PLC0415

        check_master(args.master)
    out = Out.for_args(args)
    page = None
    if args.html:
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked

        page = HtmlReport("ledgerspec run")
    document = RunDocument(seed=args.seed, engine=args.engine, real_skipped=args.skip_real)
    try:
        ok = _references(args, out, page, document)
        document.finished.add("references")
        ok &= _samples(args, out, page, samples, document)
        document.finished.add("samples")
        ok &= _real(args, out, page, document)
        document.finished.add("real")
        document.ok = ok
    except BaseException as error:  # the reports are written whatever stopped the run, then it goes on up
        document.error = f"{type(error).__name__}: {error}".rstrip(": ")
        raise
    finally:
        _write_reports(args, out, page, document)
    verdict = ALL_AS_EXPECTED if ok else f"{DIFFERS} (see above)."
    out.text()
    out.verdict(("PASS: " if ok else "FAIL: ") + verdict if out.mode != "plain" else verdict)
    return 0 if ok else 1


def _write_reports(args: argparse.Namespace, out: Out, page: HtmlReport | None, document: RunDocument) -> None:
    """The JSON document and the HTML page, the verdict first on the page; each named on the terminal."""
    if args.json:
        document.write(args.json)
        out.text(f"JSON report: {args.json}")
        out.show(f"JSON report: {args.json}")
    if page is not None:
        page.verdict(document.summary(), good=document.verdict == "PASS")
        page.write(args.html)
        out.text(f"HTML report: {args.html}")
        out.show(f"HTML report: {args.html}")


def sample_expectations(samples: Path) -> dict[Path, dict[str, Any]]:
    """Each sample trace in ``samples`` and what its ``*.expected.json`` says it gets, read and checked.

    An input error (exit 2) naming ``--samples`` or the expected file: a folder that is missing or holds
    no trace, or a trace whose expected file is missing, unreadable, not JSON, or not of the shape
    ``{"verdict": str, "violations": [{"invariant": str, "broker": str, "seq": int}, ...]}``.
    """
    if not samples.is_dir():
        problem = "no such folder" if not samples.exists() else "not a folder"
        raise InputError(f"--samples {samples}: {problem} (of traces, *.jsonl or *.parquet, and their *.expected.json)")
    traces = sorted(p for p in samples.iterdir() if p.suffix in {".jsonl", ".parquet"})
    if not traces:
        raise InputError(f"--samples {samples}: no sample traces (*.jsonl, *.parquet) in the folder")
    return {trace: _expected(trace) for trace in traces}


def _refuse_nothing_to_check(args: argparse.Namespace, samples: dict[Path, dict[str, Any]]) -> None:
    """An input error if ``--system`` leaves no part anything to check: a run that checks nothing is no PASS."""
    if args.system is None or samples:
        return
    from ledgerspec.conformance.systems import SYSTEMS  # noqa: PLC0415

    system = SYSTEMS[args.system]
    if system.check_references is None and (args.skip_real or system.judge_real is None):
        raise InputError(
            f"--system {args.system}: run has nothing of it to check (no reference part, no sample trace in "
            f"{args.samples}{', and --skip-real' if system.judge_real is not None else ', no real code'})"
        )


def _of_system(samples: dict[Path, dict[str, Any]], system: str | None) -> dict[Path, dict[str, Any]]:
    """The samples of ``system`` (None: all), by the system each trace's header names."""
    if system is None:
        return samples
    from ledgerspec.conformance.systems import default  # noqa: PLC0415
    from ledgerspec.traces.lockstep._io import peek_system  # noqa: PLC0415 - pyarrow only to run

    return {trace: expected for trace, expected in samples.items() if (peek_system(trace) or default()) == system}


_VIOLATION = {"invariant": str, "broker": str, "seq": int}
"""The fields of an expected violation and their types."""


def _expected(trace: Path) -> dict[str, Any]:
    path = expected_file(trace)
    if not path.is_file():
        raise InputError(f"{path}: missing; each sample trace ({trace.name}) needs its expected verdict there")
    try:
        expected = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path}: not JSON: {error}") from None
    if not isinstance(expected, dict):
        raise InputError(f"{path}: must be a JSON object with 'verdict' and 'violations'")
    if not isinstance(expected.get("verdict"), str):
        raise InputError(f"{path}: field 'verdict': expected a string, got {expected.get('verdict')!r}")
    violations = expected.get("violations")
    if not isinstance(violations, list):
        raise InputError(f"{path}: field 'violations': expected a list, got {violations!r}")
    for index, violation in enumerate(violations):
        if not isinstance(violation, dict) or any(not isinstance(violation.get(k), t) for k, t in _VIOLATION.items()):
            raise InputError(f"{path}: field 'violations/{index}': expected an object with invariant, broker and seq")
    return expected


def _references(args: argparse.Namespace, out: Out, page: HtmlReport | None, document: RunDocument) -> bool:
    """Part 1: each system's shipped references against their own profiles (each system that has the part)."""
    from ledgerspec.conformance.systems import SYSTEMS, names  # noqa: PLC0415

    title = "1. Conformance of the reference adapters (settings quick)"
    out.text(title)
    out.show(f"[bold]{title}[/]")
    ok = True
    for name in names():
        if args.system not in (None, name):
            continue
        part = SYSTEMS[name].check_references
        if part is not None:
            ok &= part(args, out, page, document, title)
    return ok


def _samples(
    args: argparse.Namespace,
    out: Out,
    page: HtmlReport | None,
    samples: dict[Path, dict[str, Any]],
    document: RunDocument,
) -> bool:
    """Part 2: each sample trace against the verdict and violations it is expected to get."""
    from ledgerspec.traces._cli_run import check_one  # noqa: PLC0415 - heavy imports only here

    ok = True
    title = f"2. Sample traces on the {args.engine} checker ({args.samples})"
    out.text(f"\n{title}")
    out.show(f"\n[bold]{title}[/]")
    spark: Any = None
    if args.engine == "spark":
        from ledgerspec.traces.core._spark import jvm_log, spark_session  # noqa: PLC0415

        started = time.perf_counter()
        with out.progress("starting Spark (its JVM's output goes to its log file)") as _:
            spark = spark_session(args.master)
        line = (
            f"   (Spark {spark.version}, master {spark.sparkContext.master}, started in "
            f"{time.perf_counter() - started:.1f} s; the JVM's log: {jvm_log()})"
        )
        out.text(line)
        out.show(line.strip())
    out.text(f"   {'trace':<32} {'profile':<14} {'events':>7}  {'expected':<10} {'verdict':<10} match")
    rows: list[list[object]] = []
    results = []
    with out.progress("sample traces checked", total=len(samples)) as advance:
        for trace, expected in samples.items():
            with out.spark_stages(spark, f"Spark: {trace.name}"):
                result = check_one(str(trace), args.engine, args.master, None, spark)
            results.append(result)
            found = sorted((v.invariant, v.broker, v.seq) for v in result.violations)
            wanted = sorted((v["invariant"], v["broker"], v["seq"]) for v in expected["violations"])
            match = result.verdict == expected["verdict"] and found == wanted
            ok &= match
            advance(note=f"{trace.name}: {result.events:,} events")
            out.text(
                f"   {trace.name:<32} {result.profile:<14} {result.events:>7}  {expected['verdict']:<10} "
                f"{result.verdict:<10} {'yes' if match else 'NO'}"
            )
            rows.append([trace.name, result.profile, result.events, expected["verdict"], result.verdict, match])
            document.samples.append(sample_entry(result, expected, match))
            if out.mode == "quiet":
                out.verdict(f"{result.verdict}: {trace.name} (expected {expected['verdict']})")
    headers = ["trace", "profile", "events", "expected", "verdict", "as expected"]
    if out.rich:
        from ledgerspec.conformance.render._term import simple_table  # noqa: PLC0415

        out.show(simple_table("Sample traces", headers, [[*r[:5], "yes" if r[5] else "NO"] for r in rows]))
    if page is not None:
        from ledgerspec.conformance.render._traces import traces_section  # noqa: PLC0415

        page.heading(title)
        page.table(headers, rows)
        traces_section(page, results)
    return ok


def _real(args: argparse.Namespace, out: Out, page: HtmlReport | None, document: RunDocument) -> bool:
    """Part 3: the real Pulsar and BookKeeper code, each verdict against what DEVIATIONS.md declares."""
    if args.skip_real:
        line = "3. The real Pulsar and BookKeeper code: left out (--skip-real)"
        out.text(f"\n{line}")
        out.show(f"\n[bold]{line}[/]")
        if page is not None:
            page.heading(line)
        return True
    title = "3. The real Pulsar and BookKeeper code against its profiles (settings quick, preset minimal)"
    out.text(f"\n{title}")
    out.show(f"\n[bold]{title}[/]")

    def say(line: str) -> None:
        out.text(line)
        if out.rich or out.mode == "quiet":
            out.verdict(line.strip())

    record = document.real.append
    try:
        ok = True
        from ledgerspec.conformance.systems import SYSTEMS  # noqa: PLC0415

        for system in sorted(SYSTEMS.values(), key=lambda system: system.real_rank):
            if system.judge_real is not None and args.system in (None, system.name):  # each needs Maven
                ok &= system.judge_real(say, settings="quick", seed=args.seed, record=record)
    finally:  # what was judged before a fault is on the page too
        if page is not None:
            real_section(page, title, document.real)
    return ok
