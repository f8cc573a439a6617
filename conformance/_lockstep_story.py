"""A lockstep counterexample as a story: the system's state after each step, read from its model.

The cursor state and the txlog writer (conformance/_lockstep.py) keep no observations in their
counterexamples, only a config and steps; the model is pure, so replaying the steps through
``init``/``step`` gives the state a conforming implementation holds after each one. The terminal
table (conformance/_lockstep_views.py) and the HTML timeline both draw this one list.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance._lockstep import Report
from ledgerspec.spec import SpecError, cursor_state, txlog
from ledgerspec.spec.cursor_state import AckState

RESULT_SHOWN = 60
"""Characters of a step's expected result shown in a table cell (the whole result is in the JSON report)."""


@dataclass(frozen=True)
class StoryStep:
    """One step of a counterexample and the model's state after it."""

    index: int
    """1-based; the last step is the one where the invariant broke."""
    op: str
    result: str
    """What the model answers (the candidate's answer differs at the breaking step)."""
    state: dict[str, str]
    """Column name to cell text, in the system's column order (:data:`COLUMNS`)."""
    values: dict[str, Any] = field(default_factory=dict)
    """Numbers (or positions) the plots draw."""
    marks: tuple[str, ...] = ()
    """What happened at this step that the plot marks: ``crash``, ``recover``, ``flush:TRIGGER``."""
    breaks: bool = False


COLUMNS = {
    "cursor-state": ("mark-delete", "acked ranges", "persisted (acknowledged)", "metadata store", "ledger entries"),
    "txlog-writer": ("clock", "buffered records", "buffered bytes", "pending writes", "callbacks done", "timer"),
}
"""The state columns of each system, in order."""


def story(report: Report) -> list[StoryStep]:
    """The counterexample's steps, each with the model's state after it (empty when there is none)."""
    if report.violation is None:
        return []
    describe: Callable[[Any, Any, Any], tuple[dict[str, str], dict[str, Any], tuple[str, ...]]]
    if report.system == "cursor-state":
        init, step, describe = cursor_state.init, cursor_state.step, _cursor
    elif report.system == "txlog-writer":
        init, step, describe = txlog.init, txlog.step, _txlog  # type: ignore[assignment]
    else:
        raise ValueError(f"no story for system {report.system!r}")
    model = init(report.profile, report.violation.config)
    steps = report.violation.steps
    out: list[StoryStep] = []
    for index, op in enumerate(steps, start=1):
        try:
            model, result = step(model, op)
        except SpecError as error:  # the model refuses the step: say so, and stop the story there
            out.append(StoryStep(index, op.describe(), f"refused: {error}", {}, breaks=index == len(steps)))
            break
        state, values, marks = describe(model, op, result)
        text = _recovered(result) if isinstance(result, dict) and "mark_delete" in result else json.dumps(result)
        if len(text) > RESULT_SHOWN:
            text = text[: RESULT_SHOWN - 1] + "…"
        out.append(StoryStep(index, op.describe(), text, state, values, marks, breaks=index == len(steps)))
    return out


def position(p: tuple[int, int]) -> str:
    """``ledger:entry`` (``1:-1``: before the first entry of ledger 1)."""
    return f"{p[0]}:{p[1]}"


def _ranges(state: AckState) -> str:
    runs = [f"({position(lo)},{position(hi)}]" for lo, hi in state.runs()]
    batch = [f"{position(p)} unacked {sorted(left)}" for p, left in state.batch]
    return " ".join(runs + batch) or "none"


def _recovered(state: dict[str, Any]) -> str:
    """A recovered cursor state, short: mark-delete, acked entries, batch sets, properties."""
    parts = [f"mark-delete {position(tuple(state['mark_delete']))}"]
    if state.get("acked"):
        parts.append("acked " + " ".join(position(tuple(p)) for p in state["acked"]))
    if state.get("batch"):
        parts.append(f"{len(state['batch'])} batch sets")
    if state.get("properties"):
        parts.append(" ".join(f"{k}={v}" for k, v in state["properties"].items()))
    return "recovered " + ", ".join(parts)


def _cursor(model: Any, op: Any, result: Any) -> tuple[dict[str, str], dict[str, Any], tuple[str, ...]]:
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


def _txlog(model: Any, _op: Any, result: Any) -> tuple[dict[str, str], dict[str, Any], tuple[str, ...]]:
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
