"""What ``conform`` and ``mutants`` show of the cursor state and the txlog writer: tables and timelines.

The same views the entry cache has (conformance/_term.py, conformance/_html_views.py), for the
lockstep systems: a table naming every invariant with its verdict, the counterexample as numbered
steps with the system's state after each (conformance/_lockstep_story.py), and in HTML a plot of that
state over the run: the txlog writer's buffer against its limits over virtual time, flushes by
trigger; the cursor's mark-delete and persisted positions over the steps, crashes and recoveries marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance._errors import shown_lines
from ledgerspec.conformance._explain import lockstep_config_lines
from ledgerspec.conformance._html import HtmlReport, new_figure, plural
from ledgerspec.conformance._lockstep import Report, Row
from ledgerspec.conformance._lockstep_story import COLUMNS, StoryStep, position, story
from ledgerspec.conformance._term import escape, styled
from ledgerspec.conformance._verdict import Status

TRIGGER_MARKERS = {
    "max_records": ("o", "#3050a0"),
    "max_size": ("s", "#c03030"),
    "max_delay": ("^", "#d08020"),
    "large_data": ("D", "#9030a0"),
}
"""How the txlog plot marks a flush, by its trigger."""


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
    if report.system == "txlog-writer":
        _txlog_plot(page, report, steps)
    else:
        _cursor_plot(page, report, steps)


def _txlog_plot(page: HtmlReport, report: Report, steps: Sequence[StoryStep]) -> None:
    """Buffered bytes and records against their limits over virtual time; each flush marked by its trigger."""
    known = [s for s in steps if s.values]
    if not known:
        return
    config = report.violation.config  # type: ignore[union-attr]
    fig = new_figure(7.0, 4.0)
    top, bottom = fig.subplots(2, 1, sharex=True)
    times = [0, *(s.values["time"] for s in known)]
    line = {"drawstyle": "steps-post", "linewidth": 2}
    top.plot(times, [0, *(s.values["bytes"] for s in known)], color="#3050a0", label="buffered bytes", **line)
    top.axhline(config.max_size, color="#c03030", linestyle="--", label=f"max_size {config.max_size} B")
    bottom.plot(times, [0, *(s.values["records"] for s in known)], color="#3050a0", label="buffered records", **line)
    bottom.axhline(config.max_records, color="#c03030", linestyle="--", label=f"max_records {config.max_records}")
    seen: set[str] = set()
    for s in known:
        for mark in s.marks:
            trigger = mark.split(":", 1)[1]
            marker, colour = TRIGGER_MARKERS.get(trigger, ("x", "#606070"))
            label = None if trigger in seen else f"flush ({trigger})"
            seen.add(trigger)
            for axes in (top, bottom):
                axes.scatter([s.values["time"]], [0], marker=marker, color=colour, s=40, zorder=3, label=label)
    broke = known[-1].values["time"] if known[-1].breaks else None
    for axes in (top, bottom):
        if broke is not None:
            axes.axvline(broke, color="#c03030", alpha=0.3, linewidth=6)
        axes.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    bottom.xaxis.get_major_locator().set_params(integer=True)
    bottom.yaxis.get_major_locator().set_params(integer=True)
    top.set_ylabel("bytes")
    bottom.set_ylabel("records")
    bottom.set_xlabel(f"virtual time (ticks; max_delay {config.max_delay}; the red band: where the invariant broke)")
    page.figure(fig, f"The writer's buffer over the counterexample of {report.violation.invariant}")  # type: ignore[union-attr]


def _cursor_plot(page: HtmlReport, report: Report, steps: Sequence[StoryStep]) -> None:
    """The in-memory and the persisted mark-delete position over the steps; crashes and recoveries marked."""
    known = [s for s in steps if s.values]
    if not known:
        return
    positions = sorted({p for s in known for p in (s.values["mark_delete"], s.values["persisted"]) if p is not None})
    rank = {p: i for i, p in enumerate(positions)}
    fig = new_figure(7.0, 3.4)
    axes = fig.add_subplot()
    x = [s.index for s in known]
    lines = (
        ("mark_delete", "mark-delete (memory)", {"color": "#3050a0", "linewidth": 4, "alpha": 0.6}),
        ("persisted", "persisted (acknowledged)", {"color": "#3a9a3a", "linewidth": 2, "linestyle": "--"}),
    )
    for key, label, style in lines:  # the persisted line dashed on top: equal positions show both
        y = [rank[s.values[key]] if s.values[key] is not None else float("nan") for s in known]
        axes.plot(x, y, drawstyle="steps-mid", label=label, marker=".", **style)
    seen: set[str] = set()
    for s in known:
        for mark in s.marks:
            kind = mark.split(":", 1)[0]
            colour = "#c03030" if kind == "crash" or mark.endswith("failed") else "#3a9a3a"
            shown: str | None = (
                None
                if mark in seen
                else {"crash": "crash", "recover:ok": "recovery", "recover:failed": "recovery failed"}.get(mark, mark)
            )
            seen.add(mark)
            axes.axvline(
                s.index, color=colour, linestyle=":" if kind == "recover" else "--", linewidth=1.5, label=shown
            )
    if known[-1].breaks:
        axes.axvspan(known[-1].index - 0.5, known[-1].index + 0.5, color="#c03030", alpha=0.15)
    axes.set_yticks(range(len(positions)), [position(p) for p in positions], fontsize=7)
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.set_xlabel("step (the red band: where the invariant broke)")
    axes.set_ylabel("position (ledger:entry)")
    axes.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    page.figure(fig, f"The cursor's positions over the counterexample of {report.violation.invariant}")  # type: ignore[union-attr]


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
