"""What the normative rules of counts, reads and the managed ledger share, in plain Python."""

from __future__ import annotations

from ledgerspec.spec.cache._events import KINDS
from ledgerspec.spec.cache._normative import Judge, pass_op
from ledgerspec.spec.cache._shadow import Pass, Position

EVERY_KIND = frozenset(KINDS)
"""The kinds of a rule that judges an event by the one right after it, whatever that is."""


def tracking(judge: Judge) -> bool:
    """Expected-read-count tracking is on: not legacy, and ``track_reads`` (else cursors invalidate)."""
    return judge.profile != "legacy" and judge.config.track_reads


def show_count(value: int | None) -> str:
    """A count as the messages print it (``None`` when there is none)."""
    return "None" if value is None else str(value)


def holds(judge: Judge, handler: int) -> bool:
    """Whether the entry a handler was made for is cached with it now."""
    position = judge.shadow.made_for.get(handler)
    cached = None if position is None else judge.shadow.entries.get(position)
    return cached is not None and cached.handler == handler


def first_open_copy(judge: Judge, handler: int, but: int | None = None) -> str:
    """Who else shows a handler's count: its first open copy (not ``but``), else the handler itself."""
    copies = [copy for copy in judge.shadow.open_copies(handler) if copy != but]
    return f"copy {copies[0]}" if copies else "its handler"


def where(judge: Judge, handler: int) -> Position:
    """The position a handler was made for."""
    return judge.shadow.handler_position(handler)


def pass_label(done: Pass, judge: Judge) -> str:
    """The operation a pass came from, as the messages name it (the monitor knows it exactly)."""
    return judge.label if judge.label is not None else pass_op(done)


def covers(done: Pass, position: Position) -> bool:
    """Whether a forced pass removes ``position``.

    A clear covers every position; an invalidation its ledger below its bound (none: all of it); a range
    removal its ledger from its first entry (its target) below its end.
    """
    if done.kind == "clear":
        return True
    ledger, entry = position
    covered = ledger == done.ledger and (done.entry is None or entry < done.entry)
    if done.kind == "range" and done.value is not None:
        covered = covered and entry >= done.value
    return covered


__all__ = ["EVERY_KIND", "covers", "first_open_copy", "holds", "pass_label", "show_count", "tracking", "where"]
