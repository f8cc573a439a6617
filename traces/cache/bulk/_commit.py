"""The shadow after some events of a segment: what is carried to the next segment, or shown at a pass end.

Each position, copy and handler the events touched takes the state after its last event there
(``_facts.py`` gives the state before each event, and the event's own effect follows the same rules);
what they did not touch is kept. Closed copies, uncached entries and handlers no entry or open copy
shares are dropped. :func:`commit` carries a whole segment on; :func:`state_after` gives the cache
right after one of its events (a pass's end), without changing what is carried.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import HIT, INSERT, REMOVE, REPLAY, REQUEUE
from ledgerspec.traces.cache.bulk._chunk import Chunk, Ints
from ledgerspec.traces.cache.bulk._facts import Carried, Facts
from ledgerspec.traces.cache.bulk._state import NARROW_ENTRY, NARROW_LEDGER, Copies, Handlers, LiveTable, find


def commit(c: Chunk, facts: Facts, carried: Carried, inexact: Ints) -> None:
    """Update ``carried`` in place to the state after the segment ``c``.

    ``inexact``: keys whose requeue count is a lower bound from now on (``_engine.py``).
    """
    n = len(c)
    table = entries_after(c, facts, carried, n)
    if len(inexact):
        lower, _ = find(np.unique(inexact), table.key)
        table.exact[lower] = False
    carried.copies = copies_after(c, facts, carried, n)
    carried.handlers = handlers_after(c, facts, carried, n, table, carried.copies)
    carried.table = table
    carried.total = facts.total_after
    carried.base += n
    carried.open_pass = facts.open_after


def handlers_at(c: Chunk, facts: Facts, carried: Carried, index: int, table: LiveTable) -> Handlers:
    """The live handlers right after event ``index`` of the segment (``table``: the entries then)."""
    copies = copies_after(c, facts, carried, index + 1)
    return handlers_after(c, facts, carried, index + 1, table, copies)


def collect_passes(c: Chunk, facts: Facts) -> None:
    """Each pass keeps what it removed and requeued, as it was before, for its end."""
    if not facts.passes:
        return
    in_pass = facts.pass_index >= 0
    removed = np.flatnonzero((c.kind == REMOVE) & facts.live & in_pass)
    requeued = np.flatnonzero((c.kind == REQUEUE) & facts.live & in_pass)
    # Passes do not nest, so the pass index never goes down in event order: each pass's events are
    # one run of ``removed`` (and of ``requeued``), found by a binary search per pass.
    passes = np.arange(len(facts.passes) + 1)
    removed_ends = np.searchsorted(facts.pass_index[removed], passes).tolist()
    requeued_ends = np.searchsorted(facts.pass_index[requeued], passes).tolist()
    for index, open_pass in enumerate(facts.passes):
        at = removed[removed_ends[index] : removed_ends[index + 1]]
        if len(at):
            open_pass.removed.append(rows_before(c, facts, at))
            open_pass.counts.append(facts.count[at])
        again = requeued[requeued_ends[index] : requeued_ends[index + 1]]
        if len(again):
            open_pass.requeued.append(rows_before(c, facts, again))
            open_pass.requeued_counts.append(facts.count[again])


def rows_before(c: Chunk, facts: Facts, at: Ints) -> LiveTable:
    """The entries of the events ``at`` as they were just before them."""
    return LiveTable(
        key=facts.key[at],
        ledger=c.ledger[at],
        entry=c.entry[at],
        size=facts.size[at],
        ts=facts.ts[at],
        enter=facts.enter[at],
        handler=facts.handler[at],
        requeues=facts.requeues[at],
        exact=facts.exact[at],
        accessed=facts.accessed[at],
    )


def entries_after(
    c: Chunk, facts: Facts, carried: Carried, limit: int, ledger: int | None = None, below: int | None = None
) -> LiveTable:
    """The cached entries after the first ``limit`` events of a segment (``ledger``'s, before ``below``).

    Either filter is optional. One ledger's positions are one run of keys (``ledger << 32 | entry``), in
    the live table and in the keyed events grouped by key: a pass end asking for one ledger reads only
    that run (only its start, up to ``below``: an invalidation's bound, below which little is cached).
    """
    table = _entries_after(c, facts, carried, limit, ledger, below)
    return table if below is None else table.take(table.entry < below)


def _entries_after(
    c: Chunk, facts: Facts, carried: Carried, limit: int, ledger: int | None, below: int | None
) -> LiveTable:
    span = _ledger_span(facts, carried.table, ledger, below)
    if span is not None:
        (first, stop), (row, row_stop) = span
        last = facts.keyed.last_before(limit, facts.key, within=(first, stop))
        table = carried.table.take(slice(row, row_stop))
    else:
        among = None if ledger is None else c.ledger == ledger
        last = facts.keyed.last_before(limit, facts.key, among)
        table = carried.table if ledger is None else carried.table.take(carried.table.ledger == ledger)
    if not len(last):
        return table
    kind, live = c.kind[last], facts.live[last]
    inserted = kind == INSERT
    requeued = (kind == REQUEUE) & live
    stamped = inserted | requeued
    live_after = np.where(inserted, True, np.where(kind == REMOVE, False, live))
    ranks = carried.base + last
    handlers = facts.created
    pass_ranks = np.array([p.rank for p in facts.passes] + [0], np.int64)[facts.pass_index[last]]
    requeue_rank = np.where(facts.pass_index[last] >= 0, pass_ranks, ranks)
    rows = LiveTable(
        key=facts.key[last],
        ledger=c.ledger[last],
        entry=c.entry[last],
        size=np.where(inserted, c.size[last], facts.size[last]),
        ts=np.where(stamped, c.timestamp[last], facts.ts[last]),
        enter=np.where(inserted, ranks, np.where(requeued, requeue_rank, facts.enter[last])),
        handler=np.where(inserted, handlers[last], facts.handler[last]),
        requeues=np.where(inserted, 0, facts.requeues[last] + requeued),
        exact=np.where(inserted, True, facts.exact[last]),
        accessed=np.where(stamped, False, facts.accessed[last] | ((kind == HIT) & live)),
    ).take(live_after)
    return table.updated(facts.key[last], rows)


def _ledger_span(
    facts: Facts, table: LiveTable, ledger: int | None, below: int | None = None
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(keyed events, live rows): the runs of ``ledger``'s keys (before ``below``), in group order and in the table.

    None when its keys are not one run (no ledger given, or positions too wide for a key of their own).
    """
    if ledger is None or not 0 <= ledger < NARROW_LEDGER:
        return None
    keys = facts.keyed_keys()
    if (len(keys) and keys[0] < 0) or (len(table) and table.key[0] < 0):
        return None  # wide positions (negative ids) may belong to the ledger
    low = ledger << 32
    high = low | below if below is not None and 0 <= below < NARROW_ENTRY else (ledger + 1) << 32
    first, stop = np.searchsorted(keys, (low, high)).tolist()
    row, row_stop = np.searchsorted(table.key, (low, high)).tolist()
    return (first, stop), (row, row_stop)


def copies_after(c: Chunk, facts: Facts, carried: Carried, limit: int) -> Copies:
    """The open copies after the first ``limit`` events: hits open them, releases close them."""
    events = facts.copied.events
    events = events[(events < limit) & (c.kind[events] != REPLAY)]  # hits open copies, releases close them
    if not len(events):
        return carried.copies
    groups = c.copy[events]
    ends = np.ones(len(events), np.bool_)
    ends[:-1] = groups[1:] != groups[:-1]
    last = events[ends]
    opened = c.kind[last] == HIT
    return carried.copies.updated(c.copy[last], c.copy[last][opened], facts.copy_handler[last][opened])


def handlers_after(c: Chunk, facts: Facts, carried: Carried, limit: int, table: LiveTable, copies: Copies) -> Handlers:
    """The handlers ``table``'s entries and the open ``copies`` share, after the first ``limit`` events."""
    referenced = np.concatenate((table.handler, copies.handler))
    events = facts.handled.events
    kept = events < limit
    if not kept.any():
        return carried.handlers.updated(Handlers.empty(), referenced)
    firsts = events[facts.handled.start]  # the first event of each one's group
    events, firsts = events[kept], firsts[kept]
    groups = facts.touched[events]
    ends = np.ones(len(events), np.bool_)
    ends[:-1] = groups[1:] != groups[:-1]
    last, first = events[ends], firsts[ends]
    hid = facts.touched[last]
    found, row = find(carried.handlers.hid, hid)
    if len(carried.handlers.hid):
        ledger = np.where(found, carried.handlers.ledger[row], c.ledger[first])
        entry = np.where(found, carried.handlers.entry[row], c.entry[first])
    else:
        ledger, entry = c.ledger[first], c.entry[first]
    return carried.handlers.updated(Handlers(hid, facts.after[last], ledger, entry), referenced)


__all__ = ["collect_passes", "commit", "copies_after", "entries_after", "handlers_after", "handlers_at", "rows_before"]
