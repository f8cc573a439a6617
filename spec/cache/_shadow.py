"""The shadow: what the cache held just before each event, followed one event at a time in plain Python.

This is the state the normative checks read (``_normative.py``). It follows the events (what the
candidate did), not the profile: an insert caches its position (replacing a cached one), a removal of
a cached position uncaches it, a requeue of a cached entry restamps it and moves it to the queue's
tail, a read of a cached entry marks it accessed and opens a copy sharing its handler. A handler's
count follows the profile's rule for each event (-1 per release, +1 per replay increment, +n per
merge, pulsar-master's -1 per removal, pip430's EVICTED on a forced removal, final) and takes the
count an event shows whenever it shows one. Events the cache could not have done (a removal of an
uncached position, a requeue of one) change nothing here; the checks report them.

Queue ranks (``enter``): an insert enters at its index among the broker's events; every requeue of
one pass enters at the pass's rank (the index of its ``pass_start``), so entries requeued by one pass
tie: from outside, several requeues of one entry within a pass look like one and their order is
unknown, so the tie is what can be known.

The trace checkers compute the same facts in bulk (the replay's accelerators); the differential
tests hold them equal.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from ledgerspec.spec._errors import ConfigError
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._events import CONFIG_FIELDS, KINDS, PASS_KINDS
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.spec.cache._records import (
    FORCED,
    SIZE_LIKE,
    TTL_LIKE,
    At,
    Cached,
    CountDifference,
    Event,
    Pass,
    Position,
)

if TYPE_CHECKING:
    from ledgerspec.spec.cache._observation import Observation

_ON_ENTRY = frozenset({"insert_refused", "merge", "hit", "remove", "mark_evicted", "requeue", "stash"})
_KEYED = _ON_ENTRY | {"insert", "miss"}
_INT_CONFIG = frozenset({"max_size", "ttl", "ttl_max", "max_requeue"})


class StructureError(Exception):
    """Events that do not form a well-bracketed trace (a removal outside a pass, nested passes)."""


class Shadow:
    """The cache one broker's events describe, as they happen (see the module docstring)."""

    def __init__(self, profile: str, config: CacheConfig) -> None:
        self.profile = profile
        self.config = config
        self.enabled: bool = config.max_size > 0
        self.entries: dict[Position, Cached] = {}
        self.handlers: dict[int, int | None] = {}
        """Handler id -> its count (None: not known)."""
        self.made_for: dict[int, Position] = {}
        self.copies: dict[int, int] = {}
        """Open copy -> the handler it shares (-1: none)."""
        self.cursors: dict[int, dict[str, int]] = {}
        """Active cursors: ledger -> name -> read position."""
        self.total = 0
        self.index = 0
        self.open_pass: Pass | None = None
        self.last_pass: Pass | None = None
        self.shown: set[int] = set()
        """Handlers whose count an event showed since :meth:`forget_shown`."""
        self._requeued: list[Cached] = []
        self._pending: CacheConfig | None = None
        self._counts = profile in ("pip430", "pulsar-master")

    # --- queries ---------------------------------------------------------------------------------------

    def queue(self) -> list[Cached]:
        """The cached entries in queue order (entries requeued by one pass tie; then by position)."""
        return sorted(self.entries.values(), key=lambda e: (e.enter, e.ledger, e.entry))

    def cached_in(self, ledger: int, below: int | None = None) -> list[Cached]:
        """The entries of one ledger cached now (before ``below`` if given), by position."""
        found = [e for e in self.entries.values() if e.ledger == ledger and (below is None or e.entry < below)]
        return sorted(found, key=lambda e: e.entry)

    def count_of(self, entry: Cached) -> int | None:
        """The count of an entry's handler (None: no handler, or not known)."""
        return self.handlers.get(entry.handler) if entry.handler >= 0 else None

    def open_copies(self, handler: int) -> list[int]:
        """The open copies sharing ``handler``, in dispatch order."""
        return [copy for copy, owner in self.copies.items() if owner == handler]

    def handler_position(self, handler: int) -> Position:
        """The position a handler was made for."""
        return self.made_for[handler]

    def slowest(self, ledger: int) -> int | None:
        """The least read position of a ledger's active cursors (None: none active)."""
        return min(self.cursors.get(ledger, {}).values(), default=None)

    # --- one event -------------------------------------------------------------------------------------

    def apply(self, event: Event) -> At:
        """Take one event: its facts before it, then the shadow after it."""
        if self._pending is not None:
            self.config, self._pending = self._pending, None
        kind = event.kind
        in_pass = self._bracket(event)
        at = At(event, self.index, None, self.total, in_pass)
        if kind in _KEYED:
            self._keyed(at)
        elif kind in ("release", "replay_increment"):
            self._copy(at)
        elif kind in ("cursor_add", "cursor_seek", "cursor_remove", "cursor_count", "cursor_read", "append"):
            self._cursor(at)
        elif kind == "pass_start" and event.cursor is not None and event.ledger is not None:
            at.slowest = self.slowest(event.ledger)
        elif kind == "pass_end":
            self._end_pass()
        elif kind == "config":
            self._configure(event)
        self.index += 1
        return at

    def _bracket(self, event: Event) -> Pass | None:
        kind, current = event.kind, self.open_pass
        if kind == "pass_start":
            name = event.reason or "?"
            if current is not None:
                raise StructureError(f"a {name} pass starts inside another pass")
            if name in ("invalidate", "range") and event.ledger is None:
                raise StructureError(f"an {name} pass needs the ledger")
            value = None if event.value is None or math.isnan(event.value) else int(event.value)
            started = Pass(
                name, event.time, self.index, event.size or 0, event.ledger, event.entry, value, event.cursor
            )
            self.open_pass = started
            return started
        if kind == "pass_end":
            name = event.reason or "?"
            if current is None or current.kind != name:
                raise StructureError(f"a {name} pass ends, but none of that kind is open")
            current.after = event.size or 0
            return current
        if kind == "remove" and (current is None or current.kind != event.reason):
            where = "outside a pass" if current is None else f"inside a {current.kind} pass"
            raise StructureError(f"remove with reason {event.reason!r} {where}")
        return current

    def _keyed(self, at: At) -> None:  # noqa: C901 - one branch per event kind that names a position
        event, kind = at.event, at.event.kind
        position = event.position
        entry = self.entries.get(position)
        at.cached = None if entry is None else replace(entry)
        if kind in _ON_ENTRY and entry is not None and entry.handler >= 0:
            self._count(at, entry.handler)
        if kind == "insert":
            handler = self._new_handler(event)
            if entry is not None:
                self.total -= entry.size
            self.total += event.size or 0
            self.entries[position] = Cached(
                position[0], position[1], event.size or 0, event.timestamp, at.index, handler
            )
            if handler >= 0:
                self.made_for[handler] = position
                self._count(at, handler, creates=True)
        elif kind == "hit":
            self.copies[event.copy if event.copy is not None else -1] = -1 if entry is None else entry.handler
            if entry is not None:
                entry.accessed = True
        elif entry is None:
            return
        elif kind == "remove":
            del self.entries[position]
            self.total -= entry.size
            if at.in_pass is not None:
                at.in_pass.removed.append((at.cached, at.count))  # type: ignore[arg-type]
        elif kind == "requeue":
            entry.timestamp = event.timestamp
            entry.enter = at.in_pass.rank if at.in_pass is not None else at.index
            entry.requeues += 1
            entry.accessed = False
            if at.in_pass is not None:
                at.in_pass.requeued.append((at.cached, at.count))  # type: ignore[arg-type]
                self._requeued.append(entry)

    def _new_handler(self, event: Event) -> int:
        """The handler an insert makes (-1: none).

        pulsar-master: for a count > 0; pip430: unless the insert shows neither a count nor the reads
        it asked for; other profiles: none.
        """
        if self.profile == "pip430":
            return self.index if event.count is not None or event.value is not None else -1
        if self.profile == "pulsar-master":
            return self.index if event.count is not None and event.count > 0 else -1
        return -1

    def _copy(self, at: At) -> None:
        copy = at.event.copy if at.event.copy is not None else -1
        at.copy_open = copy in self.copies
        at.copy_handler = self.copies.get(copy, -1)
        if at.copy_open and at.copy_handler >= 0:
            self._count(at, at.copy_handler)
        if at.event.kind == "release":
            self.copies.pop(copy, None)

    def _count(self, at: At, handler: int, *, creates: bool = False) -> None:
        """The handler's count before and after the event (pip430 and pulsar-master keep counts)."""
        if not self._counts:
            return
        event, kind = at.event, at.event.kind
        shown = None if kind == "insert_refused" else event.count
        at.handler = handler
        if creates:
            initial = (0 if event.count is None else event.count) if self.profile == "pip430" else event.count
            at.count, at.expected = None, initial
        else:
            current = self.handlers.get(handler)
            forced = at.in_pass is not None and at.in_pass.kind in FORCED
            sets_evicted = self.profile == "pip430" and kind in ("remove", "mark_evicted") and forced
            frozen = self.profile == "pip430" and current == EVICTED
            at.count = current
            if sets_evicted or frozen:
                at.expected = EVICTED
            elif current is None:
                at.expected = None
            else:
                at.expected = current + self._delta(event)
        at.after = shown if shown is not None else at.expected
        self.handlers[handler] = at.after
        if shown is not None:
            self.shown.add(handler)

    def _delta(self, event: Event) -> int:
        kind = event.kind
        if kind == "release":
            return -1
        if kind == "replay_increment":
            return 1
        if kind == "merge":
            value = event.value
            return 0 if value is None or math.isnan(value) else int(value)
        if kind == "remove" and self.profile == "pulsar-master":
            return -1
        return 0

    def _cursor(self, at: At) -> None:
        event, kind = at.event, at.event.kind
        ledger = event.ledger if event.ledger is not None else -1
        cursors = self.cursors.setdefault(ledger, {})
        name = event.cursor or ""
        if kind in ("cursor_add", "cursor_seek"):
            cursors[name] = event.entry if event.entry is not None else -1
        elif kind == "cursor_remove":
            at.cursor_count = int(cursors.pop(name, None) is not None)
        elif kind in ("cursor_count", "cursor_read"):
            where = cursors.get(name)
            at.cursor_count = 0 if where is None else sum(p <= where for p in cursors.values())
        else:  # append
            at.cursor_count = len(cursors)
        at.slowest = min(cursors.values(), default=None)

    def _end_pass(self) -> None:
        ended = self.open_pass
        assert ended is not None, "bracketed"
        self.open_pass, self.last_pass = None, ended
        requeued, self._requeued = self._requeued, []
        if self.profile != "pulsar-master" or ended.kind not in SIZE_LIKE or not requeued:
            return
        head = min((e.enter for e in self.entries.values()), default=None)
        if head is None or head >= ended.rank:  # it reached every entry: it may have gone round the queue
            for entry in requeued:
                if self.entries.get(entry.position) is entry:
                    entry.exact = False

    def _configure(self, event: Event) -> None:
        name, value = event.reason, event.value
        if name is None or name not in CONFIG_FIELDS or value is None:
            return
        config = self.config
        try:  # in force from the next event: the configuration event itself is judged under the old one
            if name in ("extend_ttl", "track_reads"):
                self._pending = config.replace(**{name: bool(value)})
            elif name in _INT_CONFIG:
                self._pending = config.replace(**{name: int(value)})
            else:
                self._pending = config.replace(**{name: value})
        except ConfigError as error:  # a value valid alone, not with the fields already set
            raise StructureError(str(error)) from None

    # --- after an observed step (conformance) ----------------------------------------------------------

    def settle(self) -> None:
        """Put a configuration event's value in force now (the end of an observed step)."""
        if self._pending is not None:
            self.config, self._pending = self._pending, None

    def forget_shown(self) -> None:
        """Start a new step: no handler's count shown yet."""
        self.shown = set()

    def count_differences(
        self, seen: Observation, copy_positions: dict[int, Position], made_from: int
    ) -> list[CountDifference]:
        """Counts an observation shows that differ from the shadow's, on handlers no event of the step showed.

        Events show a handler's count where they can (a release, a removal seen through a copy); an
        observation shows every entry's and every open copy's. A handler made by the step (its id at or
        after ``made_from``) is judged by its insert. ``copy_positions``: where each open copy was read.
        """
        members = [(f"entry {e.position}", e.position, self._handler_at(e.position), e.count) for e in seen.entries]
        members += [
            (f"copy {copy}", copy_positions.get(copy, (-1, -1)), self.copies.get(copy), count)
            for copy, count in seen.copies
        ]
        differences = []
        for member, position, handler, observed in members:
            if handler is None or handler in self.shown or handler >= made_from:
                continue
            expected = self.handlers.get(handler) if handler >= 0 else None
            if observed != expected:
                owner = self.made_for.get(handler, position)
                differences.append(CountDifference(member, owner, observed, expected))
        return differences

    def resync(self, seen: Observation) -> None:
        """Take the counts an observation shows as the shadow's (the monitor, after each step)."""
        updates: dict[int, int | None] = {}
        for entry in seen.entries:
            handler = self._handler_at(entry.position)
            if handler is not None and handler >= 0:
                updates[handler] = entry.count
        for copy, count in seen.copies:
            handler = self.copies.get(copy, -1)
            if handler >= 0:
                updates.setdefault(handler, count)
        self.handlers.update(updates)

    def _handler_at(self, position: Position) -> int | None:
        entry = self.entries.get(position)
        return None if entry is None else entry.handler


assert set(PASS_KINDS) == {*SIZE_LIKE, *TTL_LIKE, *FORCED}, "every pass kind has a family"
assert set(KINDS) >= _KEYED, "keyed kinds are event kinds"

__all__ = [
    "FORCED",
    "SIZE_LIKE",
    "TTL_LIKE",
    "At",
    "Cached",
    "CountDifference",
    "Event",
    "Pass",
    "Position",
    "Shadow",
    "StructureError",
]
