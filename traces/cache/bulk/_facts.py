"""The facts of a segment of events: for every event, what the cache held just before it.

This is the shadow the checks read. It follows the events (what the candidate did), not the profile:
an insert caches its position (replacing a cached one), a removal of a cached position uncaches it,
a requeue of a cached entry restamps it and moves it to the queue's tail, a read of a cached entry
marks it accessed and opens a copy sharing its handler. A handler's count follows the profile's rule
for each event (-1 per release, +1 per replay increment, +n per merge, the removal's effect, EVICTED
final in pip430) and takes the count an event shows whenever it shows one, as the monitor takes what
it observes. Events the cache could not have done (a removal of an uncached position, a requeue of
one) change nothing here; the checks report them.

Queue ranks (``enter``): an insert enters at its global event index; every requeue of one pass
enters at the pass's rank (the index of its ``pass_start``), so entries requeued by one pass tie.
From outside, several requeues of one entry within a pass look like one and their order is unknown
(the pass may go round the queue), so the tie is what can be known; it orders them after everything
that entered before the pass and before everything that enters after it.

Everything is computed per segment with numpy (``_groups.py``), in time linear in the segment and the
live tables, whatever the number of events per position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._events import (
    FORCED,
    HIT,
    INSERT,
    INVALIDATE_PASS,
    MARK_EVICTED,
    MERGE,
    MISS,
    PASS_END,
    PASS_KINDS,
    PASS_START,
    RANGE_PASS,
    REFUSED,
    RELEASE,
    REMOVE,
    REPLAY,
    REQUEUE,
    STASH,
)
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.traces.cache.bulk._chunk import NULL, Bools, Chunk, Ints
from ledgerspec.traces.cache.bulk._groups import Grouping, exclusive_sum, last_before, pick
from ledgerspec.traces.cache.bulk._state import Copies, Handlers, LiveTable, find

KEYED = (INSERT, REFUSED, MERGE, HIT, MISS, MARK_EVICTED, REMOVE, REQUEUE, STASH)
"""Kinds that name a position (insert, insert_refused, merge, hit, miss, mark_evicted, remove, requeue, stash)."""
COPY_KINDS = (HIT, RELEASE, REPLAY)


class StructureError(Exception):
    """Events that do not form a well-bracketed trace (a removal outside a pass, nested passes)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


@dataclass
class Flavour:
    """The profile's rules the shadow needs: who gets a handler, what a removal does to its count."""

    profile: str

    @property
    def pip430(self) -> bool:
        return self.profile == "pip430"

    @property
    def master(self) -> bool:
        return self.profile == "pulsar-master"


@dataclass
class OpenPass:
    """A pass whose ``pass_start`` was seen and whose ``pass_end`` was not yet."""

    kind: int
    now: int
    rank: int
    before: int
    total_before: int
    ledger: int
    entry: int
    value: int = NULL
    """The target the operation gave the pass (``bytes``, ``cutoff``, ``range``: see ``_events.PASS_KINDS``)."""
    removed: list[LiveTable] = field(default_factory=list)
    """The entries it removed so far, as they were (``count`` holds their handler's count before)."""
    counts: list[Ints] = field(default_factory=list)
    requeued: list[LiveTable] = field(default_factory=list)
    """The entries it requeued, as they were before (``requeued_counts``: their counts)."""
    requeued_counts: list[Ints] = field(default_factory=list)


@dataclass
class Carried:
    """The shadow between segments (see ``_state.py``), and the position in the broker's events."""

    config: CacheConfig
    table: LiveTable = field(default_factory=LiveTable.empty)
    handlers: Handlers = field(default_factory=Handlers.empty)
    copies: Copies = field(default_factory=Copies.empty)
    total: int = 0
    base: int = 0
    open_pass: OpenPass | None = None
    cursors: dict[int, dict[str, int]] = field(default_factory=dict)
    """Active cursors: ledger -> cursor -> read position."""


