"""How a txlog-writer counterexample is told: the model's state after each step, and its plot.

The hooks of the txlog-writer ``System`` (``conformance/txlog_writer/_system.py``) that
``conformance/lockstep/_story.py`` and ``conformance/lockstep/_views.py`` call: the state columns, one step's
cells, and the HTML plot of the buffer against its limits over virtual time, flushes by trigger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance.render._html import HtmlReport, new_figure

COLUMNS = ("clock", "buffered records", "buffered bytes", "pending writes", "callbacks done", "timer")
"""The state columns, in order."""
TRIGGER_MARKERS = {
    "max_records": ("o", "#3050a0"),
    "max_size": ("s", "#c03030"),
    "max_delay": ("^", "#d08020"),
    "large_data": ("D", "#9030a0"),
}
"""How the txlog plot marks a flush, by its trigger."""


def describe(model: Any, _op: Any, result: Any) -> tuple[dict[str, str], dict[str, Any], tuple[str, ...]]:
    """Clock, the buffered batch (records and bytes), entries awaiting the ledger, callbacks completed, the timer."""
    config = model.config
    buffered = sum(size for _, size, _ in model.batch)
    state = {
        "clock": str(model.now),
        "buffered records": f"{len(model.batch)}/{config.max_records}",
        "buffered bytes": f"{buffered}/{config.max_size}",
        "pending writes": str(len(model.outstanding)),
        "callbacks done": str(len(model.done)),
        "timer": "closed" if model.closed else ("off" if model.timer is None else f"at {model.timer}"),
    }
    values = {"time": model.now, "records": len(model.batch), "bytes": buffered}
    events = result if isinstance(result, list) else []
    marks = tuple(f"flush:{event[4]}" for event in events if event[0] == "write" and event[4] is not None)
    return state, values, marks


def plot(page: HtmlReport, report: Any, steps: Sequence[Any]) -> None:
    """Buffered bytes and records against their limits over virtual time; each flush marked by its trigger."""
    known = [s for s in steps if s.values]
    if not known:
        return
    config = report.violation.config
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
    page.figure(fig, f"The writer's buffer over the counterexample of {report.violation.invariant}")
