"""The bounded FIFO queue's specification: configuration, operations, the model and its invariants.

``offer(x)`` appends ``x`` when fewer than ``capacity`` items are held and answers whether it did;
``poll()`` removes and answers the oldest item (None when empty); ``size()`` answers how many are held
(as ``java.util.concurrent.ArrayBlockingQueue``'s ``offer``, ``poll`` and ``size``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ledgerspec.spec._errors import ConfigError
from ledgerspec.spec._records import Operation, config_from_dict, operation_from_dict

PROFILES = ("fifo",)
CAPABILITIES: tuple[str, ...] = ()
SOURCE = "java.util.concurrent.ArrayBlockingQueue (offer, poll, size), OpenJDK 17"


@dataclass(frozen=True, kw_only=True)
class QueueConfig:
    """How many items the queue holds at most."""

    capacity: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.capacity, int) or isinstance(self.capacity, bool) or self.capacity <= 0:
            raise ConfigError(f"config field 'capacity': want an integer > 0, got {self.capacity!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QueueConfig:
        return config_from_dict(cls, data)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class Offer(Operation):
    """Offer ``value``: appended if there is room; the answer says whether it was."""

    kind: ClassVar[str] = "offer"
    value: int


@dataclass(frozen=True, kw_only=True)
class Poll(Operation):
    """Take the oldest item (None when empty)."""

    kind: ClassVar[str] = "poll"


@dataclass(frozen=True, kw_only=True)
class Size(Operation):
    """How many items are held."""

    kind: ClassVar[str] = "size"


OPERATIONS: dict[str, type[Operation]] = {op.kind: op for op in (Offer, Poll, Size)}


def op_from_dict(data: dict[str, Any]) -> Operation:
    return operation_from_dict(data, OPERATIONS, "fifo-queue")


@dataclass(frozen=True)
class Model:
    """The queue's items, oldest first."""

    profile: str
    capacity: int
    items: tuple[int, ...] = ()


def init(profile: str, config: QueueConfig) -> Model:
    return Model(profile, config.capacity)


def step(model: Model, op: Operation) -> tuple[Model, Any]:
    """The model after ``op`` and its one answer."""
    if isinstance(op, Offer):
        if len(model.items) >= model.capacity:
            return model, False
        return dataclasses.replace(model, items=(*model.items, op.value)), True
    if isinstance(op, Poll):
        if not model.items:
            return model, None
        return dataclasses.replace(model, items=model.items[1:]), model.items[0]
    return model, len(model.items)


@dataclass(frozen=True)
class Step:
    """One step as a check sees it."""

    before: Model
    after: Model
    op: Operation
    result: Any
    expected: Any


@dataclass(frozen=True)
class QueueInvariant:
    """A named property, who claims it and its one check."""

    id: str
    statement: str
    citation: str
    profiles: tuple[str, ...]
    check: Callable[[Step], str | None]
    trace_events: tuple[str, ...] = ()
    judges: Callable[[Step], bool] | None = None


def _fifo(step: Step) -> str | None:
    if isinstance(step.op, Poll) and step.before.items and step.result != step.before.items[0]:
        return f"poll gave {step.result!r}; the oldest item held is {step.before.items[0]!r}"
    return None


def _bound(step: Step) -> str | None:
    full = len(step.before.items) >= step.before.capacity
    if isinstance(step.op, Offer) and full and step.result is not False:
        held, capacity = len(step.before.items), step.before.capacity
        return f"offer({step.op.value}) was accepted with {held} items held, capacity {capacity}"
    if isinstance(step.op, Size) and isinstance(step.result, int) and step.result > step.before.capacity:
        return f"size() gave {step.result}, over the capacity {step.before.capacity}"
    return None


def _model(step: Step) -> str | None:
    if step.result != step.expected:
        return f"{step.op.describe()} gave {step.result!r}; the queue gives {step.expected!r}"
    return None


INVARIANTS: tuple[QueueInvariant, ...] = (
    QueueInvariant(
        "QUEUE-FIFO",
        "a poll takes the oldest item held",
        SOURCE,
        PROFILES,
        _fifo,
        ("polled", "empty"),
        judges=lambda step: isinstance(step.op, Poll) and bool(step.before.items),
    ),
    QueueInvariant(
        "QUEUE-BOUND",
        "a full queue refuses an offer; it never holds more than its capacity",
        SOURCE,
        PROFILES,
        _bound,
        ("accepted", "refused", "counted"),
        judges=lambda step: (
            isinstance(step.op, Size) or (isinstance(step.op, Offer) and len(step.before.items) >= step.before.capacity)
        ),
    ),
    QueueInvariant(
        "QUEUE-MODEL",
        "every answer is the model's",
        SOURCE,
        PROFILES,
        _model,
        ("accepted", "refused", "polled", "empty", "counted"),
    ),
)


def claimed(profile: str) -> tuple[QueueInvariant, ...]:
    return tuple(inv for inv in INVARIANTS if profile in inv.profiles)
