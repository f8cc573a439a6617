"""CACHE-CURSOR-COUNT: cursors at or before = active cursors of the ledger at a position <= its own."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import ALL_PROFILES, CURSORS, MASTER, PIP430, Invariant

COUNTING = (PIP430, MASTER)
"""The profiles whose cursors count expected reads: there the count depends on ``track_reads``."""


class CursorCount(Check):
    """A cursor's count is the number of its ledger's active cursors at or before it, itself included.

    0 if it is not active; in pip430 and pulsar-master with expected-read-count tracking off, 0
    (``isCacheReadEntry()`` is false).
    """

    kinds = frozenset({"cursor_count"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one ``cursor_count`` answer against the cursors the events placed."""
        event = at.event
        expected = at.cursor_count
        if judge.profile in COUNTING and not judge.config.track_reads:
            expected = 0
        if event.result != expected:
            judge.report(
                f"count of cursors at or before {event.cursor!r} on ledger {event.ledger} is "
                f"{expected}, got {event.result!r}"
            )


INVARIANT = Invariant(
    order=10,
    id="CACHE-CURSOR-COUNT",
    statement=(
        "getNumberOfCursorsAtSamePositionOrBefore(cursor) is the number of active cursors of the same "
        "managed ledger whose read position is <= the cursor's, counting itself; 0 if it is not active. "
        "In pip430 and pulsar-master with expected-read-count tracking off it is the cursor's "
        "isCacheReadEntry() ? 1 : 0, and that flag is off: 0."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) ActiveManagedCursorContainerImpl"
        ".getNumberOfCursorsAtSamePositionOrBefore; "
        "ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore (managed-ledger 4.2.4, lines 4233-4240)"
    ),
    profiles=ALL_PROFILES,
    check=CursorCount(),
    needs={"*": frozenset({CURSORS})},
    events={"*": frozenset({"cursor_add", "cursor_seek", "cursor_remove", "cursor_count"})},
    partition="ledger",
    soundness="cursors of one managed ledger only count each other; checked within the broker's replay",
)
