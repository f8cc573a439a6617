"""A mutant of the pulsar-master reference's cursor container: incremental counts that skip the tail.

Modelled on ``ActiveManagedCursorContainerImpl`` of apache/pulsar managed-ledger 4.2.4 (R2 in
DEVIATIONS.md): each cursor's ``getNumberOfCursorsAtSamePositionOrBefore`` is a counter updated when
the container processes its pending moves, which it does on a count or a slowest-position query.
With fewer pending moves than half the tracked cursors it updates the counters move by move
(``performIncrementalUpdate``), and ``moveNodeToNewPosition`` returns before touching them when the
moved cursor is the list's tail and stays last (``if (node == tail) return;``), so the cursors it
leaves or joins keep their old counts.
"""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import ActiveCursors, PulsarMasterCache

_Key = tuple[int, str]


class _IncrementalCounts(ActiveCursors):
    """Counts kept per cursor and brought up to date move by move, except a tail staying last."""

    def __init__(self) -> None:
        super().__init__()
        self._counts: dict[_Key, int] = {}
        self._moves: dict[int, list[tuple[str, int]]] = {}
        self._rebuild: set[int] = set()

    def add(self, ledger: int, cursor: str, entry: int) -> None:
        super().add(ledger, cursor, entry)
        self._rebuild.add(ledger)

    def remove(self, ledger: int, cursor: str) -> None:
        super().remove(ledger, cursor)
        self._counts.pop((ledger, cursor), None)
        self._rebuild.add(ledger)

    def seek(self, ledger: int, cursor: str, entry: int) -> None:
        old = self.position(ledger, cursor)
        super().seek(ledger, cursor, entry)
        if old is not None and old != entry:
            self._moves.setdefault(ledger, []).append((cursor, old))

    def count_at_or_before(self, ledger: int, cursor: str) -> int:
        self._process(ledger)
        return self._counts.get((ledger, cursor), 0) if self.position(ledger, cursor) is not None else 0

    def slowest(self, ledger: int) -> int | None:
        self._process(ledger)
        return super().slowest(ledger)

    def _process(self, ledger: int) -> None:
        moves = self._moves.pop(ledger, [])
        rebuild = ledger in self._rebuild
        self._rebuild.discard(ledger)
        if not moves and not rebuild:
            return
        names = self.of_ledger(ledger)
        if not rebuild and len(moves) == 1 < len(names) // 2 and _last(self, ledger, names, moves[0]):
            names = [moves[0][0]]  # the bug: the others' counts stay as they were
        for name in names:
            self._counts[ledger, name] = super().count_at_or_before(ledger, name)


def _last(cursors: ActiveCursors, ledger: int, names: list[str], move: tuple[str, int]) -> bool:
    """The moved cursor was at or after every other one before its move, and is after it."""
    moved, old = move
    new = cursors.position(ledger, moved)
    others = [cursors.position(ledger, name) for name in names if name != moved]
    return new is not None and all(at is not None and at <= old and at <= new for at in others)


class PulsarMasterTailMoveUncounted(PulsarMasterCache):
    """Cursor counts that a tail cursor's move in place leaves stale (managed-ledger 4.2.4's R2).

    Breaks CACHE-CURSOR-COUNT (and the expected reads of what such cursors read).
    """

    def _setup(self) -> None:
        super()._setup()
        self._cursors = _IncrementalCounts()


MUTANTS: list[Mutant] = [
    Mutant(
        "pulsar-master-tail-move-uncounted",
        "pulsar-master",
        "a tail cursor moving in place leaves the others' counts stale",
        PulsarMasterTailMoveUncounted,
    ),
]