@dataclass
class Facts:
    """Per event of the segment (arrays of its length), the shadow just before the event."""

    key: Ints
    live: Bools
    """The event's position was cached."""
    size: Ints
    ts: Ints
    enter: Ints
    enter_of: Ints
    """Inserts and requeues: the queue rank the entry takes with this event."""
    handler: Ints
    requeues: Ints
    exact: Bools
    accessed: Bools
    copy_open: Bools
    """Release and replay: the copy was open."""
    copy_handler: Ints
    touched: Ints
    """The handler the event reads or changes (-1: none)."""
    count: Ints
    """That handler's count before the event (NULL without one)."""
    expected: Ints
    """The count the profile's rule gives after the event (NULL without a handler)."""
    after: Ints
    """The count after the event: the one it shows, else :attr:`expected`."""
    shown: Ints
    """The handler's count the event shows (NULL: none; a refused insert's count is not one)."""
    total: Ints
    """The total size of the cached entries before the event."""
    pass_index: Ints
    """Index into :attr:`passes` of the pass the event is in (-1: none)."""
    passes: list[OpenPass]
    open_after: OpenPass | None
    """The pass still open after the segment's last event."""
    keyed: Grouping = field(default_factory=Grouping.none)
    """The events naming a position, grouped by it."""
    copied: Grouping = field(default_factory=Grouping.none)
    """Hits, releases and replay increments, grouped by copy."""
    handled: Grouping = field(default_factory=Grouping.none)
    """The events that read or change a handler, grouped by it."""
    kinds: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    """The segment's event kinds (the chunk's)."""
    total_after: int = 0
    """The total size after the segment's last event."""
    base: int = 0
    """The broker-wide index of the segment's first event (a handler's id is its insert's index)."""
    created: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    """Inserts: the handler they make (its id; -1: none)."""
    initial: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    """Inserts: that handler's first count."""
    _keyed_keys: Ints | None = None

    def keyed_keys(self) -> Ints:
        """The keys of :attr:`keyed`'s events, in its order (sorted)."""
        if self._keyed_keys is None:
            self._keyed_keys = self.key[self.keyed.events]
        return self._keyed_keys


def pass_context(c: Chunk, carried: Carried, ranks: Ints) -> tuple[Ints, list[OpenPass], OpenPass | None]:
    """Which pass each event is in; raises :class:`StructureError` at the first badly bracketed event.

    Nested or unmatched passes, and a removal outside a pass or in a pass of another kind.
    """
    n = len(c)
    where = np.full(n, -1, np.int64)
    passes: list[OpenPass] = []
    current = carried.open_pass
    if current is not None:
        passes.append(current)
    start, problem = 0, None
    for i in np.flatnonzero((c.kind == PASS_START) | (c.kind == PASS_END)).tolist():
        reason = int(c.reason[i])
        name = PASS_KINDS[reason] if 0 <= reason < len(PASS_KINDS) else "?"
        if c.kind[i] == PASS_START:
            if current is not None:
                problem = StructureError(i, f"a {name} pass starts inside another pass")
            elif reason in (INVALIDATE_PASS, RANGE_PASS) and c.ledger[i] == NULL:
                problem = StructureError(i, f"an {name} pass needs the ledger")
            else:
                where[start:i] = -1
                current = OpenPass(
                    reason, int(c.time[i]), int(ranks[i]), int(c.size[i]), 0, int(c.ledger[i]), int(c.entry[i])
                )
                if not np.isnan(c.value[i]):
                    current.value = int(c.value[i])
                passes.append(current)
                start = i
        elif current is None or current.kind != reason:
            problem = StructureError(i, f"a {name} pass ends, but none of that kind is open")
        else:
            where[start : i + 1] = len(passes) - 1
            current = None
            start = i + 1
        if problem is not None:
            where[start:i] = len(passes) - 1 if current is not None else -1
            _check_removals(c, where[:i], passes)
            raise problem
    where[start:] = len(passes) - 1 if current is not None else -1
    _check_removals(c, where, passes)
    return where, passes, current


