"""How a cursor-state counterexample is told: the model's state after each step, and its plot.

The hooks of the cursor-state ``System`` (``conformance/cursor_state/_system.py``) that
``conformance/lockstep/_story.py`` and ``conformance/lockstep/_views.py`` call: the state columns, one step's
cells, the recovered state in words, and the HTML plot of the mark-delete and persisted positions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance.render._html import HtmlReport, new_figure
from ledgerspec.spec.cursor_state import AckState

COLUMNS = ("mark-delete", "acked ranges", "persisted (acknowledged)", "metadata store", "ledger entries")
"""The state columns, in order."""


def position(p: tuple[int, int]) -> str:
    """``ledger:entry`` (``1:-1``: before the first entry of ledger 1)."""
    return f"{p[0]}:{p[1]}"


def _ranges(state: AckState) -> str:
    runs = [f"({position(lo)},{position(hi)}]" for lo, hi in state.runs()]
    batch = [f"{position(p)} unacked {sorted(left)}" for p, left in state.batch]
    return " ".join(runs + batch) or "none"


def recovered(state: dict[str, Any]) -> str:
    """A recovered cursor state, short: mark-delete, acked entries, batch sets, properties."""
    parts = [f"mark-delete {position(tuple(state['mark_delete']))}"]
    if state.get("acked"):
        parts.append("acked " + " ".join(position(tuple(p)) for p in state["acked"]))
    if state.get("batch"):
        parts.append(f"{len(state['batch'])} batch sets")
    if state.get("properties"):
        parts.append(" ".join(f"{k}={v}" for k, v in state["properties"].items()))
    return "recovered " + ", ".join(parts)


def describe(model: Any, op: Any, result: Any) -> tuple[dict[str, str], dict[str, Any], tuple[str, ...]]:
    """Mark-delete, acked ranges, what is durable, the metadata-store record and each cursor ledger's entries."""
    memory: AckState | None = model.memory
    persisted = model.persists.get(model.acknowledged) if model.acknowledged else model.meta[1]
    pointer, record = model.meta
    where = "itself" if pointer < 0 else f"→ ledger {pointer}"
    ledgers = " ".join(f"{ledger}:{len(entries)}" for ledger, entries in sorted(model.ledgers.items())) or "none"
    if model.outstanding:
        ledgers += f" (+{len(model.outstanding)} outstanding)"
    state = {
        "mark-delete": "crashed" if memory is None else position(memory.mark_delete),
        "acked ranges": "-" if memory is None else _ranges(memory),
        "persisted (acknowledged)": "-"
        if persisted is None
        else position(persisted.mark_delete) + (f" #{model.acknowledged}" if model.acknowledged else " (initial)"),
        "metadata store": f"{where} ({position(record.mark_delete)})",
        "ledger entries": ledgers,
    }
    values = {
        "mark_delete": None if memory is None else memory.mark_delete,
        "persisted": None if persisted is None else persisted.mark_delete,
    }
    kind = getattr(op, "kind", "")
    marks = (
        ("crash",)
        if kind == "crash"
        else (f"recover:{'failed' if result == 'failed' else 'ok'}",)
        if kind == "recover"
        else ()
    )
    return state, values, marks


def result_text(result: Any) -> str:
    """A recovery's answer in words; any other answer as JSON."""
    return recovered(result) if isinstance(result, dict) and "mark_delete" in result else json.dumps(result)


def plot(page: HtmlReport, report: Any, steps: Sequence[Any]) -> None:
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
    page.figure(fig, f"The cursor's positions over the counterexample of {report.violation.invariant}")
