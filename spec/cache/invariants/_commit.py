"""Carry a segment's effects forward: the shadow after its last event becomes the carried state.

Each position, copy and handler the segment touched takes the state after its last event there
(``_facts.py`` gives the state before each event, and the event's own effect follows the same rules);
what the segment did not touch is kept. Closed copies, uncached entries and handlers no entry or open
copy shares are dropped. Passes collect what they removed and requeued, for their end.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import HIT, INSERT, REMOVE, REQUEUE
from ledgerspec.spec.cache.invariants._chunk import Chunk
from ledgerspec.spec.cache.invariants._facts import COPY_KINDS, KEYED, Carried, Facts, Flavour, new_handler
from ledgerspec.spec.cache.invariants._groups import by_group
from ledgerspec.spec.cache.invariants._state import Handlers, LiveTable, find


def commit(c: Chunk, facts: Facts, carried: Carried, flavour: Flavour) -> None:
    """Update ``carried`` in place to the state after the segment ``c``."""
    n = len(c)
    ranks = carried.base + np.arange(n, dtype=np.int64)
    _collect_passes(c, facts)
    _commit_entries(c, facts, carried, flavour, ranks)
    _commit_copies(c, facts, carried)
    _commit_handlers(c, facts, carried)
    carried.total = facts.total_after
    carried.base += n
    carried.open_pass = facts.open_after


def _collect_passes(c: Chunk, facts: Facts) -> None:
    removed = (c.kind == REMOVE) & facts.live
    requeued = (c.kind == REQUEUE) & facts.live
    for index, open_pass in enumerate(facts.passes):
        mine = facts.pass_index == index
        at = np.flatnonzero(removed & mine)
        if len(at):
            open_pass.removed.append(_rows(c, facts, at))
            open_pass.counts.append(facts.count[at])
        again = np.flatnonzero(requeued & mine)
        if len(again):
            open_pass.requeued.append(_rows(c, facts, again))
            open_pass.requeued_counts.append(facts.count[again])


def _rows(c: Chunk, facts: Facts, at: np.ndarray) -> LiveTable:
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


def _commit_entries(c: Chunk, facts: Facts, carried: Carried, flavour: Flavour, ranks: np.ndarray) -> None:
    at = np.flatnonzero(np.isin(c.kind, KEYED))
    if not len(at):
        return
    order, _, end = by_group(facts.key[at])
    last = at[order][end]
    kind, live = c.kind[last], facts.live[last]
    inserted = kind == INSERT
    requeued = (kind == REQUEUE) & live
    stamped = inserted | requeued
    live_after = np.where(inserted, True, np.where(kind == REMOVE, False, live))
    handlers, _ = new_handler(c, flavour, ranks)
    rank_of_requeue = np.array([p.rank for p in facts.passes] + [0], np.int64)[facts.pass_index[last]]
    rank_of_requeue = np.where(facts.pass_index[last] >= 0, rank_of_requeue, ranks[last])
    rows = LiveTable(
        key=facts.key[last],
        ledger=c.ledger[last],
        entry=c.entry[last],
        size=np.where(inserted, c.size[last], facts.size[last]),
        ts=np.where(stamped, c.timestamp[last], facts.ts[last]),
        enter=np.where(inserted, ranks[last], np.where(requeued, rank_of_requeue, facts.enter[last])),
        handler=np.where(inserted, handlers[last], facts.handler[last]),
        requeues=np.where(inserted, 0, facts.requeues[last] + requeued),
        exact=np.where(inserted, True, facts.exact[last]),
        accessed=np.where(stamped, False, facts.accessed[last] | ((kind == HIT) & live)),
    ).take(live_after)
    carried.table = carried.table.updated(facts.key[last], rows)


def _commit_copies(c: Chunk, facts: Facts, carried: Carried) -> None:
    at = np.flatnonzero(np.isin(c.kind, COPY_KINDS[:2]))  # hits open copies, releases close them
    if not len(at):
        return
    order, _, end = by_group(c.copy[at])
    last = at[order][end]
    opened = c.kind[last] == HIT
    carried.copies = carried.copies.updated(c.copy[last], c.copy[last][opened], facts.copy_handler[last][opened])


def _commit_handlers(c: Chunk, facts: Facts, carried: Carried) -> None:
    at = np.flatnonzero(facts.touched >= 0)
    referenced = np.concatenate((carried.table.handler, carried.copies.handler))
    if not len(at):
        carried.handlers = carried.handlers.updated(Handlers.empty(), referenced)
        return
    order, start, end = by_group(facts.touched[at])
    ev = at[order]
    last, first = ev[end], ev[start[end]]
    hid = facts.touched[last]
    found, row = find(carried.handlers.hid, hid)
    known = len(carried.handlers.hid) > 0
    ledger = np.where(found, carried.handlers.ledger[row], c.ledger[first]) if known else c.ledger[first]
    entry = np.where(found, carried.handlers.entry[row], c.entry[first]) if known else c.entry[first]
    rows = Handlers(hid, facts.after[last], ledger, entry)
    carried.handlers = carried.handlers.updated(rows, referenced)


__all__ = ["commit"]
