"""``traces record --system S`` of a lockstep system: drive an adapter and write its history.

The recorder wraps any candidate of the system (a reference, a mutant, an ``exec:`` process) and
writes, for each operation, the rows of the system's vocabulary (``spec/<system>/_events.py``): the
operation, then what the candidate answered, then the ``end`` mark that tells a complete operation
from one a cut trace ends inside. The operations come from a seeded random walk over the
same moves as the conformance machine (the system's ``System.walk``), or from a case file's
steps (a counterexample ``conform`` printed), so that a trace and ``conform`` can be compared on the
same steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.spec._history import END, END_KIND, INPUT
from ledgerspec.traces.lockstep._io import SystemHeader, SystemTraceWriter


class Recorder:
    """Passes each operation to the candidate and writes the rows of the operation and the answer."""

    def __init__(self, inner: Any, system: str, broker: str, write: Callable[[dict[str, Any]], None]) -> None:
        self.inner, self.broker, self.write = inner, broker, write
        self.vocabulary = SYSTEMS[system].vocabulary
        self.seq, self.time = 0, 0
        self.sizes: dict[int, int] = {}

    def start(self, config: Any) -> None:
        self.inner.start(config)

    def stop(self) -> None:
        self.inner.stop()

    def apply(self, op: Any) -> Any:
        result = self.inner.apply(op)
        if self.vocabulary.clocked:
            self.time += self.vocabulary.clock(op)
        else:
            self.time = self.seq
        made = self.vocabulary.writes(self.inner) or []
        for event in [*self.vocabulary.events(op, result, self.sizes), *made, {"kind": END_KIND.name}]:
            self.write({"broker": self.broker, "seq": self.seq, "time": self.time, **event})
            self.seq += 1
        size = self.vocabulary.size(op)
        if size is not None:
            self.sizes[len(self.sizes) + 1] = size
        return result


def record_history(
    factory: Callable[[], Any],
    system: str,
    profile: str,
    config: Any,
    histories: Sequence[Sequence[Any]],
    out: str,
    description: str = "",
    omit: tuple[str, ...] = (),
) -> tuple[int, list[list[Any]]]:
    """Drive a fresh candidate through each sequence of operations (one broker each); write the trace.

    Returns the rows written and the operations each history applied: a history ends early when the
    candidate's recovery failed.

    ``omit``: output kinds left out, as by a recorder that cannot see them (the header says so).
    """
    record = SYSTEMS[system]
    vocabulary = record.vocabulary
    first = factory()
    unseen = () if vocabulary.writes(first) is not None else vocabulary.reported
    kinds = tuple(kind for kind in _recorded(vocabulary) if kind not in omit and kind not in unseen)
    header = SystemHeader(system, profile, config.to_dict(), kinds, description)
    writer = SystemTraceWriter(out, header)

    kept = True  # the current operation's input was written: so is its end mark

    def write(event: dict[str, Any]) -> None:
        nonlocal kept
        role = vocabulary.kinds[event["kind"]].role
        if role == INPUT:
            kept = event["kind"] in kinds
        if event["kind"] in kinds and (role != END or kept):
            writer.write(event)

    applied: list[list[Any]] = []
    for number, ops in enumerate(histories):
        recorder = Recorder(first if number == 0 else factory(), system, f"h{number}", write)
        recorder.start(config)
        applied.append([])
        try:
            for op in ops:
                applied[-1].append(op)
                if record.ends(op, recorder.apply(op)):
                    break  # as in the conformance machine (a cursor whose recovery failed is gone)
        finally:
            recorder.stop()
    writer.close()
    return len(writer.rows), applied


def _recorded(vocabulary: Any) -> tuple[str, ...]:
    """What the recorder captures: the operations and the answers (not the inside view it cannot see)."""
    return tuple(kind for kind, spec in vocabulary.kinds.items() if spec.role != "inside")


