"""The bounded FIFO queue's ``System`` record: the entry point ``fifo-queue`` of ``ledgerspec.systems``."""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

from ledgerspec.conformance.systems import ProcessHooks, System, lazy, load

from fifo_queue import spec
from fifo_queue.events import VOCABULARY


def walk(rng: random.Random, _profile: str, config: Any, count: int, _claims: frozenset[str]) -> list[Any]:
    """``traces record``'s random operations: offers twice as often as polls, a size read now and then."""
    moves = [lambda: spec.Offer(value=rng.randint(0, 9))] * 2 + [spec.Poll, spec.Size]
    return [rng.choice(moves)() for _ in range(max(count, config.capacity))]


def result_problem(op: Any, result: Any, _claims: frozenset[str]) -> str | None:
    """The shape of a process's answer: offer a boolean, poll an integer or null, size an integer."""
    if isinstance(op, spec.Offer):
        ok = isinstance(result, bool)
    elif isinstance(op, spec.Poll):
        ok = result is None or (isinstance(result, int) and not isinstance(result, bool))
    else:
        ok = isinstance(result, int) and not isinstance(result, bool)
    return None if ok else f"{op.kind}: a result of the wrong shape: {result!r}"


def describe(model: spec.Model, _op: Any, _result: Any) -> tuple[dict[str, str], dict[str, Any], tuple[str, ...]]:
    """A story step: the items held, oldest first, and how full the queue is."""
    items = " ".join(str(item) for item in model.items) or "empty"
    return {"items (oldest first)": items, "size": f"{len(model.items)}/{model.capacity}"}, {}, ()


@functools.cache
def system() -> System:
    """The record."""
    return System.from_spec(
        "fifo-queue",
        spec,
        config=spec.QueueConfig,
        vocabulary=VOCABULARY,
        machine=lazy("fifo_queue.machine:make_machine"),  # Hypothesis only for a search
        reference=lazy("fifo_queue.reference:QueueAdapter"),
        mutants=functools.partial(load, "fifo_queue.reference:MUTANTS"),
        process=ProcessHooks(Path(__file__).parent / "protocol", result_problem, default_profile="fifo"),
        protocol_page="tests/systems/fifo_queue/process_reference.py",
        walk=walk,
        columns=("items (oldest first)", "size"),
        describe=describe,
    )
