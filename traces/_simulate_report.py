"""The simulator's plots (matplotlib Figures) and its HTML report section.

``render(report, document)`` writes a sweep into any report with the five methods of :class:`Report`,
the HTML report API of the conformance package (``conformance/_html.py``, ``HtmlReport``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ledgerspec.conformance._html import HtmlReport
from ledgerspec.traces._simulate_sweep import human_size, table_rows

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PLOTS = (
    ("hit_rate", "hit rate", "Hit rate against cache size"),
    ("bk_reads", "BookKeeper reads (entries)", "BookKeeper reads against cache size"),
    ("awaited_evicted", "awaited entries evicted", "Entries evicted while a consumer still awaited them"),
)
"""(metric, y label, title) of each figure."""


class Report(Protocol):
    """What :func:`render` needs of a report: the conformance package's ``HtmlReport`` methods."""

    def heading(self, text: str, level: int = 2) -> None: ...
    def paragraph(self, text: str) -> None: ...
    def table(self, headers: list[str], rows: list[list[str]]) -> None: ...
    def figure(self, fig: Figure, caption: str) -> None: ...
    def write(self, path: str | Path) -> None: ...


def metric_figure(document: dict[str, Any], metric: str, ylabel: str, title: str) -> Figure:
    """One line per profile: the metric's mean against cache size (log scale), the spread as error bars."""
    from matplotlib.figure import Figure  # noqa: PLC0415 - matplotlib only where a plot is drawn

    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    axes = fig.add_subplot()
    for profile in document["profiles"]:
        cells = [c for c in document["summary"] if c["profile"] == profile]
        sizes = [c["cache_size"] for c in cells]
        axes.errorbar(
            sizes,
            [c["mean"][metric] for c in cells],
            yerr=[c["spread"][metric] for c in cells],
            marker="o",
            capsize=3,
            label=profile,
        )
    axes.set_xscale("log", base=2)
    sizes = document["cache_sizes"]
    axes.set_xticks(sizes, [human_size(s) for s in sizes])
    axes.minorticks_off()
    axes.set_xlabel("cache size (managedLedgerCacheSizeMB)")
    axes.set_ylabel(ylabel)
    axes.set_title(f"{title} ({document['workload']})")
    axes.grid(visible=True, alpha=0.3)
    axes.legend()
    return fig


def figures(document: dict[str, Any]) -> list[tuple[Figure, str]]:
    """Every figure of a sweep with its caption."""
    seeds = document["seeds"]
    caption = f"mean over {seeds} seed{'s' if seeds > 1 else ''}; bars: one standard deviation"
    return [(metric_figure(document, m, y, t), f"{t}: {caption}.") for m, y, t in PLOTS]


def render(report: Report, document: dict[str, Any]) -> None:
    """Write the sweep into ``report``: what was run, the summary table, the plots."""
    report.heading(f"Cache policy simulator: {document['workload']}", level=2)
    report.paragraph(
        f"Workload {document['workload']}, {document['topics']} topics, {document['steps']} steps per run, "
        f"{document['seeds']} seeds, engine {document['engine']}. Each profile's reference cache driven "
        "through its managed ledgers; BookKeeper reads are the entries read from storage; awaited entries "
        "are those a cursor or a Key_Shared replay queue had still to read when they were evicted."
    )
    headers, rows = table_rows(document)
    report.table(headers, rows)
    for fig, caption in figures(document):
        report.figure(fig, caption)


def html_report(title: str) -> Report:
    """The conformance package's one HTML report, which every command's ``--html`` writes."""
    report: Report = HtmlReport(title)
    return report
