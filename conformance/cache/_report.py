"""Rendering a conformance report: a terminal table, numbered counterexamples, JSON and JUnit XML."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from ledgerspec.conformance._errors import shown_lines
from ledgerspec.conformance._verdict import SKIPPED, Status
from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.cache._case import Case
from ledgerspec.conformance.cache._engine import Report
from ledgerspec.conformance.cache._explain import cache_config_lines


def table(report: Report) -> str:
    """One line per invariant of the catalogue: pass, fail (with the case), not claimed, ..."""
    width = max(len(row.invariant) for row in report.rows)
    lines = [
        (
            f"{report.verdict}: adapter {report.adapter.name} {report.adapter.version} against profile "
            f"{report.profile} (preset {report.preset}"
            + (f", config preset {report.named_config}" if report.named_config else "")
            + f", settings {report.settings}, seed {report.seed})"
        ),
        f"{report.examples} examples, {report.steps} steps in {report.seconds:.1f} s",
        "",
    ]
    for row in report.rows:
        note = ""
        if row.status == Status.FAIL and row.case is not None:
            note = f"counterexample of {len(row.case.steps)} steps"
        elif row.detail and row.status != Status.PASS:
            note = row.detail
        lines.append(f"  {row.invariant:<{width}}  {row.status.upper():<13}  {note}".rstrip())
    if report.fault:
        lines += ["", *shown_lines(report.fault, "ADAPTER FAULT: ", "", "in the JSON report and the saved case")]
    return "\n".join(lines)


NO_STEP_TAKEN = "the adapter faulted with no step taken (at start or configure, or at stop)"
"""What a case with ``failing_step`` 0 records, as the terminal says it."""


def counterexample(case: Case, *, replay_hint: str | None = None, message: bool = True) -> str:
    """Numbered steps a person can read, the violation at the failing step, and the model difference.

    ``message=False`` leaves the message out where the reader has just seen it (an adapter fault's,
    in the table above).
    """
    header = f"{case.invariant or 'ADAPTER FAULT'} (profile {case.profile}, adapter {case.found_with})"
    lines = [header, *(f"      {line}" for line in case_config_lines(case))]
    expected = case.expected or []
    for index, op in enumerate(case.steps, start=1):
        marker = "   <- breaks here" if index == case.failing_step else ""
        spec = ""
        if index - 1 < len(expected):
            spec = f"   spec: {_short(expected[index - 1]['result'])}"
        lines.append(f"  {index:>2}. {op.describe()}{spec}{marker}")
    if case.failing_step == 0:
        lines.append(f"      no steps: {NO_STEP_TAKEN}")
    if case.message and message:
        lines += shown_lines(case.message, f"{case.invariant or 'fault'}: ", "      ", "in the case file")
    if case.comment and case.invariant != "CACHE-MODEL":
        lines += [f"      {line}" for line in case.comment.splitlines()]
    if replay_hint:
        lines.append(f"      replay: {replay_hint}")
    return "\n".join(lines)


def case_config_lines(case: Case) -> list[str]:
    """The configuration the case's run started from, and what differs from its profile's defaults."""
    return cache_config_lines(case.config, case.profile, case.preset, case.config_preset)


def _short(value: Any) -> str:
    return json.dumps(value)


def to_json(report: Report) -> dict[str, Any]:
    """The machine-readable report of one run (``conform --json``): the verdict, counts, each invariant and its case."""
    return {
        "ledgerspec": VERSION,
        "adapter": report.adapter.to_dict(),
        "profile": report.profile,
        "preset": report.preset,
        **({"config_preset": report.named_config} if report.named_config else {}),
        "settings": report.settings,
        "seed": report.seed,
        "verdict": report.verdict,
        "examples": report.examples,
        "steps": report.steps,
        "seconds": round(report.seconds, 3),
        "rows": [
            {
                "invariant": row.invariant,
                "status": row.status,
                "detail": row.detail,
                "seconds": round(row.seconds, 3),
                **({"case": row.case.to_dict()} if row.case else {}),
            }
            for row in report.rows
        ],
        **({"fault": report.fault} if report.fault else {}),
        **({"fault_case": report.fault_case.to_dict()} if report.fault_case else {}),
    }


def write_json(reports: list[Report], path: str | Path) -> None:
    """One report, or a list of them (``matrix``), as pretty JSON."""
    body: Any = to_json(reports[0]) if len(reports) == 1 else [to_json(r) for r in reports]
    Path(path).write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def write_junit(reports: list[Report], path: str | Path) -> None:
    """JUnit XML: a test suite per report, a test case per invariant."""
    suites = ET.Element("testsuites", name="ledgerspec")
    for report in reports:
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f"ledgerspec.{report.profile}.{report.adapter.name}",
            tests=str(len(report.rows)),
            failures=str(len(report.failed())),
            errors=str(sum(1 for row in report.rows if row.status == Status.ERROR)),
            skipped=str(sum(1 for row in report.rows if row.status in SKIPPED)),
            time=f"{report.seconds:.3f}",
        )
        for row in report.rows:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"{report.adapter.name}.{report.profile}",
                name=row.invariant,
                time=f"{row.seconds:.3f}",
            )
            if row.status == Status.FAIL:
                failure = ET.SubElement(case, "failure", message=row.detail[:500])
                failure.text = counterexample(row.case) if row.case else row.detail
            elif row.status == Status.ERROR:
                ET.SubElement(case, "error", message=report.fault or row.detail)
            elif row.status in SKIPPED:
                ET.SubElement(case, "skipped", message=f"{row.status}: {row.detail}".strip(": "))
    ET.indent(suites)
    Path(path).write_text(ET.tostring(suites, encoding="unicode") + "\n", encoding="utf-8")
