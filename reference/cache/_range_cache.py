"""Per-ledger range caches (``RangeCache``): position -> cached value.

``RangeCache.java`` of apache/pulsar, as merged by PR #24623 and as it was at 8ce67b97b3^ (legacy).

Each ledger has a ``SortedDict`` keyed by entry id; values carry a ``size``. The per-ledger sizes
and the total are running sums, updated on every put and pop. An emptied ledger is dropped, so
:meth:`RangeCaches.ledger_sizes` lists exactly the ledgers that cache something. ``RangeRows`` is
the observation of the profiles that cache in them: their entries' rows, all or at one position.

Complexity: get O(1); put, pop, first O(log n); pop_before O((k + 1) log n) and pop_ledger O(k) for k
removed; ledger_size, total_size O(1); values O(n + L log L) for L ledgers after a put or pop, else O(1).
"""

from __future__ import annotations

import abc
from typing import Generic, Protocol, TypeVar

from ledgerspec.reference.cache._base import EntryRow
from sortedcontainers import SortedDict


class Sized(Protocol):
    """A cached value: anything with an accounted ``size``."""

    size: int


V = TypeVar("V", bound=Sized)


class RangeCaches(Generic[V]):
    """Every ledger's range cache, with running sizes."""

    def __init__(self) -> None:
        self._ledgers: dict[int, SortedDict] = {}
        self._sizes: dict[int, int] = {}
        self._count = 0
        self.total_size = 0
        """Sum of the sizes of every cached value (the manager's ``currentSize``)."""
        self._values: tuple[V, ...] | None = ()
        """:meth:`values` until the next put or pop (None: to be listed again)."""

    def __len__(self) -> int:
        return self._count

    def get(self, ledger: int, entry: int) -> V | None:
        """Return the value cached at (ledger, entry), or None."""
        cache = self._ledgers.get(ledger)
        return None if cache is None else cache.get(entry)

    def put(self, ledger: int, entry: int, value: V) -> None:
        """Cache ``value`` at a position that holds nothing.

        The profiles cache a value at its own position (a ``Wrapper``'s or ``LegacyEntry``'s ledger
        and entry), and their snapshots read the position from the values (:meth:`values`).
        """
        cache = self._ledgers.get(ledger)
        if cache is None:
            cache = self._ledgers[ledger] = SortedDict()
            self._sizes[ledger] = 0
        assert entry not in cache, "put over a cached position"
        cache[entry] = value
        self._values = None
        self._sizes[ledger] += value.size
        self.total_size += value.size
        self._count += 1

    def pop(self, ledger: int, entry: int) -> V:
        """Uncache the value at a cached position and return it."""
        cache = self._ledgers[ledger]
        value: V = cache.pop(entry)
        self._account_removed(ledger, value.size, 1)
        return value

    def first(self, ledger: int) -> tuple[int, V] | None:
        """Return the lowest cached (entry id, value) of ``ledger``, or None."""
        cache = self._ledgers.get(ledger)
        return None if cache is None else cache.peekitem(0)

    def pop_before(self, ledger: int, entry: int) -> list[V]:
        """Uncache every value of ``ledger`` strictly before ``entry``; returned in position order."""
        cache = self._ledgers.get(ledger)
        if cache is None:
            return []
        keys = list(cache.irange(maximum=entry, inclusive=(True, False)))
        values = [cache.pop(key) for key in keys]
        self._account_removed(ledger, sum(v.size for v in values), len(values))
        return values

    def pop_range(self, ledger: int, first: int, end: int) -> list[V]:
        """Uncache every value of ``ledger`` in ``[first, end)``; returned in position order."""
        cache = self._ledgers.get(ledger)
        if cache is None or first >= end:
            return []
        keys = list(cache.irange(first, end, inclusive=(True, False)))
        values = [cache.pop(key) for key in keys]
        self._account_removed(ledger, sum(v.size for v in values), len(values))
        return values

    def pop_ledger(self, ledger: int) -> list[V]:
        """Uncache every value of ``ledger``; returned in position order."""
        cache = self._ledgers.pop(ledger, None)
        if cache is None:
            return []
        size = self._sizes.pop(ledger)
        self._values = None
        self.total_size -= size
        self._count -= len(cache)
        return list(cache.values())

    def pop_all(self) -> list[V]:
        """Uncache everything; returned in position order."""
        values = list(self.values())
        self._ledgers.clear()
        self._sizes.clear()
        self._values = ()
        self._count = 0
        self.total_size = 0
        return values

    def ledger_size(self, ledger: int) -> int:
        """Sum of the sizes cached for ``ledger``."""
        return self._sizes.get(ledger, 0)

    def ledger_sizes(self) -> dict[int, int]:
        """Size of every ledger that caches something."""
        return dict(self._sizes)

    def values(self) -> tuple[V, ...]:
        """Every cached value, in position order: what a snapshot lists.

        Kept until the next put or pop: a snapshot is taken after every step of a conformance run,
        and most steps cache or uncache nothing.
        """
        if self._values is None:
            values: list[V] = []
            for ledger in sorted(self._ledgers):
                entries = self._ledgers[ledger]
                values += map(entries.__getitem__, entries)  # a SortedDict iterates its keys in order
            self._values = tuple(values)
        return self._values

    def _account_removed(self, ledger: int, size: int, count: int) -> None:
        self._values = None
        self._sizes[ledger] -= size
        self.total_size -= size
        self._count -= count
        if not self._ledgers[ledger]:
            del self._ledgers[ledger]
            del self._sizes[ledger]


class RangeRows(abc.ABC, Generic[V]):
    """The observed entries of a profile that caches its values in ``_ranges``: pip430, pulsar-master, legacy.

    Each value's row is the profile's :meth:`_row`, listed for every value or read at one position.
    """

    _ranges: RangeCaches[V]

    @abc.abstractmethod
    def _row(self, value: V) -> EntryRow:
        """The observed row of one cached value."""

    def _entry_rows(self) -> list[EntryRow]:
        return list(map(self._row, self._ranges.values()))

    def _entry_row(self, ledger: int, entry: int) -> EntryRow | None:
        value = self._ranges.get(ledger, entry)
        return None if value is None else self._row(value)