def _check_removals(c: Chunk, where: Ints, passes: list[OpenPass]) -> None:
    """A removal must be inside a pass of its reason (events ``0:len(where)``)."""
    kinds = np.array([p.kind for p in passes] + [-1], np.int64)[where]
    removes = c.kind[: len(where)] == REMOVE
    for i in np.flatnonzero(removes & ((where < 0) | (kinds != c.reason[: len(where)]))).tolist()[:1]:
        name = PASS_KINDS[c.reason[i]]
        where_text = "outside a pass" if kinds[i] < 0 else f"inside a {PASS_KINDS[kinds[i]]} pass"
        raise StructureError(i, f"remove with reason {name!r} {where_text}")


def compute(c: Chunk, keys: Ints, carried: Carried, flavour: Flavour) -> Facts:
    """The facts of one segment ``c`` (keys: the position key of each event, NULL if none)."""
    n = len(c)
    ranks = carried.base + np.arange(n, dtype=np.int64)
    pass_index, passes, open_after = pass_context(c, carried, ranks)
    pass_kind = np.array([p.kind for p in passes] + [-1], np.int64)[pass_index]
    pass_rank = np.array([p.rank for p in passes] + [-1], np.int64)[pass_index]
    facts = Facts(
        key=keys,
        live=np.zeros(n, np.bool_),
        size=np.zeros(n, np.int64),
        ts=np.full(n, NULL, np.int64),
        enter=np.zeros(n, np.int64),
        enter_of=np.zeros(n, np.int64),
        handler=np.full(n, -1, np.int64),
        requeues=np.zeros(n, np.int64),
        exact=np.ones(n, np.bool_),
        accessed=np.zeros(n, np.bool_),
        copy_open=np.zeros(n, np.bool_),
        copy_handler=np.full(n, -1, np.int64),
        touched=np.full(n, -1, np.int64),
        count=np.full(n, NULL, np.int64),
        expected=np.full(n, NULL, np.int64),
        after=np.full(n, NULL, np.int64),
        shown=np.full(n, NULL, np.int64),
        total=np.zeros(n, np.int64),
        pass_index=pass_index,
        passes=passes,
        open_after=open_after,
        kinds=c.kind,
        base=carried.base,
    )
    facts.created, facts.initial = new_handler(c, flavour, ranks)
    _key_facts(c, facts, carried, ranks, np.where(pass_rank >= 0, pass_rank, ranks))
    _copy_facts(c, facts, carried)
    _count_facts(c, facts, carried, flavour, pass_kind)
    inserted = c.kind == INSERT
    removed = (c.kind == REMOVE) & facts.live
    delta = np.where(inserted, c.size - np.where(facts.live, facts.size, 0), 0) - np.where(removed, facts.size, 0)
    facts.total = carried.total + exclusive_sum(delta)
    facts.total_after = int(carried.total + delta.sum())
    return facts


def new_handler(c: Chunk, flavour: Flavour, ranks: Ints) -> tuple[Ints, Ints]:
    """(handler id or -1, initial count) an insert event creates.

    pulsar-master: for counts > 0; pip430: unless the entry was created without one (the event shows
    neither a count nor the reads it asked for).
    """
    if flavour.pip430:
        has = (c.count != NULL) | (c.value == c.value)
        return np.where(has, ranks, -1), np.where(c.count == NULL, 0, c.count)
    if flavour.master:
        has = (c.count != NULL) & (c.count > 0)
        return np.where(has, ranks, -1), c.count
    return np.full(len(c), -1, np.int64), c.count


