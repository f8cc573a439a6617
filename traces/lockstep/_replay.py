"""The replay of a lockstep system's history: the model steps on the inputs, the invariants judge.

One history per ``broker`` (one cursor, or one writer): the model's state is the instance's, so the
histories are independent and each is replayed alone, in row order, by either engine. Each input row
and the output rows after it (up to its ``end`` mark, where the trace records them) make one step;
the model steps on the operation, the outputs are the candidate's result, and every invariant the
profile claims, in its one home (``spec/cursor_state/invariants.py``, ``spec/txlog_writer/invariants.py``),
judges the very ``Step`` that conformance gives it. An invariant whose check reads an output kind
the trace does not record is not run (UNKNOWN), nor is a last operation the trace was cut inside (no
``end``: UNKNOWN). Order and structure problems come back as errors, not exceptions, so that the
Spark workers hand them to the driver like findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ledgerspec.conformance.systems import SYSTEMS, System
from ledgerspec.spec import SpecError
from ledgerspec.spec._errors import OperationError
from ledgerspec.spec._history import END, END_KIND, INPUT, OUTPUT


@dataclass(frozen=True)
class Plan:
    """What a replay needs besides the rows: plain data, so that Spark ships it to its workers."""

    system: str
    profile: str
    config: dict[str, Any]
    recorded: tuple[str, ...]


@dataclass(frozen=True)
class SysFinding:
    """A violation (``invariant`` set), an input error (``invariant`` None), or where a history's judging stops."""

    broker: str
    seq: int
    row: int
    invariant: str | None
    message: str
    unjudged: bool = False
    """The history is not judged from this row on (a cut operation, or the rest after a violation): UNKNOWN."""


@dataclass(frozen=True)
class Cut:
    """The output rows of a history's last operation, which has no end mark: the trace was cut there."""

    outputs: list[dict[str, Any]]


def decidable(system: System, profile: str, recorded: Iterable[str]) -> tuple[list[Any], dict[str, str]]:
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
    for index, (event, outputs, end) in enumerate(steps):
        if isinstance(outputs, str):
            yield _error(event, outputs)
            return
        stepped = _advance(system, model, [event, *(outputs.outputs if isinstance(outputs, Cut) else outputs), *end])
        if isinstance(stepped, SysFinding):
            yield stepped
            return
        before, (op, model, expected) = model, stepped
        if isinstance(outputs, Cut):  # the last step, or the one before a bad row: its rows checked, not judged
            message = f"history {event['broker']!r} ends inside its {event['kind']!r} at row {event['row']} "
            message += "(no 'end' after it): the trace was cut there, and that operation is not judged"
            yield SysFinding(event["broker"], event["seq"], event["row"], None, message, unjudged=True)
            continue
        answer = vocabulary.result(event, outputs, recorded)
        facts = system.facts(before, model, op, answer, expected, **vocabulary.facts(outputs, recorded))
        broken = [(inv.id, m) for inv in checks if (m := inv.check(facts)) is not None]
        for invariant, message in broken:
            yield SysFinding(event["broker"], event["seq"], event["row"], invariant, message)
        if broken:
            yield from _rest_unjudged(event, steps[index + 1 :])
            return


def _rest_unjudged(event: dict[str, Any], rest: list[Any]) -> Iterator[SysFinding]:
    """After a step broke an invariant the model's state is not the candidate's: the later steps are not judged.

    Judged against the model, they would show violations of the divergence, not of the candidate (a
    callback "completed twice" that the candidate gave once); conformance stops at its first failing step
    too. A bad row among them is still bad input.
    """
    if not rest:
        return
    first = rest[0][0]
    problems = [_error(e, outputs) for e, outputs, _ in rest if isinstance(outputs, str)]
    yield from problems[:1]
    message = f"history {event['broker']!r} is not judged after row {event['row']}, whose operation broke an "
    message += "invariant: the model's state is no longer the candidate's there"
    yield SysFinding(first["broker"], first["seq"], first["row"], None, message, unjudged=True)


