"""What ``ledgerspec traces generate | check | record | bench`` do.

Imported when an action runs (``_cli`` parses the options without the spec, the checkers and pyarrow).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._verdict import TRACE_EXIT, TRACE_RANK, Verdict, worst_trace_verdict
from ledgerspec.conformance.cli._main import diagnose
from ledgerspec.conformance.cli._options import check_outputs, master_problem
from ledgerspec.conformance.render._term import Out
from ledgerspec.conformance.systems import SYSTEMS, commands_of, default
from ledgerspec.traces._errors import TraceError, TraceInputError
from ledgerspec.traces.core._files import SUFFIX_FORMATS, UNKNOWN_FORMAT, parse_spec
from ledgerspec.traces.core._result import TraceResult, by_row, position
from ledgerspec.traces.lockstep._check import check_trace as lockstep_check_trace
from ledgerspec.traces.lockstep._io import peek_system

SHOWN = 5


def check_out(args: argparse.Namespace, files: tuple[str, ...]) -> None:
    """Output options refused before any work; ``--out`` must name a format ``traces check`` reads back."""
    check_outputs(args, files=files)
    if parse_spec(args.out)[0] is not None:
        raise InputError(f"--out {args.out}: a leading format prefix is stripped on reading; write to ./{args.out}")
    if SUFFIX_FORMATS.get(Path(args.out).suffix) is None:
        raise InputError(f"--out {args.out}: {UNKNOWN_FORMAT} (.ndjson and .json are JSON lines too)")


def check_one(
    path: str,
    engine: str,
    master: str | None,
    budget: float | None,
    spark: Any = None,
    on_rows: Callable[[int, int | None], None] | None = None,
    system: str | None = None,
) -> TraceResult:
    """Check one trace with the chosen engine, by the checker of the system its header names (must be ``system``)."""
    named = peek_system(path)  # None: the default system's, or for its reader to judge
    name = named or default()
    if system is not None and name != system and (named is not None or parse_spec(path)[1].is_file()):
        says = f"names the {named} system" if named else f"names no system, as a {name} trace"
        raise TraceInputError(f"{path}: not a trace of the {system} system (--system): its header {says}")
    if name not in SYSTEMS:  # a header naming no installed system: the lockstep reader names the known ones
        return lockstep_check_trace(path, engine, master, budget, spark, on_rows)
    result: TraceResult = commands_of(name).check_trace(path, engine, master, budget, spark, on_rows)
    return result


def _rows_in(paths: list[str]) -> int | None:
    """Rows in all the traces, from Parquet footers; None if one has none (JSON lines) or is unreadable."""
    total = 0
    for path in paths:
        name = peek_system(path) or default()
        rows = commands_of(name).trace_rows(path) if name in SYSTEMS else None
        if rows is None:
            return None
        total += rows
    return total


@dataclass
class CheckBar:
    """``traces check``'s progress: rows checked on the local engine (it reports them), else traces checked.

    Spark's own bar is its stages (``Out.spark_stages``), drawn inside this one.
    """

    advance: Callable[..., None]
    local: bool
    traces: int
    offset: int = 0
    """Rows of the traces already checked."""

    @classmethod
    @contextmanager
    def open(cls, out: Out, engine: str, paths: list[str]) -> Iterator[CheckBar]:
        local = engine == "local"
        if local:
            drawn = sys.stderr.isatty() and out.mode != "quiet"  # else no bar: the footers are not read for it
            bar = out.progress("rows checked (local)", total=_rows_in(paths) if drawn else None)
        else:
            bar = out.progress(f"traces checked ({engine})", total=len(paths))
        with bar as advance:
            yield cls(advance, local, len(paths))

    def rows(self, number: int, path: str) -> Callable[[int, int | None], None] | None:
        """The local checker's callback for trace ``number`` (None on Spark)."""
        if not self.local:
            return None

        def told(done: int, total: int | None) -> None:
            shown = f"{done:,}" + ("" if total is None else f"/{total:,}")
            self.advance(completed=self.offset + done, note=f"trace {number}/{self.traces} {path}: {shown} rows")

        return told

    def done(self, path: str, events: int) -> None:
        """A trace is checked (``events`` rows; 0 when it could not be)."""
        if self.local:
            self.offset += events
            self.advance(completed=self.offset, note=f"{path}: {events:,} events")
        else:
            self.advance(note=f"{path}: {events:,} events" if events else path)


