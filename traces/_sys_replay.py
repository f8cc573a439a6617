"""The replay of a lockstep system's history: the model steps on the inputs, the invariants judge.

One history per ``broker`` (one cursor, or one writer): the model's state is the instance's, so the
histories are independent and each is replayed alone, in row order, by either engine. Each input row
and the output rows after it make one step; the model steps on the operation, the outputs are the
candidate's result, and every invariant the profile claims, in its one home
(``spec/cursor_state/invariants.py``, ``spec/txlog/invariants.py``), judges the very ``Step`` that
conformance gives it. An invariant whose check reads an output kind the trace does not record is
not run (UNKNOWN). Order and structure problems come back as errors, not exceptions, so that the
Spark workers hand them to the driver like findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ledgerspec.spec import SpecError
from ledgerspec.spec._errors import OperationError
from ledgerspec.spec._history import INPUT, OUTPUT
from ledgerspec.traces._sys_io import SYSTEMS, LockstepSystem


@dataclass(frozen=True)
class Plan:
    """What a replay needs besides the rows: plain data, so that Spark ships it to its workers."""

    system: str
    profile: str
    config: dict[str, Any]
    recorded: tuple[str, ...]


@dataclass(frozen=True)
class SysFinding:
    """A violation (``invariant`` set) or an input error (``invariant`` None) at a row."""

    broker: str
    seq: int
    row: int
    invariant: str | None
    message: str


def decidable(system: LockstepSystem, profile: str, recorded: Iterable[str]) -> tuple[list[Any], dict[str, str]]:
    """The claimed invariants a trace recording ``recorded`` can decide, and why each other one cannot."""
    kinds = set(recorded)
    checks, unknown = [], {}
    for inv in system.claimed(profile):
        missing = [kind for kind in inv.trace_events if kind not in kinds]
        if missing:
            unknown[inv.id] = f"{inv.id}: the trace records no {', '.join(repr(k) for k in missing)} events"
        else:
            checks.append(inv)
    return checks, unknown


def replay_history(plan: Plan, rows: list[dict[str, Any]]) -> Iterator[SysFinding]:
    """Replay one broker's rows (in row order): every violation, then an input error if one stops it."""
    system = SYSTEMS[plan.system]
    vocabulary = system.vocabulary
    checks, _ = decidable(system, plan.profile, plan.recorded)
    recorded = frozenset(plan.recorded)
    model = system.init(plan.profile, system.config.from_dict(plan.config))
    steps = list(_steps(rows, vocabulary, recorded))
    previous: dict[str, Any] | None = None
    for event, outputs in steps:
        if isinstance(outputs, str):
            yield _error(event, outputs)
            return
        for current in (event, *outputs):
            problem = _order(current, previous)
            if problem:
                yield _error(current, problem)
                return
            previous = current
        try:
            op = vocabulary.operation(event)
        except OperationError as error:  # a value the operation refuses names its field
            yield _error(event, str(error))
            return
        try:
            before = model
            model, expected = system.step(before, op)
        except (SpecError, TypeError, ValueError) as error:
            yield _error(event, f"field 'kind': {event['kind']!r} is not possible here: {error}")
            return
        late = [e for e in (event, *outputs) if vocabulary.clocked and e["time"] != model.now]
        if late:
            yield _error(late[0], f"field 'time': {late[0]['time']}, but the clock events give {model.now}")
            return
        answer = vocabulary.result(event, outputs, recorded)
        facts = system.facts(before, model, op, answer, expected, **vocabulary.facts(outputs, recorded))
        for inv in checks:
            message = inv.check(facts)
            if message is not None:
                yield SysFinding(event["broker"], event["seq"], event["row"], inv.id, message)


def _steps(
    rows: list[dict[str, Any]], vocabulary: Any, recorded: frozenset[str]
) -> Iterator[tuple[dict[str, Any], Any]]:
    """(input row, its output rows) in order; an output out of place gives a message instead of its rows."""
    event: dict[str, Any] | None = None
    outputs: list[dict[str, Any]] = []
    pairs = {a: b for a, b in vocabulary.pairs.items() if a in recorded and b in recorded}
    for current in rows:
        role = vocabulary.kinds[current["kind"]].role
        problem = _pairing(outputs[-1] if outputs else None, current, pairs)
        if problem:
            yield current, problem
            return
        if role == INPUT:
            if event is not None:
                yield event, outputs
            event, outputs = current, []
        elif role == OUTPUT:
            if event is None or current["kind"] not in vocabulary.outputs_of.get(event["kind"], ()):
                after = f"after {event['kind']!r}" if event is not None else "before any operation"
                yield current, f"field 'kind': {current['kind']!r} cannot come {after}"
                return
            if vocabulary.kinds[current["kind"]].once and any(o["kind"] == current["kind"] for o in outputs):
                yield current, f"field 'kind': a second {current['kind']!r} after one {event['kind']!r}"
                return
            outputs.append(current)
    last = outputs[-1] if outputs else None
    if last is not None and last["kind"] in pairs:
        yield last, f"field 'kind': the trace ends after {last['kind']!r}, without its {pairs[last['kind']]!r}"
        return
    if event is not None:
        yield event, outputs


def _pairing(previous: dict[str, Any] | None, current: dict[str, Any], pairs: dict[str, str]) -> str | None:
    """Why ``current`` breaks a pair (a ``flush`` right before its ``entry_write``), or None."""
    kind = current["kind"]
    if previous is not None and previous["kind"] in pairs and kind != pairs[previous["kind"]]:
        return f"field 'kind': {kind!r} where the {previous['kind']!r} before it wants its {pairs[previous['kind']]!r}"
    if kind in pairs.values() and (previous is None or pairs.get(previous["kind"]) != kind):
        first = next(a for a, b in pairs.items() if b == kind)
        return f"field 'kind': {kind!r} without the {first!r} right before it"
    return None


def _order(current: dict[str, Any], previous: dict[str, Any] | None) -> str | None:
    if previous is None:
        return None
    if current["seq"] <= previous["seq"]:
        what = "repeats" if current["seq"] == previous["seq"] else "goes back from"
        return f"field 'seq': {current['seq']} {what} {previous['seq']} for broker {current['broker']!r}"
    if current["time"] < previous["time"]:
        return f"field 'time': {current['time']} goes back from {previous['time']} for broker {current['broker']!r}"
    return None


def _error(event: dict[str, Any], message: str) -> SysFinding:
    return SysFinding(event["broker"], event["seq"], event["row"], None, f"row {event['row']}: {message}")


def by_broker(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The rows of each broker, in row order."""
    brokers: dict[str, list[dict[str, Any]]] = {}
    for event in rows:
        brokers.setdefault(event["broker"], []).append(event)
    return brokers
