"""A lockstep counterexample as a story: the system's state after each step, read from its model.

The cursor state and the txlog writer (conformance/lockstep/_engine.py) keep no observations in their
counterexamples, only a config and steps; the model is pure, so replaying the steps through
``init``/``step`` gives the state a conforming implementation holds after each one. The terminal
table (conformance/lockstep/_views.py) and the HTML timeline both draw this one list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance.lockstep._engine import Report
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.spec import SpecError

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


class _Columns(dict[str, tuple[str, ...]]):
    """System name -> its story's state columns, read from its record (``System.columns``)."""

    def __missing__(self, name: str) -> tuple[str, ...]:
        return SYSTEMS[name].columns


COLUMNS = _Columns()
"""The state columns of each system, in order."""


def story(report: Report) -> list[StoryStep]:
    """The counterexample's steps, each with the model's state after it (empty when there is none)."""
    if report.violation is None:
        return []
    system = SYSTEMS[report.system]
    describe = system.describe
    if describe is None:
        raise ValueError(f"no story for system {report.system!r}")
    model = system.init(report.profile, report.violation.config)
    steps = report.violation.steps
    out: list[StoryStep] = []
    for index, op in enumerate(steps, start=1):
        try:
            model, result = system.step(model, op)
        except SpecError as error:  # the model refuses the step: say so, and stop the story there
            out.append(StoryStep(index, op.describe(), f"refused: {error}", {}, breaks=index == len(steps)))
            break
        state, values, marks = describe(model, op, result)
        text = system.result_text(result)
        if len(text) > RESULT_SHOWN:
            text = text[: RESULT_SHOWN - 1] + "…"
        out.append(StoryStep(index, op.describe(), text, state, values, marks, breaks=index == len(steps)))
    return out
