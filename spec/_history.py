"""The event vocabulary of a lockstep system's recorded history (its trace), as data.

A history is the system's operations (input events) each followed by what the implementation
answered (output events): replaying the inputs through the pure model and the outputs as the
candidate's result gives every invariant the very ``Step`` conformance gives it, so a trace is judged
by the same checks. Inside-view kinds (what a writer wrote, never seen through the adapter API) are
validated and shown, not judged; what a candidate reports it wrote (``reported``) is an output like its
answer. traces/FORMAT.md documents each system's kinds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

INPUT, OUTPUT, INSIDE, END = "input", "output", "inside", "end"


@dataclass(frozen=True)
class EventKind:
    """One kind: its role, the fields it must and may carry, and what it means."""

    name: str
    role: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    meaning: str = ""
    one_of: tuple[str, ...] = ()
    """Optional fields of which exactly one is set (a recovery's state or its error)."""
    once: bool = False
    """An output that comes at most once after its input (a recovery gives one answer)."""
    data: Callable[[Any], str | None] | None = None
    """The shape of its ``data`` field's JSON value: why a parsed value has it not (a path inside
    ``data`` and the problem), or None; a trace row that breaks it is bad input."""


@dataclass(frozen=True)
class Vocabulary:
    """A system's event kinds and the two directions between (operation, result) and events."""

    system: str
    version: int
    kinds: Mapping[str, EventKind]
    outputs_of: Mapping[str, tuple[str, ...]]
    """Per input kind, the output kinds that may follow it (its result)."""
    events: Callable[[Any, Any, Mapping[int, int]], list[dict[str, Any]]]
    """(operation, candidate's result, record sizes seen so far) -> the rows, input first."""
    operation: Callable[[dict[str, Any]], Any]
    """An input row -> the operation (the spec's op class validates its fields)."""
    result: Callable[[dict[str, Any], list[dict[str, Any]], frozenset[str]], Any]
    """(input row, its output rows, the kinds the trace records) -> the candidate's result."""
    clocked: bool = False
    """The ``time`` column is the model's virtual clock, moved only by ``clock`` events."""
    pairs: Mapping[str, str] = field(default_factory=dict)
    """Output kinds that come as a pair, the first right before the second (when both are recorded)."""
    reported: tuple[str, ...] = ()
    """Output kinds only a candidate with the capability ``writes`` reports (what it wrote where): a
    recorder of any other candidate leaves them out of the header, and the checks reading them are UNKNOWN."""
    writes: Callable[[Any], list[dict[str, Any]] | None] = lambda _candidate: None
    """candidate -> the rows of the writes it reported since the last call, or None when it reports none."""
    clock: Callable[[Any], int] = lambda _op: 0
    """operation -> the ticks it moves a ``clocked`` system's virtual clock (the txlog writer's ``tick``)."""
    size: Callable[[Any], int | None] = lambda _op: None
    """operation -> the size of the record it adds, which later rows name by number (None: it adds none)."""
    facts: Callable[[list[dict[str, Any]], frozenset[str]], dict[str, Any]] = lambda _outputs, _recorded: {}
    """(a step's output rows, the kinds recorded) -> the ``Step`` fields besides the result (the writes)."""

    @property
    def inputs(self) -> tuple[str, ...]:
        return tuple(k for k, v in self.kinds.items() if v.role == INPUT)

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(k for k, v in self.kinds.items() if v.role == OUTPUT)


END_KIND = EventKind(
    "end",
    END,
    (),
    (),
    "the operation before it is complete: all its outputs came before (written by `traces record`; optional)",
)
"""The end mark of an operation, in each lockstep system's vocabulary (cursor-state, txlog-writer).

Without it a trace cut after an operation's input and before all its outputs looks like a candidate
that answered less; a trace whose header lists ``end`` has one after every operation, so a cut there
is told apart (the cut operation is not judged: UNKNOWN), and a missing end before the next
operation is bad input.
"""


def row(kind: str, **fields: Any) -> dict[str, Any]:
    """An event row: its kind and the fields that are set."""
    return {"kind": kind, **{name: value for name, value in fields.items() if value is not None}}


def integer_problem(value: Any, path: str) -> str | None:
    """Why a JSON value at ``path`` is not an integer (a boolean is not one, though Python's ``True == 1``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return None
    shown = json.dumps(value)
    return f"{path}: want an integer, got {shown if len(shown) <= 60 else shown[:57] + '...'}"


def unrepresentable(op: Any, result: Any) -> ValueError:
    """A candidate answer the vocabulary has no event for (a recorder cannot write it faithfully)."""
    return ValueError(f"{op.describe()}: the answer {result!r} has no event form in the trace vocabulary")