def run_check(args: argparse.Namespace) -> int:
    """Check every trace, a bad one too; print a verdict per trace; :data:`TRACE_RANK` decides the exit code."""
    check_outputs(args, files=("json", "html"))
    problem = master_problem(args)
    if problem is not None:
        raise InputError(problem)
    out = Out.for_args(args)
    spark = None
    if args.engine == "spark":
        from ledgerspec.traces.core._spark import check_master, spark_session  # noqa: PLC0415

        check_master(args.master)  # also when this process has a Spark context, which the session would reuse
        spark = spark_session(args.master)
    verdicts: list[Verdict] = []
    body: list[dict[str, Any]] = []
    results: list[TraceResult] = []
    errors: list[tuple[str, str]] = []
    with CheckBar.open(out, args.engine, args.paths) as bar:
        for number, path in enumerate(args.paths, start=1):
            try:
                with out.spark_stages(spark, f"Spark: {path}"):
                    rows = bar.rows(number, path)
                    result = check_one(path, args.engine, args.master, args.budget, spark, rows, args.system)
            except TraceError as error:
                diagnose(error.code, str(error), type(error).__doc__ if error.hinted else None)
                out.verdict(f"{Verdict.ERROR}: {path} (engine {args.engine}): not checked, {error.code}: see stderr")
                verdicts.append(Verdict.ERROR)
                body.append({"path": path, "engine": args.engine, "verdict": Verdict.ERROR, "error": str(error)})
                errors.append((path, str(error)))
                bar.done(path, 0)
                continue
            show_result(out, result)
            verdicts.append(result.verdict)
            body.append(result.to_dict())
            results.append(result)
            bar.done(path, result.events)
    worst = worst_trace_verdict(verdicts)
    if len(verdicts) > 1:
        tally = ", ".join(f"{verdicts.count(v)} {v}" for v in TRACE_RANK if v in verdicts)
        out.verdict(f"{len(verdicts)} traces: {tally}; exit {TRACE_EXIT[worst]} ({worst})")
    if args.html:
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked
        from ledgerspec.conformance.render._traces import traces_section  # noqa: PLC0415

        page = HtmlReport(f"ledgerspec traces check: {worst}")
        traces_section(page, results, errors)
        page.write(args.html)
    if args.json:
        Path(args.json).write_text(json.dumps(body[0] if len(body) == 1 else body, indent=2) + "\n", encoding="utf-8")
    return int(TRACE_EXIT[worst])


def show_result(out: Out, result: TraceResult) -> None:
    """One trace's result: the plain text of :func:`render`, a rich table, or (``--quiet``) its verdict line."""
    if out.mode == "plain":
        out.text(render(result))
        return
    if out.mode == "quiet":
        out.verdict(f"{result.verdict}: {result.path} (profile {result.profile}, {result.events} events)")
        return
    from ledgerspec.conformance.render._term import simple_table  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415 - only on a terminal

    counts = result.counts
    out.show(
        simple_table(
            f"{result.verdict}: {result.path} (profile {result.profile}, engine {result.engine}, "
            f"{result.events:,} events, {result.brokers} brokers, {result.seconds:.1f} s)",
            ["invariant", "status", "violations"],
            [[name, status, counts.get(name, 0) or ""] for name, status in result.statuses().items()],
        )
    )
    for line in render(result).splitlines()[1 + len(result.statuses()) :]:
        out.show(Text(line.strip() if not line.startswith("      ") else f"    {line.strip()}"))


def render(result: TraceResult) -> str:
    """The verdict, a line per invariant, and the earliest violations (by row, any invariant) with their context.

    A violation whose divergence began at an earlier event names it (``first divergence``); a JSON-lines
    trace's positions give the file line beside the event's index.
    """
    lines = [
        (
            f"{result.verdict}: {result.path} ({_system(result)}profile {result.profile}, engine {result.engine}, "
            f"{result.events} events, {result.brokers} brokers, {result.seconds:.1f} s)"
        )
    ]
    width = max(len(name) for name in result.statuses())
    for name, status in result.statuses().items():
        count = result.counts.get(name, 0)
        lines.append(f"  {name:<{width}}  {status}{f' ({count})' if count else ''}")
    lines += [f"  UNKNOWN: {reason}" for reason in result.unknown]
    for violation in by_row(result.violations, list(result.statuses()))[:SHOWN]:
        lines.append(
            f"  {violation.invariant} at broker {violation.broker!r}, seq {violation.seq}, "
            f"{violation.where()}: {violation.message}"
        )
        lines.append(f"      event:  {json.dumps(violation.event)}")
        first = violation.first
        if first is not None:
            lines.append(
                f"      first divergence: seq {first['seq']}, {position(first['row'], first['line'])}: "
                f"{json.dumps(first['event'])}"
            )
        lines += [f"      nearby: {json.dumps(neighbour)}" for neighbour in violation.context]
    if len(result.violations) > SHOWN:
        lines.append(f"  ... {len(result.violations) - SHOWN} more in the JSON report (--json)")
    return "\n".join(lines)


def _system(result: TraceResult) -> str:
    """``system S, `` for a trace of a system other than the default; nothing for the default's."""
    system = getattr(result, "system", None)
    return "" if system is None or system == default() else f"system {system}, "


def run_record(args: argparse.Namespace) -> int:
    """Drive an adapter with a workload and write its trace: the system's own recorder."""
    check_out(args, ("out",))
    return commands_of(args.system).record(args)




def run_generate(args: argparse.Namespace) -> int:
    """Generate a trace of the system and print what was written."""
    return commands_of(args.system).generate(args)


def run_bench(args: argparse.Namespace) -> int:
    """Benchmark both checkers of the system on a trace."""
    return commands_of(args.system).bench_traces(args)
