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

import random
from collections.abc import Callable, Sequence
from typing import Any

from ledgerspec.conformance._errors import InputError
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


def walk(
    system: str, profile: str, config: Any, seed: int, count: int, capabilities: frozenset[str] | None = None
) -> list[Any]:
    """A seeded random sequence of about ``count`` operations the model accepts and the adapter claims.

    ``capabilities``: the adapter's claims (None: every capability of the system, as an in-process candidate).
    The moves are the system's (``System.walk``).
    """
    record = SYSTEMS[system]
    if record.walk is None:
        raise InputError(f"--system {system}: the system has no random walk to record; record a --case")
    claims = frozenset(record.capabilities) if capabilities is None else capabilities
    return record.walk(random.Random(seed), profile, config, count, claims)


def unclaimed(system: str, config: Any, ops: Sequence[Any], capabilities: frozenset[str]) -> str | None:
    """What of a run the adapter does not claim, by the conformance machine's rule (None: nothing).

    A case's steps or a ``--config`` may ask for what a process adapter never said it takes; it would
    refuse it mid-run, so the recorder says so first.
    """
    return SYSTEMS[system].unclaimed(config, ops, capabilities)


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


def resolve_adapter(
    system: str, name: str, *, timeout: float = 60.0, validate: bool = False
) -> tuple[str, Callable[[], Any], Any, frozenset[str]]:
    """(default profile, factory, process to close or None, capabilities) of a reference, mutant, real code, ``exec:``.

    A process claims its capabilities in its start reply; an in-process candidate takes everything.
    """
    from ledgerspec.conformance.adapters._system_process import SystemProcessFactory  # noqa: PLC0415

    record = SYSTEMS[system]
    references, real = record.references(), record.real()
    command = name[5:] if name.startswith("exec:") else None
    if name in real:
        from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES  # noqa: PLC0415 - Maven only when asked

        command = SYSTEM_HARNESSES[name][1].command()  # builds the harnesses if needed
    if command is not None and record.process is not None:
        process = SystemProcessFactory(record, command, timeout=timeout, validate=validate)
        return process.profiles[0], process, process, frozenset(process.capabilities)
    everything = frozenset(record.capabilities)
    if name in references:
        profile, factory = references[name]
        return profile, factory, None, everything
    mutants = {m.name: m for m in record.mutants()}
    mutant = mutants.get(name.removeprefix("mutant:"))
    if mutant is not None:
        return mutant.profile, mutant.adapter, None, everything
    known = ", ".join([*references, *real, *(f"mutant:{m}" for m in mutants)])
    raise InputError(
        f"--adapter {name}: {system} adapters are {known}" + (", or exec:COMMAND" if record.process else "")
    )
