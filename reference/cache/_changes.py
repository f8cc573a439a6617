"""A listener that collects where a cache's snapshot may have changed: the positions its events name.

Every change to a cached entry's row (cached, removed, overwritten with another size, its count or
its timestamp) comes with an event naming the position (traces/FORMAT.md), except a count changed
through a copy (``release``, ``replay_increment``), whose event names the copy: that copy's
position is the one of the ``hit`` that dispatched it, so the listener must listen from the cache's
first operation on. Naming more positions than changed is harmless (their rows are read again and
compared); tests/unit/test_differential.py checks, after every operation of its runs, that no
changed position is missing.
"""

from __future__ import annotations

from typing import Any

Position = tuple[int, int]


class ChangedPositions:
    """A cache listener (``ReferenceCache.listen``): the positions named since the last :meth:`take`."""

    def __init__(self) -> None:
        self.positions: set[Position] = set()
        self._read_from: dict[int, Position] = {}
        """Each open copy's position."""

    def __call__(self, kind: str, now: int, fields: dict[str, Any]) -> None:  # noqa: ARG002 - a Listener
        ledger, entry = fields.get("ledger"), fields.get("entry")
        if ledger is not None and entry is not None:
            self.positions.add((ledger, entry))
            if kind == "hit":
                self._read_from[fields["copy"]] = (ledger, entry)
        elif kind == "release":
            self.positions.add(self._read_from.pop(fields["copy"]))
        elif kind == "replay_increment":
            self.positions.add(self._read_from[fields["copy"]])

    def take(self) -> set[Position]:
        """The positions named since the last call; from now on, none."""
        positions, self.positions = self.positions, set()
        return positions
