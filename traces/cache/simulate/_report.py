"""The simulator's plots (matplotlib Figures) and its HTML report section.

``render(report, document)`` writes a sweep into any report with the five methods of :class:`Report`,
the HTML report API of the conformance package (``conformance/render/_html.py``, ``HtmlReport``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ledgerspec.conformance.render._html import HtmlReport
from ledgerspec.traces.cache.simulate._sweep import human_size, table_rows

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
    def table(self, headers: list[str], rows: list[list[str]], *, wrap_headers: bool = False) -> None: ...
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
    report.table(headers, rows, wrap_headers=True)  # twelve columns: headers on two lines rather than a scroll
    for text in notes(document):
        report.paragraph(text)
    for fig, caption in figures(document):
        report.figure(fig, caption)


COLUMN_NOTES = (
    "Columns: hit rate is 1 - BK reads / reads; BK reads and BK bytes are the entries (and bytes) read from "
    "BookKeeper; awaited evicted counts the evicted entries a consumer still had to read; younger evicted counts "
    "the entries a size pass removed while an entry inserted before them stayed in the cache (by insert time, not "
    "requeue time): evictions that were not oldest first, as an operator means it; evicted size, evicted ttl and "
    "invalidated count the entries removed by each kind of pass (invalidated: a ledger dropped below its slowest "
    "cursor, legacy mode); peak and mean size are the size the cache reports after every operation "
    '(traces/SIMULATOR.md, "What is measured").'
)


def notes(document: dict[str, Any]) -> list[str]:
    """What the table's columns mean, and why legacy's figures may not move with the cache size."""
    texts = [COLUMN_NOTES]
    legacy = [cell for cell in document["summary"] if cell["profile"] == "legacy"]
    if legacy:
        peak = max(cell["mean"]["peak_size"] for cell in legacy)
        smallest = min(document["cache_sizes"])
        why = "legacy mode invalidates each ledger behind its slowest cursor, so the cache holds only what that cursor"
        if peak < smallest:
            texts.append(
                f"Legacy's figures are the same at every cache size: {why} has yet to read and never fills. Its "
                f"peak, {human_size(peak)}, stays below the smallest limit, {human_size(smallest)}: no size pass "
                "runs, and a larger cache has nothing more to keep."
            )
        else:
            texts.append(
                f"Legacy: {why} has yet to read. Its peak here is {human_size(peak)}: a cache larger than that has "
                "nothing more to keep, and legacy's figures stop changing there."
            )
    return texts


def html_report(title: str) -> Report:
    """The conformance package's one HTML report, which every command's ``--html`` writes."""
    report: Report = HtmlReport(title)
    return report
