"""What the managed-ledger invariants share: the mode, the cursors around a step, what it removed.

The four invariants of the layer (``append_caching``, ``backlog_caching``, ``below_slowest``,
``ledger_close``) are judged on observed steps, where the cursors before a step are the ones the
operations placed (``StepView.cursors``), and, but for ``backlog_caching``, on events too: the cursor
events place the cursors, and an ``append``, a ``ledger_close`` or a cursor's departure is judged by the
event right after it (:func:`judged_by_next`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._ops import CursorAdd, CursorRead, CursorRemove, CursorSeek, LedgerClose, Op
from ledgerspec.spec.cache.invariants._declare import LEGACY, StepView

LEDGER = "managed_ledger"
"""The adapter capability of the layer's operations (conformance/cache/adapters/_api.py)."""


Position = tuple[int, int]


class _Judged(Protocol):
    profile: str

    @property
    def config(self) -> CacheConfig: ...


def legacy_mode(view: _Judged) -> bool:
    """Invalidation by the slowest cursor: the legacy profile, or ``track_reads`` off."""
    return view.profile == LEGACY or not view.config.track_reads


@dataclass(frozen=True)
class Due:
    """An event judged by the one after it, and what its judgement needs from it.

    ``seq`` and ``row`` place it wherever the trace was cut.
    """

    seq: int
    row: int
    facts: tuple[Any, ...]


def cursors_after(view: StepView) -> dict[tuple[int, str], int]:
    """The active cursors after the step's operation."""
    cursors, op = dict(view.cursors), view.op
    if isinstance(op, CursorAdd | CursorSeek):
        cursors[op.ledger, op.cursor] = op.entry
    elif isinstance(op, CursorRemove):
        cursors.pop((op.ledger, op.cursor), None)
    elif isinstance(op, CursorRead):
        cursors[op.ledger, op.cursor] = op.last + 1
    elif isinstance(op, LedgerClose):
        cursors = {key: pos for key, pos in cursors.items() if key[0] != op.ledger}
    return cursors


def slowest(cursors: dict[tuple[int, str], int], ledger: int) -> int | None:
    """The slowest active cursor's read position on the ledger, or None without one."""
    positions = [pos for (lg, _), pos in cursors.items() if lg == ledger]
    return min(positions) if positions else None


def moved(op: Op) -> bool:
    """A cursor operation of the layer (a move, a departure, a read that moves, an arrival)."""
    return isinstance(op, CursorAdd | CursorSeek | CursorRemove | CursorRead)


def invalidated(view: StepView) -> tuple[bool, int | None]:
    """Whether the step must invalidate its ledger by the slowest cursor, and below what (None: all of it).

    Legacy mode only: when the slowest read position changed (a move or a read) or a cursor left; a
    cursor arriving invalidates nothing (``ManagedLedgerImpl.activateCursor``).
    """
    op = view.op
    if not moved(op) or isinstance(op, CursorAdd) or not legacy_mode(view):
        return False, None
    ledger = op.ledger  # type: ignore[attr-defined]  # every cursor operation names its ledger
    before, after = slowest(view.cursors, ledger), slowest(cursors_after(view), ledger)
    return isinstance(op, CursorRemove) or before != after, after


def removed(view: StepView) -> list[Position]:
    """The positions cached before the step and not after it."""
    after = view.after.by_position()
    return sorted(p for p in view.before.by_position() if p not in after)


__all__ = [
    "LEDGER",
    "Due",
    "cursors_after",
    "invalidated",
    "legacy_mode",
    "moved",
    "removed",
    "slowest",
]
