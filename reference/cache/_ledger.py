"""The managed-ledger layer over a reference cache: appends, cursor reads, ledger close, invalidation by cursors.

Pulsar's cache is told what to hold by its managed ledgers (apache/pulsar PR #24623 at 490ba0cca1,
``impl/ManagedLedgerImpl.java``, ``impl/OpAddEntry.java``, ``impl/cache/RangeEntryCacheImpl.java``
``readFromStorage``, ``impl/ManagedCursorImpl.java``; before PIP-430 the same classes at 8ce67b97b3^):
an added entry is cached only while the ledger has an active cursor, a read from storage only when
the reading cursor's count is positive, and with ``cacheEvictionByExpectedReadCount`` off (always, in
the legacy profile) the ledger invalidates below its slowest active cursor and clears its cache when
the last one leaves. A mixin for the caches of the profiles that have a managed ledger.

Storage: per ledger, the first entry appended and the sizes since (entries are appended in order), and
the entries where a reopen started a BookKeeper ledger (a cursor read is one read per BookKeeper ledger).
Complexity: append O(1) plus the insert; cursor_read O(k + r) lookups and inserts for k positions and
r reopens of the ledger; a cursor move O(log n) plus the invalidation; ledger_close O(c log c) for c
cursors plus the clear.
"""

from __future__ import annotations

from typing import Any

from ledgerspec.reference.cache._base import ReferenceCache, require


