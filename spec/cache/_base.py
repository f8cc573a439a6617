"""What every profile's state has in common, and the step driver.

A profile's state is a frozen, hashable value. Inside one step it is thawed into a mutable
:class:`Work`, the operation is applied by plain imperative code that reads like the Java it cites,
and the result is frozen again: ``step`` stays pure, the rules stay readable.

A failed :func:`require` means the step is not allowed: ``step`` returns the empty set.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ledgerspec.spec.cache._config import CacheConfig, config_problems
from ledgerspec.spec.cache._observation import Counters
from ledgerspec.spec.cache._ops import (
    Configure,
    CursorAdd,
    CursorCount,
    CursorRemove,
    CursorSeek,
    Op,
)

Result = Any
"""The value an operation returns (None, a bool, an int, a copy id or a tuple of them)."""


class NotAllowed(Exception):  # noqa: N818 - a signal inside the model, not an error
    """Raised by :func:`require` inside a step; ``step`` turns it into the empty set of outcomes."""


def require(condition: bool) -> None:
    """Precondition of an operation: when false, the step is not allowed."""
    if not condition:
        raise NotAllowed


@dataclass(frozen=True, kw_only=True)
class Base:
    """State shared by all profiles: clock, config, counters, handlers, copies and cursors."""

    config: CacheConfig
    now: int = 0
    disabled: bool = False
    counters: Counters = dataclasses.field(default_factory=Counters)
    handlers: tuple[int, ...] = ()
    """Read-count handlers by id: the count each one holds. Ids are never reused."""
    copies: tuple[tuple[int, int | None], ...] = ()
    """Open dispatched copies: (copy id, handler id or None), by copy id."""
    next_copy: int = 0
    cursors: tuple[tuple[int, str, int], ...] = ()
    """Active cursors: (ledger, name, read position), sorted."""
    stored: tuple[tuple[int, int, int], ...] = ()
    """Entries appended to the managed ledgers (their storage): (ledger, entry, size), sorted."""
    reopens: tuple[tuple[int, int], ...] = ()
    """(ledger, entry): the first entry of each BookKeeper ledger a reopen started (after a close), sorted."""


S = TypeVar("S")


@dataclass(frozen=True)
class Outcome(Generic[S]):
    """One allowed outcome of a step: what the operation returns and the state after it."""

    result: Result
    state: S


class Work:
    """Mutable form of :class:`Base` used during one step."""

    def __init__(self, base: Base) -> None:
        self.config = base.config
        self.now = base.now
        self.disabled = base.disabled
        self.counters = dataclasses.asdict(base.counters)
        self.handlers = list(base.handlers)
        self.copies: dict[int, int | None] = dict(base.copies)
        self.next_copy = base.next_copy
        self.cursors: dict[tuple[int, str], int] = {(ledger, name): pos for ledger, name, pos in base.cursors}
        self.stored: dict[tuple[int, int], int] = {(ledger, entry): size for ledger, entry, size in base.stored}
        self.reopens: set[tuple[int, int]] = set(base.reopens)

    def base(self) -> Base:
        """Freeze the shared part again."""
        return Base(
            config=self.config,
            now=self.now,
            disabled=self.disabled,
            counters=Counters(**self.counters),
            handlers=tuple(self.handlers),
            copies=tuple(sorted(self.copies.items())),
            next_copy=self.next_copy,
            cursors=tuple(sorted((ledger, name, pos) for (ledger, name), pos in self.cursors.items())),
            stored=tuple(sorted((ledger, entry, size) for (ledger, entry), size in self.stored.items())),
            reopens=tuple(sorted(self.reopens)),
        )

    def count(self, counter: str, n: int = 1) -> None:
        """Add to a counter."""
        self.counters[counter] += n

    def new_handler(self, count: int) -> int:
        """Create a read-count handler holding ``count``; returns its id."""
        self.handlers.append(count)
        return len(self.handlers) - 1

    def make_copy(self, handler: int | None) -> int:
        """Dispatch a copy sharing ``handler``; returns the copy id (ids count up from 0)."""
        copy = self.next_copy
        self.next_copy += 1
        self.copies[copy] = handler
        return copy

    def copy_handler(self, copy: int) -> int | None:
        """The handler of an open copy; not allowed if the copy is not open."""
        require(copy in self.copies)
        return self.copies[copy]

    def handler_count(self, handler: int | None) -> int | None:
        """The count of a handler, or None for no handler."""
        return None if handler is None else self.handlers[handler]


Handler = Callable[[Any, Any], Iterable[tuple[Result, Any]]]


def deterministic(apply: Callable[[Any, Any], Result]) -> Handler:
    """Wrap a rule with exactly one outcome as a rule returning the list of outcomes."""

    def rule(work: Any, op: Any) -> list[tuple[Result, Any]]:
        return [(apply(work, op), work)]

    rule.__doc__ = apply.__doc__
    rule.__name__ = apply.__name__
    return rule


def run_step(
    state: Any,
    op: Op,
    rules: dict[type[Op], Handler],
    thaw: Callable[[Any], Any],
    freeze: Callable[[Any], Any],
) -> frozenset[Outcome[Any]]:
    """Apply ``op`` to ``state`` with the profile's rules; the set of allowed outcomes.

    Common preconditions: the clock never goes back and the operation is one the profile knows.
    """
    rule = rules.get(type(op))
    if rule is None or op.now < state.base.now:
        return frozenset()
    work = thaw(state)
    work.now = op.now
    try:
        outcomes = list(rule(work, op))
    except NotAllowed:
        return frozenset()
    return frozenset(Outcome(result, freeze(w)) for result, w in outcomes)


# --- rules shared by every profile -------------------------------------------------------------


def apply_configure(work: Work, op: Configure) -> None:
    """Run-time configuration change (``updateCacheSizeAndThreshold``, watermark, TTLs, requeue)."""
    changes = op.changes()
    require(not config_problems(changes))
    work.config = work.config.replace(**changes)


def apply_cursor_add(work: Work, op: CursorAdd) -> None:
    """A cursor becomes active: it must not be active already and its position must be >= 0."""
    require((op.ledger, op.cursor) not in work.cursors and op.entry >= 0)
    work.cursors[op.ledger, op.cursor] = op.entry


def apply_cursor_remove(work: Work, op: CursorRemove) -> None:
    """An active cursor goes away."""
    require((op.ledger, op.cursor) in work.cursors)
    del work.cursors[op.ledger, op.cursor]


def apply_cursor_seek(work: Work, op: CursorSeek) -> None:
    """An active cursor moves to a new read position."""
    require((op.ledger, op.cursor) in work.cursors and op.entry >= 0)
    work.cursors[op.ledger, op.cursor] = op.entry


def apply_cursor_count(work: Work, op: CursorCount) -> int:
    """``getNumberOfCursorsAtSamePositionOrBefore``: cursors of the ledger at or before this one.

    Counts the cursor itself and every cursor at the same position; 0 when the cursor is not active
    (pip-430.md at cf3d7d17d9; apache/pulsar#24623).
    """
    return cursors_at_or_before(work.cursors, op.ledger, op.cursor)


def cursors_at_or_before(cursors: dict[tuple[int, str], int], ledger: int, cursor: str) -> int:
    """Pure form of :func:`apply_cursor_count`, also used to derive expected read counts."""
    position = cursors.get((ledger, cursor))
    if position is None:
        return 0
    return sum(1 for (lg, _), pos in cursors.items() if lg == ledger and pos <= position)


def active_cursors(cursors: dict[tuple[int, str], int], ledger: int) -> int:
    """Number of active cursors on a ledger: the expected read count of a tailing write."""
    return sum(1 for (lg, _) in cursors if lg == ledger)


COMMON_RULES: dict[type[Op], Handler] = {
    Configure: deterministic(apply_configure),
    CursorAdd: deterministic(apply_cursor_add),
    CursorRemove: deterministic(apply_cursor_remove),
    CursorSeek: deterministic(apply_cursor_seek),
    CursorCount: deterministic(apply_cursor_count),
}