def _advance(system: System, model: Any, step_rows: list[dict[str, Any]]) -> tuple[Any, Any, Any] | SysFinding:
    """(the operation, the model after it, what the model answers), or the input error that stops the replay."""
    vocabulary, event = system.vocabulary, step_rows[0]
    try:
        op = vocabulary.operation(event)
    except OperationError as error:  # a value the operation refuses names its field
        return _error(event, str(error))
    try:
        after, expected = system.step(model, op)
    except (SpecError, TypeError, ValueError) as error:
        return _error(event, f"field 'kind': {event['kind']!r} is not possible here: {error}")
    late = [e for e in step_rows if vocabulary.clocked and e["time"] != after.now]
    if late:
        return _error(late[0], f"field 'time': {late[0]['time']}, but the clock events give {after.now}")
    return op, after, expected


def _steps(
    rows: list[dict[str, Any]], vocabulary: Any, recorded: frozenset[str]
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]] | str | Cut, list[dict[str, Any]]]]:
    """(input row, its output rows, its end mark row if any) in order; a row out of place gives a message.

    With ``end`` recorded, each operation closes with its end mark: one missing before the next
    operation is a message; the last operation without it was cut (:class:`Cut`: not judged). Before
    a message, the operation still open comes as a :class:`Cut`, so that a problem in its own rows (the
    model refusing it, its time) is reported first: the first input error is the smallest row.
    """
    event: dict[str, Any] | None = None
    outputs: list[dict[str, Any]] = []
    end: list[dict[str, Any]] = []
    ends = END_KIND.name in recorded
    pairs = {a: b for a, b in vocabulary.pairs.items() if a in recorded and b in recorded}
    previous: dict[str, Any] | None = None
    for current in rows:
        role = vocabulary.kinds[current["kind"]].role
        problem = _order(current, previous) or _pairing(outputs[-1] if outputs else None, current, pairs)
        problem = problem or _placement(event, outputs, bool(end), current, vocabulary, ends)
        if problem:
            if event is not None:
                yield event, Cut(outputs), end
            yield current, problem, []
            return
        previous = current
        if role == INPUT:
            if event is not None:
                yield event, outputs, end
            event, outputs, end = current, [], []
        elif role == OUTPUT:
            outputs.append(current)
        elif role == END:
            end = [current]
    if event is not None:
        yield from _last_step(event, outputs, end, ends, pairs)


def _last_step(
    event: dict[str, Any], outputs: list[dict[str, Any]], end: list[dict[str, Any]], ends: bool, pairs: dict[str, str]
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]] | str | Cut, list[dict[str, Any]]]]:
    """The history's last operation: whole, cut (no end mark), or ending in half a pair (bad input)."""
    last = outputs[-1] if outputs else None
    if ends and not end:
        yield event, Cut(outputs), end
    elif last is not None and last["kind"] in pairs:
        yield event, Cut(outputs), end
        yield last, f"field 'kind': the trace ends after {last['kind']!r}, without its {pairs[last['kind']]!r}", []
    else:
        yield event, outputs, end


def _placement(  # noqa: PLR0911 - one return per rule
    event: dict[str, Any] | None,
    outputs: list[dict[str, Any]],
    ended: bool,
    current: dict[str, Any],
    vocabulary: Any,
    ends: bool,
) -> str | None:
    """Why ``current`` cannot come after ``event``, its ``outputs`` and (``ended``) its end mark, or None.

    ``ends``: the trace records end marks, so an operation needs its own before the next one starts.
    """
    kind, role = current["kind"], vocabulary.kinds[current["kind"]].role
    if role == INPUT:
        if ends and event is not None and not ended:
            return (
                f"field 'kind': {kind!r} starts an operation; the {event['kind']!r} at row {event['row']} has no 'end'"
            )
        return None
    if event is None:
        return f"field 'kind': {kind!r} cannot come before any operation"
    if ended:
        what = "a second 'end' for" if role == END else f"{kind!r} after the 'end' of"
        return f"field 'kind': {what} the {event['kind']!r} at row {event['row']}"
    if role == END:
        return None
    if kind not in vocabulary.outputs_of.get(event["kind"], ()):
        return f"field 'kind': {kind!r} cannot come after {event['kind']!r}"
    if vocabulary.kinds[kind].once and any(o["kind"] == kind for o in outputs):
        return f"field 'kind': a second {kind!r} after one {event['kind']!r}"
    return None


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
