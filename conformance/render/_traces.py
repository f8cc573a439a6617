"""Trace checks on the HTML page, whatever the system: per trace its verdict, statuses and violations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance._verdict import Status
from ledgerspec.conformance.render._html import COLOURS, HtmlReport, new_figure, plural

SHOWN_VIOLATIONS = 5
"""Violations of a trace shown with their context; the rest are counted (the JSON report keeps them)."""


def traces_section(page: HtmlReport, results: Sequence[Any], errors: Sequence[tuple[str, str]] = ()) -> None:
    """Per trace file: its verdict, every invariant's status, and each violation with its context."""
    page.heading("Trace checks")
    page.table(
        ["trace", "profile", "engine", "events", "brokers", "verdict", "seconds"],
        [
            [r.path, r.profile, r.engine, r.events, r.brokers, str(r.verdict), round(r.seconds, 2)]
            for r in results
        ]
        + [[path, "", "", "", "", "ERROR", ""] for path, _ in errors],
    )
    for path, message in errors:
        page.heading(f"{path}: ERROR (not checked)", 3)
        page.preformatted(message)
    for result in results:
        page.heading(f"{result.path}: {result.verdict}", 3)
        statuses = result.statuses()
        # An invariant not checked has no count: a 0 there would read as "checked, none found".
        rows = [
            [name, str(status), "" if str(status).startswith("not ") else result.counts.get(name, 0)]
            for name, status in statuses.items()
        ]
        unclaimed = [row for row in rows if row[1] == Status.NOT_CLAIMED]
        page.table(["invariant", "status", "violations"], [row for row in rows if row[1] != Status.NOT_CLAIMED])
        if unclaimed:
            with page.folded(f"{plural(len(unclaimed), 'invariant')} not claimed by profile {result.profile}"):
                page.table(["invariant", "status", "violations"], unclaimed)
        for reason in result.unknown:
            page.paragraph(f"UNKNOWN: {reason}")
        for violation in sorted(result.violations, key=lambda v: v.row)[:SHOWN_VIOLATIONS]:  # earliest first
            page.paragraph(
                f"{violation.invariant} at broker {violation.broker!r}, seq {violation.seq}, "
                f"{violation.where()}: {violation.message}"
            )
            shown = [f"event:  {json.dumps(violation.event)}"]
            first = violation.first
            if first is not None:  # where the divergence began (a trace's line beside the event, as the text)
                at = f"row {first['row']}" if first["line"] is None else f"line {first['line']} (event {first['row']})"
                shown.append(f"first divergence: seq {first['seq']}, {at}: {json.dumps(first['event'])}")
            page.preformatted("\n".join([*shown, *(f"nearby: {json.dumps(n)}" for n in violation.context)]))
        hidden = len(result.violations) - SHOWN_VIOLATIONS
        if hidden > 0:
            page.paragraph(f"... {hidden} more in the JSON report (--json).")
    if results:
        fig = new_figure(7.0, 0.3 * len(results) + 1.0)
        axes = fig.add_subplot()
        names = [r.path.rsplit("/", 1)[-1] for r in results][::-1]
        axes.barh(names, [r.events for r in results][::-1], color=[_trace_colour(r) for r in results][::-1])
        axes.set_xlabel("events checked (green OK, red VIOLATION, amber UNKNOWN)")
        axes.tick_params(axis="y", labelsize=7)
        page.figure(fig, "Events checked per trace")


def _trace_colour(result: Any) -> str:
    return {"OK": COLOURS["ok"], "VIOLATION": COLOURS["violation"]}.get(str(result.verdict), "#d0a020")
