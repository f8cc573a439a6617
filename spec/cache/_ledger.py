"""The managed-ledger layer: what the cache is told by the ledgers and cursors in front of it (SPEC.md §3.2).

Pulsar's cache is driven by its managed ledgers: ``OpAddEntry`` inserts an added entry only while the
ledger has active cursors, ``RangeEntryCacheImpl.readFromStorage`` inserts what a cursor reads from
storage only if the cursor's count is positive, and with ``cacheEvictionByExpectedReadCount`` off the
ledger invalidates its cache below the slowest active cursor, clearing it when the last one leaves.
The layer is the same for every profile that has a managed ledger (pip430, pulsar-master, legacy):
it is written once here over the profile's own rules for ``Insert``, ``GetRange``,
``InvalidateBefore`` and ``InvalidateLedger``. Sources (apache/pulsar PR #24623 at 490ba0cca1, under
``managed-ledger/src/main/java/org/apache/bookkeeper/mledger/``): ``impl/ManagedLedgerImpl.java``
(``shouldCacheAddedEntry``, ``invalidateEntriesUpToSlowestReaderPosition``, ``deactivateCursor``),
``impl/OpAddEntry.java``, ``impl/cache/RangeEntryCacheImpl.java`` (``readFromStorage``),
``impl/ManagedCursorImpl.java`` (``getNumberOfCursorsAtSamePositionOrBefore``, ``isCacheReadEntry``)
and ``impl/ActiveManagedCursorContainerImpl.java``; before PIP-430, the same classes at 8ce67b97b3^.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ledgerspec.spec.cache._base import (
    Handler,
    Work,
    active_cursors,
    apply_cursor_remove,
    apply_cursor_seek,
    cursors_at_or_before,
    deterministic,
    require,
)
from ledgerspec.spec.cache._ops import (
    Append,
    CursorCount,
    CursorRead,
    CursorRemove,
    CursorSeek,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    LedgerClose,
    Op,
)

SharedBy = Callable[[Any, int, int], int | None]
"""The handler a copy of the entry cached at (ledger, entry) shares (None: no handler)."""


def slowest(cursors: dict[tuple[int, str], int], ledger: int) -> int | None:
    """The read position of the slowest active cursor of the ledger, or None when it has none."""
    positions = [pos for (lg, _), pos in cursors.items() if lg == ledger]
    return min(positions) if positions else None


def bookkeeper_reads(reopens: Iterable[tuple[int, int]], ledger: int, first: int, last: int) -> list[tuple[int, int]]:
    """``[first, last]`` cut where a reopen started a BookKeeper ledger: the reads Pulsar makes of it.

    ``ManagedLedgerImpl.internalReadFromLedger`` reads to the end of one BookKeeper ledger; then
    ``OpReadEntry.internalReadEntriesComplete`` moves the cursor (``updateReadPosition``) and
    ``checkReadCompletion`` reads on from the next one (managed-ledger 4.2.4).
    Micro-scenario: ledger 3 reopened at entry 2 -> ``[0, 4]`` is read as ``[0, 1]`` then ``[2, 4]``.
    """
    cuts = sorted(entry for lg, entry in reopens if lg == ledger and first < entry <= last)
    return list(zip([first, *cuts], [cut - 1 for cut in cuts] + [last], strict=True))


def ledger_rules(  # noqa: C901, PLR0915 - one closure per rule, over the profile's rules
    rules: dict[type[Op], Handler], shared_by: SharedBy, *, always_legacy: bool
) -> dict[type[Op], Handler]:
    """The layer's rules over a profile's ``rules``: appends, cursor reads, closes, cursor moves and counts.

    ``always_legacy``: the profile has no read counts (legacy), so invalidation is always by the
    slowest cursor; otherwise it is so only when ``track_reads`` is off.
    """

    def call(work: Work, op: Op) -> Any:
        ((result, _),) = rules[type(op)](work, op)  # the rules composed here are deterministic
        return result

    def legacy_mode(work: Work) -> bool:
        return always_legacy or not work.config.track_reads

    def invalidate(work: Work, ledger: int, before: int | None, *, left: bool = False) -> None:
        """``invalidateEntriesUpToSlowestReaderPosition`` in legacy mode, when the slowest cursor changed.

        Tracking mode returns at once. With no active cursor left the target is LATEST: ``clear()``
        of the ledger's cache; otherwise ``invalidateEntries(slowest)``, strictly before it. A cursor
        leaving (``left``) always runs it (``deactivateCursor``); a move only if the slowest moved.
        """
        if not legacy_mode(work):
            return
        after = slowest(work.cursors, ledger)
        if after is None:
            call(work, InvalidateLedger(now=work.now, ledger=ledger))
        elif left or after != before:
            call(work, InvalidateBefore(now=work.now, ledger=ledger, entry=after))

    def append(work: Work, op: Append) -> bool:
        """``OpAddEntry``: store the ledger's next entry; cache it iff the ledger has an active cursor.

        Expected reads: the number of active cursors with tracking on; none (no handler) with it off.
        Micro-scenario: cursors c1 at 0 and c2 at 3 on ledger 1; append (1,5) -> cached with count 2.
        """
        stored = [entry for (ledger, entry) in work.stored if ledger == op.ledger]
        require(op.size > 0 and op.entry >= 0 and (not stored or op.entry == max(stored) + 1))
        work.stored[op.ledger, op.entry] = op.size
        readers = active_cursors(work.cursors, op.ledger)
        if readers == 0:
            return False
        count = None if legacy_mode(work) else readers
        return bool(
            call(work, Insert(now=op.now, ledger=op.ledger, entry=op.entry, size=op.size, expected_reads=count))
        )

    def cursor_read(work: Work, op: CursorRead) -> tuple[int | None, ...]:
        """A cursor reads ``[position, last]``, one BookKeeper ledger at a time; then it is at ``last + 1``.

        Each part (:func:`bookkeeper_reads`) takes its hits from the cache and the rest from storage.
        What storage returns is cached iff the cursor's count is > 0, evaluated once for the part
        before the cursor moves past it (``getNumberOfCursorsAtSamePositionOrBefore``; legacy mode:
        ``isCacheReadEntry()``, false by default, so 0). A cached one is handed to the reader as a
        copy sharing its handler (the reader's release is one read); an uncached one is None.
        Micro-scenario: c1 at 2, c2 at 4 on ledger 1, (1,2) cached; c1 reads to 3 -> (copy, copy):
        a hit on (1,2), (1,3) read from storage and cached with count 1; c1 moves to 4.
        """
        key = (op.ledger, op.cursor)
        position = work.cursors.get(key)
        require(position is not None and position <= op.last)
        assert position is not None  # for the type checker: required just above
        require(all((op.ledger, entry) in work.stored for entry in range(position, op.last + 1)))
        copies: list[int | None] = []
        for first, last in bookkeeper_reads(work.reopens, op.ledger, position, op.last):
            part = list(call(work, GetRange(now=op.now, ledger=op.ledger, first=first, last=last)))
            count = 0 if always_legacy else cursor_answer(work, op.ledger, op.cursor)
            for index, entry in enumerate(range(first, last + 1)):
                if part[index] is None and count > 0:
                    size = work.stored[op.ledger, entry]
                    insert = Insert(now=op.now, ledger=op.ledger, entry=entry, size=size, expected_reads=count)
                    if call(work, insert):
                        part[index] = work.make_copy(shared_by(work, op.ledger, entry))
            copies.extend(part)
            before = slowest(work.cursors, op.ledger)
            work.cursors[key] = last + 1
            invalidate(work, op.ledger, before)
        return tuple(copies)

    def cursor_seek(work: Work, op: CursorSeek) -> None:
        """A cursor moves; in legacy mode the cache is invalidated below the slowest if that moved."""
        before = slowest(work.cursors, op.ledger)
        apply_cursor_seek(work, op)
        invalidate(work, op.ledger, before)

    def cursor_remove(work: Work, op: CursorRemove) -> None:
        """A cursor is deactivated; in legacy mode: invalidate below the slowest, or clear if none is left."""
        apply_cursor_remove(work, op)
        invalidate(work, op.ledger, None, left=True)

    def cursor_answer(work: Work, ledger: int, cursor: str) -> int:
        """``ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore()``: the count the cursor's reads use.

        Tracking mode: the container's count. With tracking off: ``isCacheReadEntry() ? 1 : 0``, and
        the flag is off by default, so 0 (managed-ledger 4.2.4, ``ManagedCursorImpl.java`` 4233-4240).
        The legacy profile, which has no read counts (its reads cache nothing), keeps the container's count.
        """
        if not always_legacy and not work.config.track_reads:
            return 0
        return cursors_at_or_before(work.cursors, ledger, cursor)

    def cursor_count(work: Work, op: CursorCount) -> int:
        """What the cursor answers (``cursor_answer``)."""
        return cursor_answer(work, op.ledger, op.cursor)

    def ledger_close(work: Work, op: LedgerClose) -> None:
        """The ledger closes: the manager removes its cache (``clear()``, forced) and its cursors go; storage stays.

        Its next append reopens it on a new BookKeeper ledger, which a cursor read does not cross.
        """
        stored = [entry for (ledger, entry) in work.stored if ledger == op.ledger]
        if stored:
            work.reopens.add((op.ledger, max(stored) + 1))
        call(work, InvalidateLedger(now=op.now, ledger=op.ledger))
        work.cursors = {key: pos for key, pos in work.cursors.items() if key[0] != op.ledger}

    return {
        Append: deterministic(append),
        CursorRead: deterministic(cursor_read),
        LedgerClose: deterministic(ledger_close),
        CursorCount: deterministic(cursor_count),
        CursorSeek: deterministic(cursor_seek),
        CursorRemove: deterministic(cursor_remove),
    }


__all__ = ["bookkeeper_reads", "ledger_rules", "slowest"]
