"""``ledgerspec run``'s part 1 for the cache: each shipped reference adapter against its own profile."""

from __future__ import annotations

import argparse
from typing import Any

from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.render._term import Out


def check_references(args: argparse.Namespace, out: Out, page: Any, document: Any, title: str) -> bool:
    """Part 1: each shipped reference adapter against its own profile; a table naming every invariant."""
    from ledgerspec.conformance.cache._engine import conform  # noqa: PLC0415 - heavy imports only here
    from ledgerspec.conformance.cache._report import to_json  # noqa: PLC0415
    from ledgerspec.conformance.cache._term import report_table  # noqa: PLC0415
    from ledgerspec.conformance.cache.adapters import installed_adapters, load_adapter  # noqa: PLC0415

    ok = True
    reports = []
    names = [name for name in installed_adapters() if name.startswith("reference-")]
    with out.progress("reference adapters", total=len(names)) as advance:
        for name in names:
            report = conform(load_adapter(name), settings="quick", seed=args.seed)
            advance(note=f"{name}: {report.verdict}")
            ok &= report.verdict == Verdict.PASS
            out.text(
                f"   {name:<26} {report.profile:<14} {report.verdict:<5} "
                f"{report.examples} examples, {report.steps} steps, {report.seconds:.1f} s"
            )
            out.show(report_table(report))
            if out.mode == "quiet":
                out.verdict(f"{report.verdict}: {name} / {report.profile}")
            reports.append(report)
            document.references.append(to_json(report))
    if page is not None:
        from ledgerspec.conformance.cache._html_views import conformance_section, status_grid  # noqa: PLC0415

        page.heading(title)
        page.paragraph(
            "Each shipped reference cache against its own profile: every invariant of the catalogue, "
            "held (pass), broken (fail), or not checked and why (not claimed by the profile, not checkable "
            "with what the adapter shows)."
        )
        status_grid(page, reports, "Every invariant against each reference, by status")
        for report in reports:
            conformance_section(page, report, level=3)
    return ok
