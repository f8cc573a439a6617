"""The cache's ``conform``, ``replay``, ``smoke``, ``matrix`` and ``adapters`` lines: its engine's commands.

Its record (``_system.py``) names them; ``cli/_conform_run.py`` calls them through ``systems.commands_of``.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from ledgerspec.conformance._verdict import CONFORM_EXIT
from ledgerspec.conformance.adapters._harness import Harness, harness_lines
from ledgerspec.conformance.cache._case import Case
from ledgerspec.conformance.cache._engine import Report, conform
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache._report import counterexample, table, write_json, write_junit
from ledgerspec.conformance.cache._smoke import smoke
from ledgerspec.conformance.cache._term import counterexample_table, report_table, verdict_lines
from ledgerspec.conformance.cache.adapters import installed_adapters, load_adapter
from ledgerspec.conformance.cache.machine._core import Run
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_OK
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.render._term import Out
from ledgerspec.spec.cache import PROFILES


class Progress:
    """A one-line progress display on stderr, only when stderr is a terminal."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.enabled = sys.stderr.isatty()

    def __call__(self, label: str, run: Run) -> None:
        if self.enabled and run.examples % 5 == 1:
            short = label if len(label) < 40 else f"{len(label.split(','))} invariants"
            print(
                f"\r{self.prefix}: searching {short}: {run.examples} examples, {run.steps} steps  ",
                end="",
                file=sys.stderr,
                flush=True,
            )

    def done(self) -> None:
        if self.enabled:
            print("\r" + " " * 100 + "\r", end="", file=sys.stderr, flush=True)


def _conform(
    args: argparse.Namespace, adapter: str, profile: str | None, out: Out | None = None, *, nested: bool = False
) -> Report:
    """One search; its progress as a rich bar, the old one-line display, or none (``nested``: a bar is drawn above)."""
    factory = load_adapter(adapter, timeout=args.timeout, validate_protocol=args.validate_protocol)
    name = f"{adapter} / {profile or 'default profile'}"
    if nested:
        return _search(args, factory, profile, None)
    if out is not None and out.rich:
        with out.progress(f"{name}: examples") as advance:

            def bar(label: str, run: Run) -> None:
                short = label if len(label) < 40 else f"{len(label.split(','))} invariants"
                advance(completed=run.examples, note=f"{short}, {run.steps} steps")

            return _search(args, factory, profile, bar)
    progress = Progress(name)
    try:
        return _search(args, factory, profile, progress)
    finally:
        progress.done()


def _search(args: argparse.Namespace, factory: Any, profile: str | None, on_progress: Any) -> Report:
    return conform(
        factory,
        profile=profile,
        preset=args.preset,
        settings=args.settings,
        examples=args.examples,
        seed=args.seed,
        invariants=getattr(args, "invariant", None),
        on_progress=on_progress,
        named_config=args.config_preset,
    )


def run_conform(args: argparse.Namespace) -> int:
    """Run the search, print the table and counterexamples, save cases and reports."""
    check_outputs(args, files=("json", "junit_xml", "html"), folders=("cases_dir",))
    out = Out.for_args(args)
    report = _conform(args, args.adapter, args.profile, out)
    out.text(table(report))
    out.show(report_table(report))
    for line in verdict_lines(report) if out.mode == "quiet" else ():
        out.verdict(line)
    saved = save_cases(report, Path(args.cases_dir))
    for case, path in saved:
        out.text()
        hint = shlex.join(["ledgerspec", "replay", str(path), "--adapter", args.adapter])  # pastes back as is
        out.text(counterexample(case, replay_hint=hint, message=case is not report.fault_case))
        out.show(counterexample_table(case, replay_hint=hint))
    if args.html:
        from ledgerspec.conformance.cache._html_views import conformance_section  # noqa: PLC0415
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked

        page = HtmlReport(f"ledgerspec conform: {report.adapter.name} / {report.profile}: {report.verdict}")
        conformance_section(page, report)
        page.write(args.html)
    if args.json:
        write_json([report], args.json)
    if args.junit_xml:
        write_junit([report], args.junit_xml)
    return exit_status(report)


def exit_status(report: Report) -> int:
    """0 pass, 1 fail, 3 adapter fault."""
    return CONFORM_EXIT[report.verdict]


def save_cases(report: Report, directory: Path) -> list[tuple[Case, Path]]:
    """Write each failing case (and a fault's case) as JSON; returns what was written where."""
    cases = [row.case for row in report.failed() if row.case is not None]
    if report.fault_case is not None:
        cases.append(report.fault_case)
    saved = []
    for case in cases:
        directory.mkdir(parents=True, exist_ok=True)
        slug = re.sub(
            r"[^a-z0-9]+", "-", f"{report.adapter.name}--{report.profile}--{case.invariant or 'fault'}".lower()
        )
        path = directory / f"{slug.strip('-')}.json"
        path.write_text(case.dumps(), encoding="utf-8")
        saved.append((case, path))
    return saved


