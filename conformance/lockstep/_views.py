"""What ``conform`` and ``mutants`` show of the cursor state and the txlog writer: tables and timelines.

The same views the entry cache has (conformance/render/_term.py, conformance/cache/_html_views.py), for the
lockstep systems: a table naming every invariant with its verdict, the counterexample as numbered
steps with the system's state after each (conformance/lockstep/_story.py), and in HTML a plot of that
state over the run: the txlog writer's buffer against its limits over virtual time, flushes by
trigger; the cursor's mark-delete and persisted positions over the steps, crashes and recoveries marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance._errors import shown_lines
from ledgerspec.conformance._verdict import Status
from ledgerspec.conformance.lockstep._engine import Report, Row
from ledgerspec.conformance.lockstep._story import COLUMNS, story
from ledgerspec.conformance.render._explain import lockstep_config_lines
from ledgerspec.conformance.render._html import HtmlReport, new_figure, plural
from ledgerspec.conformance.render._term import escape, styled
from ledgerspec.conformance.systems import SYSTEMS


def title(report: Report, adapter: str) -> str:
    """One line naming the run."""
    return f"{report.system}: {adapter} against profile {report.profile}: {report.verdict.value}"


def caption(report: Report) -> str:
    """What was searched, how hard."""
    return f"settings {report.settings}, seed {report.seed}: {report.examples} examples, {report.steps} steps"


def report_table(report: Report, adapter: str) -> Any:
    """Every invariant of the run with its verdict, as a rich table."""
    from rich.table import Table  # noqa: PLC0415 - only on a terminal

    heading = title(report, adapter)
    table = Table(
        title=escape(heading.rsplit(": ", 1)[0]) + f": {styled(report.verdict.value)}",
        caption=caption(report),
        title_justify="left",
        caption_justify="left",
        min_width=min(len(heading) + 4, 120),  # else rich wraps the title to the narrow table
    )
    table.add_column("invariant", style="bold", no_wrap=True)
    table.add_column("verdict")
    table.add_column("why / what")
    for row in report.rows():
        table.add_row(row.invariant, styled(row.status), escape(reason(report, row)))
    if report.fault is not None:
        table.add_row("ADAPTER FAULT", styled("error"), escape(report.fault.splitlines()[0]))
    return table


def reason(report: Report, row: Row) -> str:
    """What a row says beside its status, as the cache's report says it (``_term.row_reason``)."""
    if row.status == Status.FAIL and report.violation is not None:
        return f"counterexample of {len(report.violation.steps)} steps (below)"
    if row.status == Status.PASS:
        return "held on every step that reached it"
    return row.detail


def fault_table(report: Report) -> Any:
    """Where the adapter faulted: the example's steps up to the fault, and the fault with the adapter's stderr."""
    from rich.table import Table  # noqa: PLC0415 - only on a terminal

    assert report.fault is not None
    where = report.fault_at or "adapter fault while Hypothesis replayed an example"
    fault = "\n".join(shown_lines(report.fault, "", "", "in --json's fault"))
    table = Table(
        title=f"[bold magenta]{escape(where)}[/]",
        caption=escape(fault),
        title_justify="left",
        caption_justify="left",
        min_width=min(max(len(line) for line in [where, *fault.splitlines()]) + 4, 120),  # else rich wraps them
    )
    table.add_column("#", justify="right")
    table.add_column("step")
    for index, op in enumerate(report.fault_steps, 1):
        faulted = index == report.fault_step
        table.add_row(
            str(index) + (" ◀" if faulted else ""), escape(op.describe()), style="on dark_red" if faulted else None
        )
    return table


