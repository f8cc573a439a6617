"""``traces record --system cursor-state|txlog-writer``: drive an adapter and write its history.

The recorder wraps any candidate of the system (a reference, a mutant, an ``exec:`` process) and
writes, for each operation, the rows of the system's vocabulary (``spec/<system>/_events.py``): the
operation, then what the candidate answered, then the ``end`` mark that tells a complete operation
from one a cut trace ends inside. The operations come from a seeded random walk over the
same moves as the conformance machine (``conformance/<system>/_machine.py``), or from a case file's
steps (a counterexample ``conform`` printed), so that a trace and ``conform`` can be compared on the
same steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.cursor_state._machine import DATA_LEDGERS, FAULTS, FIRST_ENTRIES, SPAN, codecs, sendable
from ledgerspec.spec import cursor_state as cs
from ledgerspec.spec import txlog as tx
from ledgerspec.spec._history import END, END_KIND, INPUT
from ledgerspec.spec._lockstep import SYSTEMS
from ledgerspec.traces._sys_io import SystemHeader, SystemTraceWriter


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
        if isinstance(op, tx.Tick):
            self.time += op.by
        elif not self.vocabulary.clocked:
            self.time = self.seq
        made = self.vocabulary.writes(self.inner) or []
        for event in [*self.vocabulary.events(op, result, self.sizes), *made, {"kind": END_KIND.name}]:
            self.write({"broker": self.broker, "seq": self.seq, "time": self.time, **event})
            self.seq += 1
        if isinstance(op, tx.Add):
            self.sizes[len(self.sizes) + 1] = op.size
        return result


def _cursor_walk(  # noqa: C901 - one branch per move of the conformance machine
    rng: random.Random, profile: str, config: cs.CursorConfig, count: int, capabilities: frozenset[str]
) -> list[Any]:
    """Acks, persists with some completions, faults, crashes and recoveries, as the machine's rules.

    Only operations the adapter claims, by the machine's own rule (``sendable``). Its entry ids start where
    the machine's may (``FIRST_ENTRIES``, drawn first).
    """
    model = cs.init(profile, config)
    ops: list[cs.CursorOp] = []
    faults = [op for op in FAULTS if sendable(op, capabilities)]
    moves = ["ack", "ack", "mark", "persist", "persist", "confirm", *(["fault"] if faults else []), "crash"]

    def do(op: Any) -> Any:
        nonlocal model
        model, answer = cs.step(model, op)
        ops.append(op)
        return answer

    first = rng.choice(FIRST_ENTRIES)
    last = first + SPAN - 1
    while len(ops) < count:
        move = rng.choice(moves)
        if move == "ack":
            ledger, entry = rng.choice(DATA_LEDGERS), rng.randint(first, last)
            do(
                cs.AckIndex(ledger=ledger, entry=entry, index=entry % min(2, config.batch_size))
                if rng.random() < 0.3 and sendable(cs.AckIndex, capabilities)
                else cs.Ack(ledger=ledger, entry=entry)
            )
        elif move == "mark":
            do(cs.MarkDelete(ledger=rng.choice(DATA_LEDGERS), entry=rng.randint(first, last)))
        elif move == "persist":
            do(cs.Persist(value=rng.randint(0, 3)))
            for _ in range(rng.randint(0, 6)):
                do(cs.Confirm())
        elif move == "confirm":
            do(cs.Confirm())
        elif move == "fault":
            do(rng.choice(faults)())
        else:
            do(cs.Crash(keep=rng.randint(0, 3)))
            if rng.random() < 0.2 and sendable(cs.Unreadable, capabilities):
                do(cs.Unreadable())
            if do(cs.Recover()) == "failed":
                break
    return ops


def _txlog_walk(
    rng: random.Random,
    profile: str,  # noqa: ARG001 - one signature per system
    config: tx.WriterConfig,
    count: int,
    capabilities: frozenset[str],  # noqa: ARG001 - one signature per system
) -> list[Any]:
    """Adds around the size thresholds, bursts that fill a batch by count, ticks, completions, metrics, a close.

    Every adapter takes every txlog-writer operation: its capabilities change what it may leave out of
    an answer, never what it is sent (``conform_txlog``).
    """
    limit = config.max_size
    ops: list[tx.WriterOp] = []
    while len(ops) < count:
        moves = ["add", "add", "burst", "tick", "finish", "metrics"] + (["close"] if rng.random() < 0.05 else [])
        move = rng.choice(moves)
        if move == "add":
            ops.append(tx.Add(size=max(1, rng.choice([1, 3, limit // 2, limit - 1, limit, limit + 5]))))
        elif move == "burst":  # a batch's worth of records: the count fills it, and the size too if the last fills it
            last = rng.choice([1, limit - config.max_records + 1])
            ops += [tx.Add(size=1) for _ in range(config.max_records - 1)] + [tx.Add(size=max(1, last))]
        elif move == "tick":
            ops.append(tx.Tick(by=rng.choice([1, 1, 2, 3, 5, 11])))
        elif move == "finish":
            ops.append(tx.Fail() if rng.random() < 0.25 else tx.Complete())
        elif move == "metrics":
            ops.append(tx.Metrics())
        else:  # half the time with a record just added, buffered where batching is on
            ops += [tx.Add(size=1), tx.Close()] if rng.random() < 0.5 else [tx.Close()]
    return ops


"""Every capability of each system: what an in-process candidate (a reference, a mutant) takes."""

WALKS: dict[str, Callable[[random.Random, str, Any, int, frozenset[str]], list[Any]]] = {
    "cursor-state": _cursor_walk,
    "txlog-writer": _txlog_walk,
}


def walk(
    system: str, profile: str, config: Any, seed: int, count: int, capabilities: frozenset[str] | None = None
) -> list[Any]:
    """A seeded random sequence of about ``count`` operations the model accepts and the adapter claims.

    ``capabilities``: the adapter's claims (None: every capability of the system, as an in-process candidate).
    """
    claims = frozenset(SYSTEMS[system].capabilities) if capabilities is None else capabilities
    return WALKS[system](random.Random(seed), profile, config, count, claims)


def unclaimed(system: str, config: Any, ops: Sequence[Any], capabilities: frozenset[str]) -> str | None:
    """What of a run the adapter does not claim, by the conformance machine's rule (None: nothing).

    A case's steps or a ``--config`` may ask for what a process adapter never said it takes; it would
    refuse it mid-run, so the recorder says so first.
    """
    if system != "cursor-state":
        return None  # txlog-writer: every adapter takes every operation and configuration
    if config.compression not in codecs(capabilities):
        return f"compression {config.compression!r}: the adapter takes only {', '.join(codecs(capabilities))}"
    for number, op in enumerate(ops, 1):
        if not sendable(type(op), capabilities):
            return f"step {number}: {op.kind} needs capability {op.capability!r}"
    return None


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
    vocabulary = SYSTEMS[system].vocabulary
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
                if recorder.apply(op) == "failed" and isinstance(op, cs.Recover):
                    break  # the cursor is gone, as in the conformance machine
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
    from ledgerspec.conformance.cli._systems import SYSTEMS as CLI  # noqa: PLC0415 - the CLI's adapter table

    entry = CLI[system]
    command = name[5:] if name.startswith("exec:") else None
    if name in entry.real:
        from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES  # noqa: PLC0415 - Maven only when asked

        command = SYSTEM_HARNESSES[name][1].command()  # builds the harnesses if needed
    if command is not None and entry.process is not None:
        process = entry.process(command, timeout=timeout, validate=validate)
        return process.profiles[0], process, process, frozenset(process.capabilities)
    everything = frozenset(SYSTEMS[system].capabilities)
    if name in entry.adapters:
        profile, factory = entry.adapters[name]
        return profile, factory, None, everything
    mutants = {m.name: m for m in entry.mutants}
    mutant = mutants.get(name.removeprefix("mutant:"))
    if mutant is not None:
        return mutant.profile, mutant.adapter, None, everything
    known = ", ".join([*entry.adapters, *entry.real, *(f"mutant:{m}" for m in mutants)])
    raise InputError(
        f"--adapter {name}: {system} adapters are {known}" + (", or exec:COMMAND" if entry.process else "")
    )
