"""The HTML report's sections: conformance runs, counterexample timelines, kill matrices, trace checks.

Built on :class:`~ledgerspec.conformance.render._html.HtmlReport`; each function adds one section to a page,
so ``run`` puts all of them on one page and each command the ones it has. Traces' results are taken
as plain objects (duck-typed ``CheckResult``): traces import conformance, never the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance._verdict import Status
from ledgerspec.conformance.cache._case import Case
from ledgerspec.conformance.cache._engine import Report
from ledgerspec.conformance.cache._report import case_config_lines
from ledgerspec.conformance.cache._term import row_reason
from ledgerspec.conformance.cache._timeline import steps
from ledgerspec.conformance.render._html import COLOURS, HtmlReport, new_figure, plural

GREY = "#a0a0a8"


def conformance_section(page: HtmlReport, report: Report, *, level: int = 2) -> None:
    """A run's summary per invariant, a plot of the time spent on each, and every counterexample."""
    page.heading(f"{report.adapter.name} against profile {report.profile}: {report.verdict}", level)
    page.paragraph(
        f"Adapter {report.adapter.name} {report.adapter.version}; preset {report.preset}"
        + (f", config preset {report.named_config}" if report.named_config else "")
        + f", settings {report.settings}, seed {report.seed}: {report.examples} examples, "
        f"{report.steps} steps in {report.seconds:.1f} s."
    )
    rows: list[list[object]] = []
    folded: list[list[object]] = []
    timed = any(row.seconds for row in report.rows)
    for row in report.rows:
        why = row_reason(report, row)
        # A row's seconds are those of its own search, when it had one (a batch of invariants shares one):
        # a column of blanks only when no invariant was searched alone.
        seconds = [round(row.seconds, 2) if row.seconds else ""] if timed else []
        (folded if row.status == Status.NOT_CLAIMED else rows).append([row.invariant, str(row.status), *seconds, why])
    headers = ["invariant", "verdict", *(["seconds"] if timed else []), "why / what"]
    page.table(headers, rows)
    if folded:  # what the profile does not claim says nothing of the adapter: one click away
        with page.folded(f"{plural(len(folded), 'invariant')} not claimed by profile {report.profile}"):
            page.table(headers, folded)
    if level == 2:  # a run of its own; a page of several runs draws one grid for all of them
        status_grid(page, [report], f"Every invariant of the catalogue, {report.adapter.name} / {report.profile}")
    if report.fault:
        page.paragraph("Adapter fault:")
        page.preformatted(report.fault)
    for row in report.failed():
        if row.case is not None:
            timeline(page, row.case, level=min(level + 1, 6))


GRID = (
    ("pass", "#3a9a3a"),
    ("fail", "#c03030"),
    ("error", "#9030a0"),
    ("not checkable", "#e0c060"),
    ("not claimed", "#d8d8e0"),
    ("not run", "#b0b0b8"),
)
"""The status grid's colours, in its legend's order."""


def status_grid(page: HtmlReport, reports: Sequence[Report], caption: str) -> None:
    """Every invariant (rows) against each run (columns), coloured by its status: the whole catalogue at a glance."""
    from matplotlib.colors import ListedColormap  # noqa: PLC0415 - only reports with figures need it
    from matplotlib.patches import Patch  # noqa: PLC0415

    if not reports or not reports[0].rows:
        return
    names = [row.invariant for row in reports[0].rows]
    index = {status: i for i, (status, _) in enumerate(GRID)}
    grid = [
        [index.get(str(next((r.status for r in rep.rows if r.invariant == name), "not run")), 5) for rep in reports]
        for name in names
    ]
    fig = new_figure(1.6 + 1.3 * len(reports), 0.22 * len(names) + 1.4)
    axes = fig.add_subplot()
    axes.imshow(grid, cmap=ListedColormap([colour for _, colour in GRID]), vmin=0, vmax=len(GRID) - 1, aspect="auto")
    axes.set_yticks(range(len(names)), names, fontsize=7)
    axes.set_xticks(
        range(len(reports)), [f"{rep.adapter.name}\n{rep.profile}" for rep in reports], fontsize=7, rotation=0
    )
    axes.xaxis.tick_top()
    axes.set_xticks([x - 0.5 for x in range(1, len(reports))], minor=True)
    axes.set_yticks([y - 0.5 for y in range(1, len(names))], minor=True)
    axes.grid(which="minor", color="white", linewidth=1)
    axes.tick_params(which="minor", length=0)
    fig.legend(
        handles=[Patch(color=colour, label=status) for status, colour in GRID],
        loc="outside lower center",
        ncols=3,
        fontsize=7,
    )
    page.figure(fig, caption)