def _key_facts(c: Chunk, facts: Facts, carried: Carried, ranks: Ints, requeue_rank: Ints) -> None:
    """The state of each keyed event's position before it (see the module docstring)."""
    at = np.flatnonzero(c.of_kinds(*KEYED))
    facts.keyed = Grouping.of(at, facts.key[at])
    if not len(at):
        return
    start, ev = facts.keyed.start, facts.keyed.events
    kind, key = c.kind[ev], facts.key[ev]
    c_live, c_size, c_ts, c_enter, c_handler, c_requeues, c_exact, c_accessed = _carried_rows(carried.table, key)
    inserted = kind == INSERT
    last_live_change = last_before(inserted | (kind == REMOVE), start)
    live = np.where(last_live_change >= 0, inserted[np.maximum(last_live_change, 0)], c_live)
    valid_requeue = (kind == REQUEUE) & live
    valid_hit = (kind == HIT) & live
    stamps = inserted | valid_requeue
    last_insert = last_before(inserted, start)
    last_stamp = last_before(stamps, start)
    last_hit = last_before(valid_hit, start)
    handlers = facts.created
    enter_of = np.where(inserted, ranks[ev], requeue_rank[ev])
    requeues_so_far = exclusive_sum(valid_requeue.astype(np.int64))
    since_insert = requeues_so_far - requeues_so_far[np.maximum(last_insert, 0)]
    since_start = requeues_so_far - requeues_so_far[start]

    facts.live[ev] = live
    facts.enter_of[ev] = enter_of
    facts.size[ev] = pick(c.size[ev], last_insert, c_size)
    facts.ts[ev] = pick(c.timestamp[ev], last_stamp, c_ts)
    facts.enter[ev] = pick(enter_of, last_stamp, c_enter)
    facts.handler[ev] = pick(handlers[ev], last_insert, c_handler)
    facts.requeues[ev] = np.where(last_insert >= 0, since_insert, c_requeues + since_start)
    facts.exact[ev] = np.where(last_insert >= 0, True, c_exact)
    facts.accessed[ev] = np.where(last_stamp >= 0, last_hit > last_stamp, c_accessed | (last_hit >= 0))


def mark_inexact(facts: Facts, requeued: Bools, ends: Ints, earlier: Sequence[tuple[Ints, int]] = ()) -> None:
    """After a pass's end, the requeue counts of the entries it requeued (``requeued``) are lower bounds.

    Marks the keyed events after that end, up to the entry's next insert (``ends``: the segment's
    ``pass_end`` events). ``earlier``: (keys, index of the pass's end) for what a pass ending in this
    segment requeued in earlier ones.
    """
    kinds = facts.kinds
    if not len(facts.keyed.at) or not (requeued.any() or earlier):
        return
    pass_end = np.full(len(facts.passes) + 1, np.iinfo(np.int64).max, np.int64)
    pass_end[facts.pass_index[ends]] = ends
    start, ev = facts.keyed.start, facts.keyed.events
    last_requeue = last_before(requeued[ev], start)
    last_insert = last_before(kinds[ev] == INSERT, start)
    seen_end = pass_end[facts.pass_index[ev[np.maximum(last_requeue, 0)]]]
    tainted = (last_requeue >= 0) & (last_requeue > last_insert) & (seen_end < ev)
    inserted_at = np.where(last_insert >= 0, ev[np.maximum(last_insert, 0)], -1)
    for keys, end in earlier:
        tainted |= np.isin(facts.key[ev], keys) & (ev > end) & (inserted_at < end)
    facts.exact[ev[tainted]] = False


def _carried_rows(table: LiveTable, key: Ints) -> tuple[Bools, Ints, Ints, Ints, Ints, Ints, Bools, Bools]:
    """The carried state of each position (defaults where it is not cached)."""
    found, row = find(table.key, key)
    if not len(table):
        zero = np.zeros(len(key), np.int64)
        return found, zero, zero + NULL, zero, zero - 1, zero, np.ones(len(key), np.bool_), found
    return (
        found,
        table.size[row],
        table.ts[row],
        table.enter[row],
        np.where(found, table.handler[row], -1),
        table.requeues[row],
        np.where(found, table.exact[row], True),
        found & table.accessed[row],
    )


def _copy_facts(c: Chunk, facts: Facts, carried: Carried) -> None:
    """Release and replay: whether the copy was open and which handler it shares."""
    at = np.flatnonzero(c.of_kinds(*COPY_KINDS))
    facts.copied = Grouping.of(at, c.copy[at])
    if not len(at):
        return
    start, ev = facts.copied.start, facts.copied.events
    kind = c.kind[ev]
    found, row = find(carried.copies.copy, c.copy[ev])
    c_handler = np.where(found, carried.copies.handler[row], -1) if len(carried.copies.copy) else -1
    hit_handler = np.where(facts.live[ev], facts.handler[ev], -1)
    last = last_before((kind == HIT) | (kind == RELEASE), start)
    opened = kind[np.maximum(last, 0)] == HIT
    facts.copy_open[ev] = np.where(last >= 0, opened, found)
    facts.copy_handler[ev] = np.where(kind == HIT, hit_handler, pick(hit_handler, last, c_handler))
    facts.copy_handler[ev] = np.where(facts.copy_open[ev] | (kind == HIT), facts.copy_handler[ev], -1)


