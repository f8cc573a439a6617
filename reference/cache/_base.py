"""What every reference cache shares: configuration, logical clock, counters, copies, cursors.

Time is only ever the ``now`` argument: an operation whose ``now`` is before the last accepted one is
refused, as is any operation that breaks its precondition; a refused operation changes nothing, not
even the clock. Copy ids count up from 0 in dispatch order (one per hit). Counters and the cached
size are running totals, so :meth:`ReferenceCache.snapshot` is the only O(n) operation here.

Complexity: configure O(1); cursor operations O(log n) (see ``_cursors``); release and
replay_increment O(1) plus the profile's hook; get O(1) plus the profile's lookup; get_range O(k)
lookups for k positions; snapshot O(n log n); snapshot_at O(c) for c open copies plus a lookup
per position.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Generic, TypeVar

from ledgerspec.reference._errors import ReferenceCacheError
from ledgerspec.reference.cache._config import MIB, NANOS_PER_MILLI, Config, check_config
from ledgerspec.reference.cache._cursors import ActiveCursors

COUNTERS: tuple[str, ...] = (
    "inserted",
    "hits",
    "misses",
    "removed_size",
    "removed_ttl",
    "removed_invalidate",
    "removed_clear",
)
"""The cumulative counters of an observation, in its key order."""

C = TypeVar("C")
"""What an open copy remembers: the wrapper or handler it shares, or None."""

EntryRow = tuple[int, int, int, int | None, int | None, int | None, bool | None]
"""One cached entry as (ledger, entry, size, count, timestamp, requeues, accessed): an observation's entry, in
its key order; the last two are None where the profile has no such field (all but pulsar-master)."""

Listener = Callable[[str, int, dict[str, Any]], None]
"""Receives (event kind, now, fields) for every event of traces/FORMAT.md the cache produces."""


def row_dict(row: EntryRow) -> dict[str, Any]:
    """An entry row as an observation's entry: ``requeues`` and ``accessed`` only where the profile has them."""
    ledger, entry, length, count, timestamp, requeues, accessed = row
    entry_dict = {"ledger": ledger, "entry": entry, "size": length, "count": count, "timestamp": timestamp}
    if requeues is not None:
        entry_dict["requeues"], entry_dict["accessed"] = requeues, accessed
    return entry_dict


def require(condition: bool, message: str) -> None:
    """Check an operation's precondition: raise :class:`ReferenceCacheError` with ``message`` if false."""
    if not condition:
        raise ReferenceCacheError(message)


