"""Observations as differences: process protocol v1's ``observe: "delta"`` (conformance/protocol/README.md).

A full observation carries every cached entry on every step; parsing it dominated a round trip once
the cache held a few dozen entries. A delta carries what changed since the implementation's previous
observation (the empty cache right after ``configure``): entries added or changed, positions removed,
copies opened or changed, copies closed, and the size and counters in full. Removals apply before
additions, so a position removed and cached again in one step may appear in both.

:class:`DeltaEncoder` is the implementation's side (it diffs full snapshots, so an adapter only ever
has to produce full observations, or just the entries a step may have changed);
:class:`DeltaDecoder` is the runner's, and checks every field it reads, naming the first bad one.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar

from ledgerspec.spec.cache import CachedEntry, Counters, Observation

if TYPE_CHECKING:
    from ledgerspec.reference.cache import EntryRow

_Frozen = TypeVar("_Frozen", CachedEntry, Counters, Observation)

_ENTRY_OPTIONAL = frozenset(("requeues", "accessed"))
"""Entry keys an implementation sends only if it claims them (observe_requeues, observe_accessed)."""
_ENTRY_KEYS = frozenset(CachedEntry.__dataclass_fields__) - _ENTRY_OPTIONAL
_QUEUE_KEYS = ("queue_length", "non_evictable_size")
"""Observation keys an implementation sends only if it claims them, in full in every delta, like ``size``."""
_COUNTER_KEYS = frozenset(Counters.__dataclass_fields__)
_STAT_KEYS = frozenset(name for name, f in Counters.__dataclass_fields__.items() if f.default is None)
"""Counters an implementation sends only if it claims them (observe_evictions, observe_hit_bytes): int or null."""
_NO_STATS: dict[str, Any] = dict.fromkeys(_STAT_KEYS)
_DELTA_KEYS = frozenset(("entries", "removed", "size", "counters", "copies", "closed"))
_ALL_DELTA_KEYS = _DELTA_KEYS | frozenset(_QUEUE_KEYS)


class DeltaEncoder:
    """The implementation's side: the delta from the last observation sent.

    It keeps the last observation's entries by position and its copies as a set of pairs. A delta
    compares the rows at the positions it is given: every position, from a full snapshot
    (:meth:`delta`), or only those an operation may have changed (:meth:`delta_at`), which a cache
    that tracks its changes can name, so that the entries a step left alone cost nothing.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """A fresh cache (``configure``): the next delta is against the empty observation."""
        self.rows: dict[tuple[int, int], EntryRow] = {}
        self.copies: set[tuple[int, int | None]] = set()

    def sent_full(self, snapshot: dict[str, Any]) -> None:
        """A full observation was sent; later deltas are against it."""
        entries, copies = _rows(snapshot)
        self.rows = {row[:2]: row for row in entries}
        self.copies = set(copies)

    def delta(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The delta to ``snapshot`` (an ``Observation.to_dict()`` shape); it becomes the new base."""
        entries, copies = _rows(snapshot)
        rows = dict.fromkeys(self.rows) | {row[:2]: row for row in entries}
        delta = self.delta_at(rows, snapshot["size"], snapshot["counters"], copies)
        delta.update({key: snapshot[key] for key in _QUEUE_KEYS if snapshot.get(key) is not None})
        return delta

    def delta_at(
        self,
        rows: dict[tuple[int, int], EntryRow | None],
        size: int,
        counters: dict[str, int],
        copies: list[tuple[int, int | None]],
    ) -> dict[str, Any]:
        """The delta when no entry but those at ``rows``' positions changed (``ReferenceCache.snapshot_at``).

        ``rows`` maps a position to its entry's row, or to None when nothing is cached there.
        """
        delta: dict[str, Any] = {
            "entries": [],
            "removed": [],
            "size": size,
            "counters": counters,
            "copies": [],
            "closed": [],
        }
        last, added, removed = self.rows, [], []
        for position, row in rows.items():
            if row is None:
                if last.pop(position, None) is not None:
                    removed.append(list(position))
            elif last.get(position) != row:
                last[position] = row
                added.append(row)
        if added:
            delta["entries"] = [_row_dict(row) for row in sorted(added, key=_position)]
        if removed:
            delta["removed"] = sorted(removed)
        copies_after, copies_before = set(copies), self.copies
        if copies_after != copies_before:  # most steps open or close no copy: skip the comprehensions
            opened, shut = copies_after - copies_before, copies_before - copies_after
            if opened:
                delta["copies"] = sorted([copy, count] for copy, count in opened)
            if shut:
                reopened = {copy for copy, _ in opened}
                delta["closed"] = sorted(copy for copy, _ in shut if copy not in reopened)
            self.copies = copies_after
        return delta


_position = itemgetter(0, 1)


def _entry_row(row: dict[str, Any]) -> EntryRow:
    """An observation's entry as a row (``ReferenceCache`` ``EntryRow``)."""
    return (
        row["ledger"],
        row["entry"],
        row["size"],
        row["count"],
        row["timestamp"],
        row.get("requeues"),
        row.get("accessed"),
    )


def _row_dict(row: EntryRow) -> dict[str, Any]:
    """A row as a delta's entry: ``requeues`` and ``accessed`` only where they are shown."""
    ledger, entry, length, count, timestamp, requeues, accessed = row
    entry_dict = {"ledger": ledger, "entry": entry, "size": length, "count": count, "timestamp": timestamp}
    if requeues is not None:
        entry_dict["requeues"] = requeues
    if accessed is not None:
        entry_dict["accessed"] = accessed
    return entry_dict


def _rows(snapshot: dict[str, Any]) -> tuple[list[EntryRow], list[tuple[int, int | None]]]:
    """A snapshot's entries and copies as tuples."""
    return list(map(_entry_row, snapshot["entries"])), list(map(tuple, snapshot["copies"]))


class DeltaDecoder:
    """The runner's side: the implementation's observation, kept up to date by deltas.

    Entries by position in a plain dict, beside the sorted list of positions (kept sorted by bisection
    as positions come and go), so the entries tuple is one C-level map. What a delta leaves as it was
    (the entries, the copies, the counters, or the whole observation) is reused from the previous
    observation, never across a full observation or a reset: the entries tuple grows with the cache.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """A fresh cache (``configure``)."""
        self.entries: dict[tuple[int, int], CachedEntry] = {}
        self.order: list[tuple[int, int]] = []
        self.copies: dict[int, int | None] = {}
        self.last = Observation(entries=(), size=0, counters=Counters(), copies=())
        self.counters: dict[str, int] | None = None
        """The counters of :attr:`last` as the implementation sent them (None: not from a delta)."""

    def full(self, observation: Observation) -> Observation:
        """A full observation arrived: it is the new base."""
        self.entries = {cached.position: cached for cached in observation.entries}
        self.order = list(self.entries)
        self.copies = dict(observation.copies)
        self.last, self.counters = observation, None
        return observation

    def apply(self, delta: Any) -> Observation:  # noqa: C901 - one branch per field a delta may carry
        """The observation after ``delta``; a ValueError names the first malformed or impossible field.

        An impossible delta may be half applied when it is found out: after a ValueError the decoder
        is good again only after :meth:`reset` or :meth:`full` (the adapter faults, and the next
        example starts with ``configure``).
        """
        problem = _delta_problem(delta)
        if problem:
            raise ValueError(problem)
        last, removed, rows = self.last, delta["removed"], delta["entries"]
        entries = last.entries
        if removed or rows:
            cached, order = self.entries, self.order
            for index, (ledger, entry) in enumerate(removed):
                position = (ledger, entry)
                if cached.pop(position, None) is None:
                    raise ValueError(f"removed[{index}]: ({ledger}, {entry}) is not in the previous observation")
                del order[bisect_left(order, position)]
            for row in rows:
                position = (row["ledger"], row["entry"])
                if position not in cached:
                    insort(order, position)
                cached[position] = _built(CachedEntry, row if len(row) == _FULL_ROW else _NO_QUEUE_ROW | row)
            entries = tuple(map(cached.__getitem__, order))
        copies, closed, opened = last.copies, delta["closed"], delta["copies"]
        if closed or opened:
            open_copies = self.copies
            for index, copy in enumerate(closed):
                if open_copies.pop(copy, _ABSENT) is _ABSENT:
                    raise ValueError(f"closed[{index}]: copy {copy} is not open in the previous observation")
            for copy, count in opened:
                open_copies[copy] = count
            copies = tuple(sorted(open_copies.items()))
        counters = last.counters
        if delta["counters"] != self.counters:
            self.counters = delta["counters"]
            sent = self.counters
            counters = _built(Counters, sent if sent.keys() >= _STAT_KEYS else _NO_STATS | sent)
        queue_length, non_evictable = delta.get("queue_length"), delta.get("non_evictable_size")
        unchanged = entries is last.entries and copies is last.copies and counters is last.counters
        if (
            unchanged
            and delta["size"] == last.size
            and queue_length == last.queue_length
            and non_evictable == last.non_evictable_size
        ):
            return last
        self.last = _built(
            Observation,
            {
                "entries": entries,
                "size": delta["size"],
                "counters": counters,
                "copies": copies,
                "queue_length": queue_length,
                "non_evictable_size": non_evictable,
            },
        )
        return self.last


_ABSENT = object()
_FULL_ROW = len(CachedEntry.__dataclass_fields__)
_NO_QUEUE_ROW: dict[str, Any] = dict.fromkeys(_ENTRY_OPTIONAL)


def _built(cls: type[_Frozen], fields: dict[str, Any]) -> _Frozen:
    """``cls(**fields)`` for the spec's frozen dataclasses of plain fields, the fields already checked.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, several times
    slower than this for an ``Observation``, a ``Counters`` or a ``CachedEntry`` (BENCHMARKS.md), which
    counts on a step. tests/unit/test_protocol_deltas.py checks that the result equals the constructor's.
    Its ``vars()`` lists the fields in the order given (a delta's JSON order), which nothing reads.
    """
    built = object.__new__(cls)
    built.__dict__.update(fields)
    return built


def _is_int_or_null(value: Any) -> bool:
    return value is None or type(value) is int


def _delta_problem(delta: Any) -> str | None:  # noqa: C901, PLR0911, PLR0912 - one check per rule of the delta format, each naming its field
    """The first malformed field of a delta, as ``field: what is wrong``; None if well formed."""
    if not isinstance(delta, dict) or not _DELTA_KEYS <= delta.keys() <= _ALL_DELTA_KEYS:
        wanted = f"the keys {sorted(_DELTA_KEYS)}, optionally {list(_QUEUE_KEYS)}"
        return f"delta: an object with {wanted}, got {delta!r}"[:300]
    for name in _QUEUE_KEYS:
        value = delta.get(name)
        if value is not None and (type(value) is not int or value < 0):
            return f"{name}: an int >= 0 or null, got {value!r}"[:300]
    for name in ("entries", "removed", "copies", "closed"):
        if not isinstance(delta[name], list):
            return f"{name}: a list, got {delta[name]!r}"[:300]
    for index, row in enumerate(delta["entries"]):
        if not isinstance(row, dict) or not _ENTRY_KEYS <= row.keys() <= _ENTRY_KEYS | _ENTRY_OPTIONAL:
            wanted = f"the keys {sorted(_ENTRY_KEYS)}, optionally {sorted(_ENTRY_OPTIONAL)}"
            return f"entries[{index}]: an object with {wanted}, got {row!r}"[:300]
        requeues, accessed = row.get("requeues"), row.get("accessed")
        if requeues is not None and type(requeues) is not int:
            return f"entries[{index}].requeues: an int or null, got {requeues!r}"[:300]
        if accessed is not None and type(accessed) is not bool:
            return f"entries[{index}].accessed: a boolean or null, got {accessed!r}"[:300]
        for name in ("ledger", "entry", "size"):
            if type(row[name]) is not int:
                return f"entries[{index}].{name}: an int, got {row[name]!r}"
        for name in ("count", "timestamp"):
            if row[name] is not None and type(row[name]) is not int:
                return f"entries[{index}].{name}: an int or null, got {row[name]!r}"
    for index, position in enumerate(delta["removed"]):
        if not (type(position) is list and len(position) == 2 and type(position[0]) is type(position[1]) is int):
            return f"removed[{index}]: a [ledger, entry] pair of ints, got {position!r}"
    for index, pair in enumerate(delta["copies"]):
        if not (type(pair) is list and len(pair) == 2 and type(pair[0]) is int and _is_int_or_null(pair[1])):
            return f"copies[{index}]: a [copy id, count or null] pair, got {pair!r}"
    for index, copy in enumerate(delta["closed"]):
        if type(copy) is not int:
            return f"closed[{index}]: a copy id (int), got {copy!r}"
    if type(delta["size"]) is not int:
        return f"size: an int, got {delta['size']!r}"
    counters = delta["counters"]
    if not isinstance(counters, dict) or not _COUNTER_KEYS - _STAT_KEYS <= counters.keys() <= _COUNTER_KEYS:
        required = sorted(_COUNTER_KEYS - _STAT_KEYS)
        return f"counters: an object with the keys {required}, optionally {sorted(_STAT_KEYS)}, got {counters!r}"[:300]
    if {*map(type, counters.values())} != {int}:
        bad = [(n, v) for n, v in counters.items() if type(v) is not int and not (n in _STAT_KEYS and v is None)]
        if bad:
            return f"counters.{bad[0][0]}: an int, got {bad[0][1]!r}"
    return None