def counterexample_table(report: Report) -> Any:
    """The counterexample as numbered steps with the model's state after each; the breaking step marked."""
    from rich.table import Table  # noqa: PLC0415 - only on a terminal

    violation = report.violation
    assert violation is not None
    config = violation.config
    shown = ", ".join(f"{k}={v}" for k, v in config.to_dict().items())
    table = Table(
        title=f"[bold red]{violation.invariant}[/] ({len(violation.steps)} steps; {escape(shown)})",
        caption=escape("\n".join([*lockstep_config_lines(report.system, report.profile, config), violation.message])),
        title_justify="left",
        caption_justify="left",
    )
    table.add_column("#", justify="right")
    table.add_column("step")
    table.add_column("spec result")
    for column in COLUMNS[report.system]:
        table.add_column(column)
    for step in story(report):
        table.add_row(
            str(step.index) + (" ◀" if step.breaks else ""),
            escape(step.op),
            escape(step.result),
            *(escape(step.state.get(column, "")) for column in COLUMNS[report.system]),
            style="on dark_red" if step.breaks else None,
        )
    return table


def section(page: HtmlReport, report: Report, adapter: str) -> None:
    """A run in HTML: its invariants, and the counterexample as a step table and a timeline plot."""
    page.heading(title(report, adapter))
    page.paragraph(f"{report.system}, {caption(report)}.")
    headers = ["invariant", "verdict", "why / what"]
    verdicts = [[r.invariant, r.status, reason(report, r)] for r in report.rows()]
    page.table(headers, [row for row in verdicts if row[1] != Status.NOT_CLAIMED])
    unclaimed = [row for row in verdicts if row[1] == Status.NOT_CLAIMED]
    if unclaimed:  # as the cache's section: what the profile does not claim says nothing of the adapter
        with page.folded(f"{plural(len(unclaimed), 'invariant')} not claimed by profile {report.profile}"):
            page.table(headers, unclaimed)
    if report.fault is not None:
        page.paragraph(f"{report.fault_at or 'Adapter fault'}:")
        if report.fault_steps:
            rows = [[i, op.describe()] for i, op in enumerate(report.fault_steps, 1)]
            page.table(["#", "step"], rows, marked=[] if report.fault_step is None else [report.fault_step - 1])
        page.preformatted(report.fault)
    violation = report.violation
    if violation is None:
        return
    page.heading(f"Counterexample: {violation.invariant} ({len(violation.steps)} steps)", 3)
    page.preformatted(violation.message)
    for line in lockstep_config_lines(report.system, report.profile, violation.config):
        page.paragraph(line)
    steps = story(report)
    page.table(
        ["#", "step", "spec result", *COLUMNS[report.system]],
        [[s.index, s.op, s.result, *(s.state.get(c, "") for c in COLUMNS[report.system])] for s in steps],
        marked=[s.index - 1 for s in steps if s.breaks],
    )
    plot = SYSTEMS[report.system].plot
    if plot is not None:
        plot(page, report, steps)


def mutants_section(
    page: HtmlReport, system: str, rows: Sequence[dict[str, Any]], *, settings: str, seeds: str
) -> None:
    """A lockstep system's kill matrix (rows as ``mutants --system S --json`` writes them) and seconds to kill."""
    page.heading(f"{system} mutant kill matrix (settings {settings}, {seeds})")
    table = []
    for row in rows:
        verdict = "killed" if row["killed"] == row["seeds"] else ("weak" if row["killed"] else "survived")
        table.append(
            [
                row["name"],
                row["profile"],
                verdict,
                f"{row['killed']}/{row['seeds']}",
                ", ".join(row["invariants"]),
                "-" if row["median_seconds"] is None else row["median_seconds"],
                row["description"],
            ]
        )
    page.table(["mutant", "profile", "verdict", "killed", "invariant", "median s", "what it breaks"], table)
    if not rows:
        return
    fig = new_figure(7.0, 0.22 * len(rows) + 1.0)
    axes = fig.add_subplot()
    axes.barh(
        [row["name"] for row in rows][::-1],
        [row["worst_seconds"] or 0.0 for row in rows][::-1],
        color=["#3a9a3a" if row["killed"] == row["seeds"] else "#c03030" for row in rows][::-1],
    )
    axes.set_xlabel("worst seconds to kill (red: survived a seed)")
    axes.tick_params(axis="y", labelsize=7)
    page.figure(fig, f"Seconds to kill each {system} mutant")