class ManagedLedgerLayer(ReferenceCache[Any]):
    """Appends, cursor reads and ledger close; cursor moves invalidate in legacy mode."""

    ALWAYS_LEGACY = False
    """True where the profile has no read counts (legacy): invalidation is always by the slowest cursor."""
    _stored: dict[int, tuple[int, list[int]]]
    _reopens: dict[int, list[int]]

    def _shared_of(self, ledger: int, entry: int) -> Any:
        """What a copy of the entry cached at the position shares (its wrapper or handler)."""
        raise NotImplementedError

    def _legacy_mode(self) -> bool:
        return self.ALWAYS_LEGACY or not self._config.track_reads

    def _append_reads(self, readers: int) -> int | None:
        """An added entry's expected reads: one per active cursor with tracking on, else no handler (``OpAddEntry``)."""
        return None if self._legacy_mode() else readers

    def _read_reads(self, ledger: int, cursor: str) -> int:
        """The count a batch read from storage is cached with: the cursor's count with tracking on, else 0."""
        return 0 if self._legacy_mode() else self._cursors.count_at_or_before(ledger, cursor)

    def _cursor_count(self, ledger: int, cursor: str) -> int:
        """``ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore()``: with tracking off, 0.

        With the flag off it answers ``isCacheReadEntry() ? 1 : 0`` (managed-ledger 4.2.4), and that is
        false by default; the legacy profile, with no read counts at all, keeps the container's count.
        """
        if not self.ALWAYS_LEGACY and not self._config.track_reads:
            return 0
        return super()._cursor_count(ledger, cursor)

    def _storage(self) -> dict[int, tuple[int, list[int]]]:
        """Per ledger, its first appended entry and the sizes appended since (made on first use)."""
        stored: dict[int, tuple[int, list[int]]] | None = getattr(self, "_stored", None)
        if stored is None:
            stored = {}
            self._stored = stored
        return stored

    def _reopened(self) -> dict[int, list[int]]:
        """Per ledger, the first entry of each BookKeeper ledger a reopen started, in order (made on first use)."""
        reopened: dict[int, list[int]] | None = getattr(self, "_reopens", None)
        if reopened is None:
            reopened = {}
            self._reopens = reopened
        return reopened

    def _invalidated_by(self, cursor: str, ledger: int, before: int | None, *, left: bool = False) -> None:
        """What ``cursor``'s move, read or departure invalidates (:meth:`_invalidate_by_cursors`); the pass names it."""
        self._invalidator = cursor
        try:
            self._invalidate_by_cursors(ledger, before, left=left)
        finally:
            self._invalidator = None

    def _invalidate_by_cursors(self, ledger: int, before: int | None, *, left: bool = False) -> None:
        """``invalidateEntriesUpToSlowestReaderPosition`` (legacy mode only): clear if no cursor is left."""
        if not self._legacy_mode():
            return
        after = self._cursors.slowest(ledger)
        if after is None:
            self.invalidate_ledger(now=self._now, ledger=ledger)
        elif left or after != before:
            self.invalidate_before(now=self._now, ledger=ledger, entry=after)

    def append(self, *, now: int, ledger: int, entry: int, size: int) -> bool:
        """``OpAddEntry``: store the next entry; cache it iff the ledger has an active cursor."""
        self._check_clock(now)
        require(size > 0, f"append: size must be > 0, got {size!r}")
        first, sizes = self._storage().get(ledger, (entry, []))
        require(entry >= 0, f"append: entry must be >= 0, got {entry!r}")
        require(entry == first + len(sizes), f"append: the next entry of ledger {ledger} is {first + len(sizes)}")
        sizes.append(size)
        self._storage()[ledger] = (first, sizes)
        self._now = now
        self._emit("append", ledger=ledger, entry=entry, size=size)
        readers = self._cursors.active(ledger)
        if readers == 0:
            return False
        return self.insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=self._append_reads(readers))

    def cursor_read(self, *, now: int, ledger: int, cursor: str, last: int) -> tuple[int | None, ...]:
        """The cursor reads ``[position, last]``, a BookKeeper ledger at a time; then it is at ``last + 1``.

        A reopen (the first append after a close) starts a BookKeeper ledger, and Pulsar's read stops
        at the end of one (``internalReadFromLedger``), moves the cursor and reads on from the next
        (``OpReadEntry.checkReadCompletion``): each part's storage reads are cached iff the cursor's
        count, taken at the part's start, is > 0.
        """
        self._check_clock(now)
        position = self._cursors.position(ledger, cursor)
        require(position is not None, f"cursor_read: cursor {cursor!r} of ledger {ledger} is not active")
        assert position is not None  # for the type checker: required just above
        require(position <= last, f"cursor_read: last {last!r} is before the cursor's position {position}")
        first, sizes = self._storage().get(ledger, (0, []))
        stored = first <= position and last < first + len(sizes)
        require(stored, f"cursor_read: ledger {ledger} has no entries {position}..{last} stored")
        copies: list[int | None] = []
        starts = [start for start in self._reopened().get(ledger, []) if position < start <= last]
        for start, end in zip([position, *starts], [start - 1 for start in starts] + [last], strict=True):
            copies.extend(self._read_part(now, ledger, cursor, start, end, sizes[start - first : end - first + 1]))
        return tuple(copies)

    def _read_part(
        self, now: int, ledger: int, cursor: str, start: int, end: int, sizes: list[int]
    ) -> list[int | None]:
        """One BookKeeper ledger's part of a cursor read: hits, storage reads cached with the count, the move."""
        self._now = now
        self._emit("cursor_read", ledger=ledger, cursor=cursor, entry=start)
        copies = list(self.get_range(now=now, ledger=ledger, first=start, last=end))
        count = self._read_reads(ledger, cursor)
        for index, entry in enumerate(range(start, end + 1)):
            cached = copies[index] is None and count > 0
            if cached and self.insert(now=now, ledger=ledger, entry=entry, size=sizes[index], expected_reads=count):
                shared = self._shared_of(ledger, entry)
                copies[index] = copy = self._make_copy(shared)
                if self._listener is not None:  # the reader's copy: a hit on the entry just cached (FORMAT.md)
                    self._emit("hit", ledger=ledger, entry=entry, copy=copy, count=self._copy_count(shared))
        before = self._cursors.slowest(ledger)
        self._cursors.seek(ledger, cursor, end + 1)
        self._emit("cursor_seek", ledger=ledger, cursor=cursor, entry=end + 1)
        self._invalidated_by(cursor, ledger, before)
        return copies

    def cursor_seek(self, *, now: int, ledger: int, cursor: str, entry: int) -> None:
        """Move a cursor; in legacy mode invalidate below the slowest if it moved."""
        before = self._cursors.slowest(ledger)
        super().cursor_seek(now=now, ledger=ledger, cursor=cursor, entry=entry)
        self._invalidated_by(cursor, ledger, before)

    def cursor_remove(self, *, now: int, ledger: int, cursor: str) -> None:
        """Deactivate a cursor; in legacy mode invalidate below the slowest, or clear when none is left."""
        super().cursor_remove(now=now, ledger=ledger, cursor=cursor)
        self._invalidated_by(cursor, ledger, None, left=True)

    def ledger_close(self, *, now: int, ledger: int) -> None:
        """The manager removes the ledger's cache (a forced clear of it); its cursors go, its storage stays.

        The next append reopens the ledger on a new BookKeeper ledger: a cursor read stops at its start.
        """
        self._check_clock(now)
        first, sizes = self._storage().get(ledger, (0, []))
        starts = self._reopened().setdefault(ledger, [])
        if sizes and first + len(sizes) not in starts:
            starts.append(first + len(sizes))
        self._now = now
        self._emit("ledger_close", ledger=ledger)
        self.invalidate_ledger(now=now, ledger=ledger)
        for name in self._cursors.of_ledger(ledger):
            self._cursors.remove(ledger, name)
            self._emit("cursor_remove", ledger=ledger, cursor=name)