def timeline(page: HtmlReport, case: Case, *, level: int = 3) -> None:
    """A counterexample as a timeline of the cache: a step table and a plot of size against trigger and watermark."""
    config = case.config
    page.heading(f"Counterexample: {case.invariant or 'adapter fault'} ({len(case.steps)} steps)", level)
    for said in case_config_lines(case):
        page.paragraph(said)
    if case.message:
        page.preformatted(case.message)
    for said in (case.comment or "").splitlines():
        page.paragraph(said)
    story = steps(case)
    page.table(
        ["#", "step", "spec result", "size", "cache after (ledger:entry=size/expected reads, oldest first)", "left"],
        [
            [s.index, s.op, s.result, "" if s.size is None else s.size, s.cache(12), ", ".join(s.evicted)]
            for s in story
        ],
        marked=[s.index - 1 for s in story if s.breaks],
    )
    sizes = [(s.index, s.size) for s in story if s.size is not None]
    if not sizes:
        page.paragraph("The spec allows several outcomes at these steps: no single cache state to draw.")
        return
    fig = new_figure(7.0, 3.6)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    line = {"linewidth": 2, "baseline": None}
    top.stairs([v for _, v in sizes], _edges(sizes), label="cache size (spec)", color="#3050a0", **line)
    top.axhline(config.max_size, color="#606070", linestyle="-.", label=f"max {config.max_size} B")
    top.axhline(config.trigger_size, color="#c03030", linestyle="--", label=f"trigger {config.trigger_size} B")
    top.axhline(config.watermark_size, color="#d08020", linestyle=":", label=f"watermark {config.watermark_size} B")
    top.set_ylabel("bytes")
    known = [s for s in story if s.entries is not None]
    held = [(s.index, len(s.entries or ())) for s in known]
    awaited = [(s.index, sum(1 for e in s.entries or () if e[3] is not None and e[3] > 0)) for s in known]
    bottom.stairs([v for _, v in held], _edges(held), label="entries", color="#3050a0", **line)
    bottom.stairs([v for _, v in awaited], _edges(awaited), label="with expected reads", color="#3a9a3a", **line)
    gone = [s.index for s in story if s.evicted]
    if gone:
        bottom.scatter(gone, [0] * len(gone), marker="v", color="#c03030", label="eviction", zorder=3)
    for axes in (top, bottom):
        if case.failing_step:
            axes.axvspan(case.failing_step - 0.5, case.failing_step + 0.5, color="#c03030", alpha=0.15)
        axes.legend(fontsize=7, loc="upper left")
    bottom.xaxis.get_major_locator().set_params(integer=True)
    bottom.set_xlabel("step (the red band: where the invariant broke)")
    bottom.set_ylabel("entries")
    page.figure(fig, f"The spec's cache over the counterexample of {case.invariant or 'the fault'}")


def _edges(points: Sequence[tuple[int, object]]) -> list[float]:
    """Bin edges for ``stairs``: step i's state is drawn from i - 0.5 to i + 0.5 (consecutive steps)."""
    return [points[0][0] - 0.5, *(index + 0.5 for index, _ in points)]


def matrix_section(page: HtmlReport, reports: Sequence[Report]) -> None:
    """Adapters by profiles: the verdict of each pair, then each run's section."""
    adapters = sorted({r.adapter.name for r in reports})
    profiles = sorted({r.profile for r in reports})
    cell = {(r.adapter.name, r.profile): r for r in reports}
    page.heading("Adapters against profiles")
    page.table(
        ["adapter", *profiles],
        [[a, *(_matrix_cell(cell.get((a, p))) for p in profiles)] for a in adapters],
    )
    status_grid(page, reports, "Every invariant of every run, by status")
    for report in reports:
        conformance_section(page, report, level=3)


def _matrix_cell(report: Report | None) -> str:
    if report is None:
        return ""
    failed = len(report.failed())
    return str(report.verdict) if not failed else f"{report.verdict} ({failed})"


def mutants_section(page: HtmlReport, rates: Sequence[Any], *, settings: str, seeds: str) -> None:
    """The kill matrix: each mutant, seeds that killed it, the invariant credited, seconds to kill; and a plot."""
    page.heading(f"Mutant kill matrix (settings {settings}, {seeds})")
    rows = []
    for rate in rates:
        credited = rate.invariants.most_common()
        invariant = credited[0][0] + (f" +{len(credited) - 1}" if len(credited) > 1 else "") if credited else ""
        verdict = "killed" if rate.killed == rate.seeds else ("weak" if rate.killed else "survived")
        rows.append(
            [
                rate.mutant.name,
                rate.mutant.profile,
                verdict,
                f"{rate.killed}/{rate.seeds}",
                invariant,
                "-" if rate.median_seconds is None else round(rate.median_seconds, 2),
                rate.mutant.description,
            ]
        )
    page.table(["mutant", "profile", "verdict", "killed", "invariant", "median s", "what it breaks"], rows)
    if rates:
        fig = new_figure(7.0, 0.22 * len(rates) + 1.0)
        axes = fig.add_subplot()
        names = [rate.mutant.name for rate in rates][::-1]
        worst = [rate.worst_seconds or 0.0 for rate in rates][::-1]
        colours = [
            COLOURS["pass"] if rate.killed == rate.seeds else COLOURS["fail"] for rate in rates
        ][::-1]
        axes.barh(names, worst, color=colours)
        axes.set_xlabel("worst seconds to kill (red: survived a seed)")
        axes.tick_params(axis="y", labelsize=7)
        page.figure(fig, "Seconds to kill each mutant")