def _count_facts(c: Chunk, facts: Facts, carried: Carried, flavour: Flavour, pass_kind: Ints) -> None:
    """Each handler's count before and after every event that reads or changes it."""
    if not (flavour.pip430 or flavour.master):
        return
    created, initial = facts.created, facts.initial
    kind = c.kind
    on_entry = c.of_kinds(REFUSED, MERGE, HIT, REMOVE, MARK_EVICTED, REQUEUE, STASH) & facts.live & (facts.handler >= 0)
    on_copy = c.of_kinds(RELEASE, REPLAY) & facts.copy_open & (facts.copy_handler >= 0)
    creates = (kind == INSERT) & (created >= 0)
    touched = np.where(creates, created, np.where(on_entry, facts.handler, np.where(on_copy, facts.copy_handler, -1)))
    facts.touched = touched
    at = np.flatnonzero(touched >= 0)
    if not len(at):
        return
    shown = np.where(kind == REFUSED, NULL, c.count)  # a refused insert's count is the reads it carried
    facts.shown = shown
    facts.handled = Grouping.of(at, touched[at])
    start, ev = facts.handled.start, facts.handled.events
    # Everything below is per touched event, in group order (``ev``), never over the whole segment.
    kind_ev, shown_ev, creates_ev = kind[ev], shown[ev], creates[ev]
    delta = np.zeros(len(ev), np.int64)
    delta[kind_ev == RELEASE] = -1
    delta[kind_ev == REPLAY] = 1
    merged = kind_ev == MERGE
    delta[merged] = np.nan_to_num(c.value[ev[merged]]).astype(np.int64)
    if flavour.master:
        delta[kind_ev == REMOVE] = -1
        sets_evicted = np.zeros(len(ev), np.bool_)
    else:
        forced = _FORCED[pass_kind[ev]]
        sets_evicted = ((kind_ev == REMOVE) | (kind_ev == MARK_EVICTED)) & forced
    anchor = creates_ev | sets_evicted | (shown_ev != NULL)

    found, row = find(carried.handlers.hid, touched[ev])
    carried_count = np.where(found, carried.handlers.count[row], 0) if len(carried.handlers.hid) else 0
    last_anchor = last_before(anchor, start)
    steps = np.where(anchor, 0, delta)
    running = exclusive_sum(steps)
    base_index = np.where(last_anchor >= 0, last_anchor, start)
    moved = running - running[base_index]  # the anchor's own step is 0
    # ``after`` of an anchor: what it shows, else what it sets.
    initial_ev = initial[ev]
    set_value = np.where(creates_ev, initial_ev, EVICTED)
    anchor_after = np.where(shown_ev != NULL, shown_ev, set_value)
    base = pick(anchor_after, last_anchor, carried_count)
    frozen = (base == EVICTED) if flavour.pip430 else np.zeros(len(ev), np.bool_)
    unknown = base == NULL  # a count no one has seen (the monitor saw no count on the entry)
    before = np.where(frozen, EVICTED, np.where(unknown, NULL, base + moved))
    before = np.where(creates_ev, NULL, before)
    expected = np.where(frozen & ~sets_evicted, EVICTED, np.where(unknown, NULL, before + delta))
    expected = np.where(sets_evicted, EVICTED, expected)
    expected = np.where(creates_ev, initial_ev, expected)
    facts.count[ev] = before
    facts.expected[ev] = expected
    facts.after[ev] = np.where(shown_ev != NULL, shown_ev, expected)


_FORCED = np.zeros(len(PASS_KINDS) + 1, np.bool_)
_FORCED[list(FORCED)] = True
"""Per pass kind (the last slot: no pass, index -1), whether its removals are forced."""


__all__ = [
    "Carried",
    "Facts",
    "Flavour",
    "OpenPass",
    "StructureError",
    "compute",
    "mark_inexact",
    "new_handler",
    "pass_context",
]