def run_replay(args: argparse.Namespace, data: Any) -> int:
    """Replay a case (its JSON ``data``) and say whether the adapter passes it now."""
    case = Case.from_dict(data, where=str(args.case))
    factory = load_adapter(args.adapter, timeout=args.timeout, validate_protocol=args.validate_protocol)
    outcome = replay(case, factory, every_invariant=args.all)
    print(outcome.render())
    return outcome.exit_status


def run_smoke(args: argparse.Namespace) -> int:
    """0 if the adapter answers every operation in the right shape (and keeps the rule smoke checks), 3 otherwise."""
    factory = load_adapter(args.adapter, timeout=args.timeout, validate_protocol=args.validate_protocol)
    outcome = smoke(factory, args.profile)
    print("\n".join(outcome.lines))
    if outcome.problem:
        print(f"SMOKE FAILED ({outcome.name or args.adapter}): {outcome.problem}")
        return EXIT_ADAPTER_FAULT
    beyond = "beyond cursor-driven invalidation, " if outcome.rule_checked else ""
    print(f"SMOKE OK: {outcome.name} is wired right ({beyond}this says nothing about conformance)")
    return EXIT_OK


def adapter_lines() -> list[str]:
    """The cache's adapters, with what they claim; real-code harnesses with the versions they drive."""
    lines = ["system cache (the default; --system cache):"]
    for name, target in installed_adapters(load=True).items():
        if isinstance(target, Harness):
            lines += harness_lines(name, target)
            continue
        adapter = load_adapter(name)()
        try:
            info = adapter.info
        finally:
            adapter.stop()
        lines.append(f"  {name}: {info.language} {info.version}, profiles {', '.join(info.profiles)}")
        lines.append(f"      capabilities: {', '.join(sorted(info.capabilities))}")
    lines.append(
        "  module:attr (a factory) or exec:COMMAND: any language over process protocol v1 (conformance/protocol/)"
    )
    return lines


def run_matrix(args: argparse.Namespace) -> int:
    """Every installed adapter against every profile; a matrix of verdicts."""
    args.timeout, args.validate_protocol = 10.0, False
    check_outputs(args, files=("json", "junit_xml", "html"))
    out = Out.for_args(args)
    adapters = list(installed_adapters())
    profiles = sorted(PROFILES)
    reports: dict[tuple[str, str], Report] = {}
    with out.progress("matrix: adapter x profile runs", total=len(adapters) * len(profiles)) as advance:
        for adapter in adapters:
            for profile in profiles:
                reports[adapter, profile] = _conform(args, adapter, profile, out, nested=True)
                advance(note=f"{adapter} / {profile}")
    _show_matrix(out, adapters, profiles, reports)
    if out.mode != "quiet":
        print("\nFAIL (n): n invariants of the profile fail; `ledgerspec conform` shows the counterexamples.")
    if args.html:
        from ledgerspec.conformance.cache._html_views import matrix_section  # noqa: PLC0415
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked

        page = HtmlReport("ledgerspec matrix")
        matrix_section(page, list(reports.values()))
        page.write(args.html)
    if args.json:
        write_json(list(reports.values()), args.json)
    if args.junit_xml:
        write_junit(list(reports.values()), args.junit_xml)
    return EXIT_OK


def _show_matrix(out: Out, adapters: list[str], profiles: list[str], reports: dict[tuple[str, str], Report]) -> None:
    """The verdict of each adapter against each profile: plain columns, a rich table, or verdict lines."""
    width = max(len(a) for a in adapters)
    out.text(f"{'adapter':<{width}}  " + "  ".join(f"{p:<16}" for p in profiles))
    rows = []
    for adapter in adapters:
        cells = []
        for profile in profiles:
            report = reports[adapter, profile]
            failed = len(report.failed())
            cells.append(f"{report.verdict + (f' ({failed})' if failed else ''):<16}")
            if out.mode == "quiet":
                out.verdict(f"{report.verdict}: {adapter} / {profile}" + (f" ({failed} failed)" if failed else ""))
        out.text(f"{adapter:<{width}}  " + "  ".join(cells))
        rows.append([adapter, *(cell.strip() for cell in cells)])
    if out.rich:
        from ledgerspec.conformance.render._term import simple_table  # noqa: PLC0415

        out.show(simple_table("Adapters against profiles", ["adapter", *profiles], rows))