class ReferenceCache(abc.ABC, Generic[C]):
    """Base of the four reference caches; the public methods are the operations of spec/cache/_ops.py.

    Every parameter is keyword-only, with the same name, default, meaning and range as the spec's
    ``CacheConfig``; a profile ignores the fields it does not use.
    """

    PROFILE: ClassVar[str] = ""
    STATS: ClassVar[tuple[str, ...]] = ()
    """The factory statistics among the counters (``evictions``, ``hit_bytes``), where the profile has them."""

    def __init__(
        self,
        *,
        max_size: int = 128 * MIB,
        watermark: float = 0.9,
        trigger: float = 0.98,
        ttl: int = 1000 * NANOS_PER_MILLI,
        ttl_max: int = 5000 * NANOS_PER_MILLI,
        max_requeue: int = 5,
        extend_ttl: bool = True,
        track_reads: bool = True,
        segment_size_max: int = 1024 * MIB,
    ) -> None:
        values: dict[str, Any] = {
            "max_size": max_size,
            "watermark": watermark,
            "trigger": trigger,
            "ttl": ttl,
            "ttl_max": ttl_max,
            "max_requeue": max_requeue,
            "extend_ttl": extend_ttl,
            "track_reads": track_reads,
            "segment_size_max": segment_size_max,
        }
        check_config(values, where=type(self).__name__)
        self._config = Config(**values)
        self._now = 0
        self._disabled = max_size == 0
        """``EntryCacheDisabled``: decided when the cache is created, not by a later resize (PR #24623)."""
        self._counters = dict.fromkeys(COUNTERS + self.STATS, 0)
        self._copies: dict[int, C] = {}
        self._next_copy = 0
        self._cursors = ActiveCursors()
        self._listener: Listener | None = None
        self._pass: str | None = None
        """The kind of the pass under way: its removals carry it as their reason (traces/FORMAT.md)."""
        self._invalidator: str | None = None
        """The cursor whose move, read or departure is invalidating (its ``invalidate`` pass names it, FORMAT.md)."""
        self._setup()

    @abc.abstractmethod
    def _setup(self) -> None:
        """Create the profile's own empty structures."""

    @property
    def config(self) -> Config:
        """The configuration in force."""
        return self._config

    @property
    def now(self) -> int:
        """The clock of the last accepted operation (0 at start)."""
        return self._now

    def listen(self, listener: Listener | None) -> None:
        """Report every internal event to ``listener`` (None stops it).

        Inserts, removals with their reason, requeues, stashes, pass starts and ends (traces/FORMAT.md):
        the hook the trace generator records through, and ``ChangedPositions`` collects positions
        through (``_changes``). One listener at a time.
        """
        self._listener = listener

    # --- helpers for the profiles -----------------------------------------------------------------

    def _emit(self, kind: str, **fields: Any) -> None:
        """Report one event, if someone listens (call sites on hot paths test ``self._listener`` first)."""
        if self._listener is not None:
            if kind == "remove" and self._pass is not None:
                fields["reason"] = self._pass
            self._listener(kind, self._now, fields)

    def _check_clock(self, now: int) -> None:
        require(now >= self._now, f"now must not go back: got {now!r}, last accepted {self._now}")

    def _count(self, counter: str, n: int = 1) -> None:
        self._counters[counter] += n

    def _make_copy(self, shared: C) -> int:
        copy = self._next_copy
        self._next_copy += 1
        self._copies[copy] = shared
        return copy

    def _open_copy(self, copy: int, where: str) -> C:
        require(copy in self._copies, f"{where}: copy {copy!r} is not an open copy")
        return self._copies[copy]

    def _read_event(self, ledger: int, entry: int, copy: int | None, count: int | None) -> None:
        """A hit (with the copy and the count it shares) or a miss."""
        if copy is None:
            self._emit("miss", ledger=ledger, entry=entry)
        else:
            self._emit("hit", ledger=ledger, entry=entry, copy=copy, count=count)

    def _pass_start(
        self, kind: str, *, value: float | None = None, ledger: int | None = None, entry: int | None = None
    ) -> None:
        self._pass = kind
        cursor = self._invalidator if kind == "invalidate" else None
        self._emit("pass_start", reason=kind, size=self._size(), value=value, ledger=ledger, entry=entry, cursor=cursor)

    def _range_start(self, now: int, ledger: int, first: int, last: int, inclusive: bool) -> int:
        """Begin a ``removeRange(first, last, lastInclusive)`` pass; the exclusive end of the range."""
        self._check_clock(now)
        require(first <= last, f"remove_range: first must be <= last, got {first!r} > {last!r}")
        self._now = now
        end = last + 1 if inclusive else last
        self._pass_start("range", ledger=ledger, entry=end, value=float(first))
        return end

    def _pass_end(self, kind: str) -> None:
        self._pass = None
        self._emit("pass_end", reason=kind, size=self._size())

    @staticmethod
    def _check_insert(size: int, expected_reads: int | None) -> None:
        require(size > 0, f"insert: size must be > 0, got {size!r}")
        reads_ok = expected_reads is None or expected_reads >= 0
        require(reads_ok, f"insert: expected_reads must be >= 0, got {expected_reads!r}")

    # --- what a profile provides ------------------------------------------------------------------

    @abc.abstractmethod
    def _read_one(self, ledger: int, entry: int) -> int | None:
        """Look up one position: count a hit (and dispatch a copy) or a miss."""

    @abc.abstractmethod
    def _entry_rows(self) -> list[EntryRow]:
        """List the cached entries for :meth:`snapshot_rows`, in position order."""

    @abc.abstractmethod
    def _entry_row(self, ledger: int, entry: int) -> EntryRow | None:
        """The row of the entry cached at one position, or None."""

    @abc.abstractmethod
    def _size(self) -> int:
        """Return the reported size."""

    @abc.abstractmethod
    def _copy_count(self, shared: C) -> int | None:
        """Return the count an open copy shows, or None without a handler."""

    # --- operations -------------------------------------------------------------------------------

    def configure(
        self,
        *,
        now: int,
        max_size: int | None = None,
        watermark: float | None = None,
        ttl: int | None = None,
        ttl_max: int | None = None,
        max_requeue: int | None = None,
        extend_ttl: bool | None = None,
        track_reads: bool | None = None,
    ) -> None:
        """Change the configuration at run time (``updateCacheSizeAndThreshold``, PR #24623); None keeps it."""
        self._check_clock(now)
        given = {
            "max_size": max_size,
            "watermark": watermark,
            "ttl": ttl,
            "ttl_max": ttl_max,
            "max_requeue": max_requeue,
            "extend_ttl": extend_ttl,
            "track_reads": track_reads,
        }
        changes = {name: value for name, value in given.items() if value is not None}
        check_config(changes, where="configure")
        self._check_changes(changes)
        self._now = now
        self._config = self._config.changed(changes)
        for name, value in changes.items():
            self._emit("config", reason=name, value=float(value))

    def _check_changes(self, changes: dict[str, Any]) -> None:
        """A profile's own limits on run-time changes (the ring cannot be resized)."""

    @abc.abstractmethod
    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> bool:
        """Insert an entry carrying ``expected_reads`` (None: created without a handler); true iff newly cached."""

    def get(self, *, now: int, ledger: int, entry: int) -> int | None:
        """Read one position: the id of the dispatched copy on a hit, None on a miss."""
        self._check_clock(now)
        self._now = now
        return self._read_one(ledger, entry)

    def get_range(self, *, now: int, ledger: int, first: int, last: int) -> tuple[int | None, ...]:
        """Read ``[first, last]`` of one ledger, position by position, in order (apache/pulsar#24623)."""
        self._check_clock(now)
        require(first <= last, f"get_range: first must be <= last, got first={first!r}, last={last!r}")
        self._now = now
        return tuple(self._read_one(ledger, entry) for entry in range(first, last + 1))

    def release(self, *, now: int, copy: int) -> None:
        """Release an open dispatched copy; without read counts (legacy, ring) that only closes it."""
        self._check_clock(now)
        self._open_copy(copy, "release")
        self._now = now
        del self._copies[copy]
        self._emit("release", copy=copy)

    def replay_increment(self, *, now: int, copy: int) -> bool | None:
        """Key_Shared replay through an open copy: ``incrementExpectedReadCount()``.

        Without read counts (legacy, ring) nothing happens, but the copy must be open.
        """
        self._check_clock(now)
        self._open_copy(copy, "replay_increment")
        self._now = now
        self._emit("replay_increment", copy=copy)
        return None

    @abc.abstractmethod
    def invalidate_before(self, *, now: int, ledger: int, entry: int) -> None:
        """``invalidateEntries(pos)``: every entry of ``ledger`` strictly before ``entry``."""

    @abc.abstractmethod
    def invalidate_ledger(self, *, now: int, ledger: int) -> None:
        """``invalidateAllEntries(ledgerId)``."""

    @abc.abstractmethod
    def clear(self, *, now: int) -> None:
        """``clear()`` of the whole cache."""

    @abc.abstractmethod
    def evict_timestamp(self, *, now: int) -> None:
        """One timestamp (TTL) eviction pass."""

    @abc.abstractmethod
    def evict_size(self, *, now: int) -> None:
        """Run the size eviction of the eviction executor: down to the watermark when over the trigger."""

    def cursor_add(self, *, now: int, ledger: int, cursor: str, entry: int) -> None:
        """Activate a cursor at ``entry`` (not active already, ``entry >= 0``)."""
        self._check_clock(now)
        self._cursors.add(ledger, cursor, entry)
        self._now = now
        self._emit("cursor_add", ledger=ledger, cursor=cursor, entry=entry)

    def cursor_remove(self, *, now: int, ledger: int, cursor: str) -> None:
        """Remove an active cursor."""
        self._check_clock(now)
        self._cursors.remove(ledger, cursor)
        self._now = now
        self._emit("cursor_remove", ledger=ledger, cursor=cursor)

    def cursor_seek(self, *, now: int, ledger: int, cursor: str, entry: int) -> None:
        """Move an active cursor to ``entry >= 0``."""
        self._check_clock(now)
        self._cursors.seek(ledger, cursor, entry)
        self._now = now
        self._emit("cursor_seek", ledger=ledger, cursor=cursor, entry=entry)

    def cursor_count(self, *, now: int, ledger: int, cursor: str) -> int:
        """``getNumberOfCursorsAtSamePositionOrBefore`` (the PIP text; PR #24623); 0 if inactive."""
        self._check_clock(now)
        self._now = now
        count = self._cursor_count(ledger, cursor)
        self._emit("cursor_count", ledger=ledger, cursor=cursor, result=count)
        return count

    def _cursor_count(self, ledger: int, cursor: str) -> int:
        """The count ``cursor_count`` answers: the container's."""
        return self._cursors.count_at_or_before(ledger, cursor)

    def reported_size(self) -> int:
        """The size the cache reports (``getCacheUsedSize``; ``ReadCache.size()`` in segmented): O(1)."""
        return self._size()

    def active_cursors(self, ledger: int) -> int:
        """Count the active cursors on ``ledger``: a tailing write's expected reads (the PIP text; PR #24623)."""
        return self._cursors.active(ledger)

    def snapshot(self) -> dict[str, Any]:
        """Plain data, the shape of the spec's ``Observation.to_dict()``: entries, size, counters, copies."""
        entries, total, counters, copies = self.snapshot_rows()
        return {
            "entries": list(map(row_dict, entries)),
            "size": total,
            "counters": counters,
            "copies": [list(pair) for pair in copies],
            **self.queue_fields(),
        }

    def queue_fields(self) -> dict[str, int]:
        """The removal queue's fields of an observation, where the profile has them (``queue_length``, ...)."""
        return {}

    def snapshot_rows(self) -> tuple[list[EntryRow], int, dict[str, int], list[tuple[int, int | None]]]:
        """The snapshot with entries and copies as tuples: (entries, size, counters, copies).

        The shape of :meth:`snapshot_at`, for every cached entry; :meth:`snapshot` is its dict form.
        """
        return self._entry_rows(), self._size(), dict(self._counters), self._copy_rows()

    def snapshot_at(
        self, positions: Iterable[tuple[int, int]]
    ) -> tuple[dict[tuple[int, int], EntryRow | None], int, dict[str, int], list[tuple[int, int | None]]]:
        """:meth:`snapshot_rows` with the entries at some positions only: each one's row, or None.

        With a ``ChangedPositions`` listening (``_changes``), an adapter that sends differences reads
        the positions an operation may have changed instead of every cached entry.
        """
        rows = {position: self._entry_row(*position) for position in positions}
        return rows, self._size(), dict(self._counters), self._copy_rows()

    def _copy_rows(self) -> list[tuple[int, int | None]]:
        # ids only grow and a dict keeps insertion order, so this is already by id
        return [(copy, self._copy_count(shared)) for copy, shared in self._copies.items()]
