"""Active cursors per ledger, for ``getNumberOfCursorsAtSamePositionOrBefore``.

pip-430.md at cf3d7d17d9 (the PIP's ``sortedByPosition`` map) and apache/pulsar#24623 (the merged
``ActiveManagedCursorContainerImpl``) count the same thing: the active cursors of the ledger at a
position <= this cursor's, the cursor itself included; 0 for a cursor that is not active.

Per ledger, a ``SortedList`` of read positions (one per cursor), plus a dict from (ledger, name) to
position. Complexity: add, remove, seek O(log n); ``count_at_or_before`` O(log n) (a ``bisect_right``);
``active`` O(1).
"""

from __future__ import annotations

from ledgerspec.reference._errors import ReferenceCacheError
from sortedcontainers import SortedList


class ActiveCursors:
    """The active-cursor container of every ledger."""

    def __init__(self) -> None:
        self._positions: dict[tuple[int, str], int] = {}
        self._by_ledger: dict[int, SortedList] = {}

    def __len__(self) -> int:
        return len(self._positions)

    def position(self, ledger: int, cursor: str) -> int | None:
        """Return the read position of an active cursor, or None."""
        return self._positions.get((ledger, cursor))

    def add(self, ledger: int, cursor: str, entry: int) -> None:
        """Activate a cursor at ``entry``; it must not be active already, ``entry`` must be >= 0."""
        if (ledger, cursor) in self._positions:
            raise ReferenceCacheError(f"cursor_add: cursor {cursor!r} of ledger {ledger} is already active")
        _check_position("cursor_add", entry)
        self._positions[ledger, cursor] = entry
        self._by_ledger.setdefault(ledger, SortedList()).add(entry)

    def remove(self, ledger: int, cursor: str) -> None:
        """Remove an active cursor."""
        position = self._positions.pop((ledger, cursor), None)
        if position is None:
            raise ReferenceCacheError(f"cursor_remove: cursor {cursor!r} of ledger {ledger} is not active")
        positions = self._by_ledger[ledger]
        positions.remove(position)
        if not positions:
            del self._by_ledger[ledger]

    def seek(self, ledger: int, cursor: str, entry: int) -> None:
        """Move an active cursor to ``entry`` (forward or back)."""
        position = self._positions.get((ledger, cursor))
        if position is None:
            raise ReferenceCacheError(f"cursor_seek: cursor {cursor!r} of ledger {ledger} is not active")
        _check_position("cursor_seek", entry)
        positions = self._by_ledger[ledger]
        positions.remove(position)
        positions.add(entry)
        self._positions[ledger, cursor] = entry

    def count_at_or_before(self, ledger: int, cursor: str) -> int:
        """Cursors of ``ledger`` at a position <= this cursor's, itself included; 0 if it is not active."""
        position = self._positions.get((ledger, cursor))
        if position is None:
            return 0
        return int(self._by_ledger[ledger].bisect_right(position))

    def slowest(self, ledger: int) -> int | None:
        """The read position of the ledger's slowest active cursor, or None: O(1)."""
        positions = self._by_ledger.get(ledger)
        return None if positions is None else int(positions[0])

    def of_ledger(self, ledger: int) -> list[str]:
        """The names of the ledger's active cursors, sorted: O(n)."""
        return sorted(name for lg, name in self._positions if lg == ledger)

    def active(self, ledger: int) -> int:
        """Count the active cursors on ``ledger``: the expected reads of a tailing write (the PIP text; PR #24623)."""
        positions = self._by_ledger.get(ledger)
        return 0 if positions is None else len(positions)


def _check_position(where: str, entry: int) -> None:
    if entry < 0:
        raise ReferenceCacheError(f"{where}: entry must be >= 0, got {entry!r}")
