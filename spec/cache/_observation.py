"""What a candidate shows after each step: its cached entries, total size, counters and open copies."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

REASONS: tuple[str, ...] = ("size", "ttl", "invalidate", "clear")
"""Why an entry left the cache: size eviction, TTL eviction, invalidation (position or ledger), clear."""


@dataclass(frozen=True, kw_only=True, order=True)
class CachedEntry:
    """One cached entry. ``count`` is ``None`` when the entry has no read-count handler.

    ``requeues`` and ``accessed`` are the merged wrapper's ``requeueCount`` and ``accessed`` flag
    (``RangeCacheEntryWrapper``, apache/pulsar#24623): None where the profile has no such field or the
    adapter does not show it (capabilities ``observe_requeues``, ``observe_accessed``).
    """

    ledger: int
    entry: int
    size: int
    count: int | None
    timestamp: int | None
    requeues: int | None = None
    accessed: bool | None = None

    @property
    def position(self) -> tuple[int, int]:
        """(ledgerId, entryId)."""
        return (self.ledger, self.entry)


@dataclass(frozen=True, kw_only=True)
class Counters:
    """Cumulative counters: inserts, hits, misses, removals by reason; two statistics (None: not kept or shown)."""

    inserted: int = 0
    hits: int = 0
    misses: int = 0
    removed_size: int = 0
    removed_ttl: int = 0
    removed_invalidate: int = 0
    removed_clear: int = 0
    evictions: int | None = None
    """``recordCacheEviction()``: size-eviction runs with ``sizeToEvict > 0`` (apache/pulsar#24623)."""
    hit_bytes: int | None = None
    """``getCacheHitsBytesTotal``: the bytes of every hit (apache/pulsar#24623)."""

    @property
    def removed(self) -> int:
        """Removals for every reason."""
        return self.removed_size + self.removed_ttl + self.removed_invalidate + self.removed_clear


@dataclass(frozen=True, kw_only=True)
class Observation:
    """A complete, comparable picture of a cache; entries in position order, copies by id."""

    entries: tuple[CachedEntry, ...]
    size: int
    counters: Counters
    copies: tuple[tuple[int, int | None], ...]
    """Open dispatched copies as (copy id, count of the handler they share, or None)."""
    queue_length: int | None = None
    """Wrappers in the removal queue, tombstones of removed entries included (``RangeCacheRemovalQueue``,
    apache/pulsar#24623); None where the profile has none or the adapter does not show it."""
    non_evictable_size: int | None = None
    """Bytes of the entries ``getNonEvictableSize()`` counts (pulsar-master: no handler or count >= 1, E5;
    pip430: ``!canEvict()``); None where the profile has no such notion or the adapter does not show it."""

    def entry(self, ledger: int, entry: int) -> CachedEntry | None:
        """The cached entry at a position, if any."""
        for cached in self.entries:
            if cached.ledger == ledger and cached.entry == entry:
                return cached
        return None

    def by_position(self) -> dict[tuple[int, int], CachedEntry]:
        """Entries keyed by position."""
        return {cached.position: cached for cached in self.entries}

    def copy_counts(self) -> dict[int, int | None]:
        """Open copies keyed by id."""
        return dict(self.copies)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for JSON; the optional fields only where they are shown (not None)."""
        data: dict[str, Any] = {
            "entries": [
                {k: v for k, v in dataclasses.asdict(e).items() if v is not None or k not in _ENTRY_OPTIONAL}
                for e in self.entries
            ],
            "size": self.size,
            "counters": {
                k: v for k, v in dataclasses.asdict(self.counters).items() if v is not None or k not in _STATS
            },
            "copies": [list(c) for c in self.copies],
        }
        for name in _TOP_OPTIONAL:
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Observation:
        """Inverse of :meth:`to_dict`; a TypeError names the first field of the wrong shape or type.

        Checked strictly (it is how adapters report), and cheaply: one pass of type tests, and the
        detailed diagnosis only when something is wrong.
        """
        if not _well_formed(data):
            _diagnose(data)
        return cls(
            entries=tuple(sorted(CachedEntry(**row) for row in data["entries"])),
            size=data["size"],
            counters=Counters(**data["counters"]),
            copies=tuple(sorted((copy, count) for copy, count in data["copies"])),
            queue_length=data.get("queue_length"),
            non_evictable_size=data.get("non_evictable_size"),
        )


def _well_formed(data: Any) -> bool:
    """The fast test: every field present with its type (ints are not bools)."""
    try:
        for name in _TOP_OPTIONAL:
            value = data.get(name)
            if value is not None and (type(value) is not int or value < 0):
                return False
        for row in data["entries"]:
            count, timestamp = row["count"], row["timestamp"]
            if (
                (len(row) != len(_ENTRY_REQUIRED) and not _optional_entry_ok(row))
                or type(row["ledger"]) is not int
                or type(row["entry"]) is not int
                or type(row["size"]) is not int
                or (count is not None and type(count) is not int)
                or (timestamp is not None and type(timestamp) is not int)
            ):
                return False
        for copy, count in data["copies"]:
            if type(copy) is not int or (count is not None and type(count) is not int):
                return False
        counters = data["counters"]
        return (
            type(data["size"]) is int
            and all(type(counters[name]) is int for name in _COUNTER_FIELDS)
            and set(counters) <= _ALL_COUNTERS
            and all(counters[name] is None or type(counters[name]) is int for name in counters.keys() & _STATS)
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def _diagnose(data: Any) -> None:
    """Raise a TypeError naming the first field of a malformed observation."""
    _expect(isinstance(data, dict), "observation", "an object", data)
    for key in ("entries", "size", "counters", "copies"):
        _expect(key in data, key, "present", None)
    for name in _TOP_OPTIONAL:
        value = data.get(name)
        _expect(value is None or (_is_int(value) and value >= 0), name, "an int >= 0 or null", value)
    _expect(isinstance(data["entries"], list), "entries", "a list", data["entries"])
    for index, row in enumerate(data["entries"]):
        where = f"entries[{index}]"
        keys_ok = isinstance(row, dict) and set(_ENTRY_REQUIRED) <= set(row) <= set(_ENTRY_FIELDS)
        _expect(keys_ok, where, f"keys {_ENTRY_REQUIRED}, optionally {_ENTRY_OPTIONAL}", row)
        for name in ("ledger", "entry", "size"):
            _expect(_is_int(row[name]), f"{where}.{name}", "an int", row[name])
        for name in ("count", "timestamp"):
            _expect(row[name] is None or _is_int(row[name]), f"{where}.{name}", "an int or null", row[name])
        requeues, accessed = row.get("requeues"), row.get("accessed")
        _expect(requeues is None or _is_int(requeues), f"{where}.requeues", "an int or null", requeues)
        _expect(accessed is None or isinstance(accessed, bool), f"{where}.accessed", "a boolean or null", accessed)
    _expect(_is_int(data["size"]), "size", "an int", data["size"])
    counters = data["counters"]
    ok = isinstance(counters, dict) and set(_COUNTER_FIELDS) <= set(counters) <= _ALL_COUNTERS
    _expect(ok, "counters", f"keys {_COUNTER_FIELDS}, optionally {tuple(sorted(_STATS))}", counters)
    for name, value in counters.items():
        _expect(_is_int(value) or (name in _STATS and value is None), f"counters.{name}", "an int", value)
    _expect(isinstance(data["copies"], list), "copies", "a list", data["copies"])
    for index, pair in enumerate(data["copies"]):
        ok = isinstance(pair, list | tuple) and len(pair) == 2 and _is_int(pair[0])
        _expect(ok and (pair[1] is None or _is_int(pair[1])), f"copies[{index}]", "[id, count or null]", pair)
    raise TypeError("observation: malformed")


def describe_difference(expected: Observation, actual: Observation) -> list[str]:  # noqa: C901, PLR0912 - one line per part of an observation that may differ
    """Human lines naming each field where two observations differ."""
    lines = []
    want, got = expected.by_position(), actual.by_position()
    for pos in sorted(set(want) | set(got)):
        w, g = want.get(pos), got.get(pos)
        if w is None:
            lines.append(f"entry {pos}: not expected, candidate has {_fmt(g)}")
        elif g is None:
            lines.append(f"entry {pos}: expected {_fmt(w)}, candidate does not cache it")
        elif w != g:
            lines.append(f"entry {pos}: expected {_fmt(w)}, candidate has {_fmt(g)}")
    if expected.size != actual.size:
        lines.append(f"size: expected {expected.size}, candidate {actual.size}")
    for name in _TOP_OPTIONAL:
        w, g = getattr(expected, name), getattr(actual, name)
        if w != g:
            lines.append(f"{name}: expected {w}, candidate {g}")
    for field in dataclasses.fields(Counters):
        w, g = getattr(expected.counters, field.name), getattr(actual.counters, field.name)
        if w != g:
            lines.append(f"counter {field.name}: expected {w}, candidate {g}")
    wc, gc = expected.copy_counts(), actual.copy_counts()
    for copy in sorted(set(wc) | set(gc)):
        if copy not in gc:
            lines.append(f"copy {copy}: expected open with count {wc[copy]}, candidate has no such copy")
        elif copy not in wc:
            lines.append(f"copy {copy}: not expected, candidate has it with count {gc[copy]}")
        elif wc[copy] != gc[copy]:
            lines.append(f"copy {copy}: expected count {wc[copy]}, candidate {gc[copy]}")
    return lines


def _fmt(e: CachedEntry | None) -> str:
    if e is None:
        return "nothing"
    shown = f"size={e.size} count={e.count} timestamp={e.timestamp}"
    return shown + "".join(f" {k}={getattr(e, k)}" for k in _ENTRY_OPTIONAL if getattr(e, k) is not None)


def _optional_entry_ok(row: dict[str, Any]) -> bool:
    """A row with some of the optional keys: each an int (requeues) or a boolean (accessed), or null."""
    if not row.keys() <= _ENTRY_KEYS:
        return False
    requeues, accessed = row.get("requeues"), row.get("accessed")
    return (requeues is None or type(requeues) is int) and (accessed is None or type(accessed) is bool)


_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(CachedEntry))
_ENTRY_OPTIONAL = ("requeues", "accessed")
"""Entry fields an adapter sends only if it claims them (observe_requeues, observe_accessed)."""
_ENTRY_REQUIRED = tuple(name for name in _ENTRY_FIELDS if name not in _ENTRY_OPTIONAL)
_ENTRY_KEYS = frozenset(_ENTRY_FIELDS)
_TOP_OPTIONAL = ("queue_length", "non_evictable_size")
"""Observation fields an adapter sends only if it claims them (observe_queue_length, observe_non_evictable_size)."""
_STATS = frozenset({"evictions", "hit_bytes"})
"""Counters a profile may lack and an adapter may not observe (capabilities observe_evictions, observe_hit_bytes)."""
_COUNTER_FIELDS = tuple(f.name for f in dataclasses.fields(Counters) if f.name not in _STATS)
_ALL_COUNTERS = frozenset(f.name for f in dataclasses.fields(Counters))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expect(condition: bool, where: str, what: str, value: Any) -> None:
    if not condition:
        raise TypeError(f"observation field {where}: expected {what}, got {value!r}"[:400])
