"""The head of the queue after each pass of a segment, without rebuilding the cache at every pass.

A pass's checks first ask cheap questions: which entry is at the head of the queue (the smallest
queue rank still cached) and what is the oldest timestamp still cached. An entry is cached from the
event that made it enter the queue (an insert or a requeue) until the next event that moves or
removes it; so "cached right after event q" is an interval that contains q, and the head is the
smallest rank among the intervals containing q. Within a segment ranks grow with the events, so the
first interval (in event order) still open at q is the head: a running maximum of the intervals'
ends, searched once per pass. Entries carried from earlier segments are found the same way after
sorting them by rank. When timestamps grow with ranks (they do in a sequential cache) the head's
timestamp is the oldest; otherwise the answer is "unknown" and the check rebuilds the cache.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ledgerspec.spec.cache._events import INSERT, REMOVE, REQUEUE
from ledgerspec.traces.cache.bulk._chunk import NULL, Chunk, Ints
from ledgerspec.traces.cache.bulk._facts import Carried, Facts
from ledgerspec.traces.cache.bulk._state import find

NEVER = np.iinfo(np.int64).max


@dataclass
class Heads:
    """For each queried event: the head's rank (NULL: nothing cached) and the oldest timestamp.

    ``oldest`` is NULL where nothing is cached, and where it is not known (``known`` false).
    """

    enter: Ints
    oldest: Ints
    known: bool


def heads_after(c: Chunk, facts: Facts, carried: Carried, queries: Ints) -> Heads:
    """The queue's head right after each event of ``queries`` (local indices, ascending)."""
    n = len(c)
    grouping = facts.keyed
    at, order, end = grouping.at, grouping.order, grouping.end
    kind, live = c.kind[at], facts.live[at]
    changes = (kind == INSERT) | (kind == REMOVE) | ((kind == REQUEUE) & live)
    enters = (kind == INSERT) | ((kind == REQUEUE) & live)
    sorted_changes = changes[order]
    # The next change of the same position after each event (n: none in this segment).
    index = at[order]
    following = np.full(len(order), n, np.int64)
    if len(order):
        positions = np.arange(len(order))
        big = len(order)
        # The first change at or after each sorted position, then the one after it within the group.
        first_at = np.minimum.accumulate(np.where(sorted_changes, positions, big)[::-1])[::-1]
        group_last = _group_last(end)
        after = np.r_[first_at[1:], big]
        inside = after <= group_last
        following = np.where(inside, index[np.minimum(after, big - 1)], n)
    next_change = np.empty(len(at), np.int64)
    next_change[order] = following
    first_change = np.full(len(order), n, np.int64)
    group_first = np.where(sorted_changes, index, n)
    if len(order):
        first_change = np.minimum.reduceat(group_first, np.flatnonzero(np.r_[True, end[:-1]]))
    keys_of_groups = facts.key[at][order][np.r_[True, end[:-1]]] if len(order) else facts.key[:0]
    # Entries carried in: cached until the first change of their position here.
    table = carried.table
    carried_end = np.full(len(table), n, np.int64)
    if len(keys_of_groups) and len(table):
        found, row = find(table.key, keys_of_groups)
        carried_end[row[found]] = first_change[found]
    by_rank = np.argsort(table.enter, kind="stable")
    head_c, ts_c = _first_open(table.enter[by_rank], table.ts[by_rank], carried_end[by_rank], None, queries)
    # Entries entering in this segment.
    setters = at[enters]
    ranks = facts.enter_of[setters]
    head_s, ts_s = _first_open(ranks, c.timestamp[setters], next_change[enters], setters, queries)
    monotone = bool(np.all(np.diff(ranks) >= 0)) if len(ranks) else True
    if len(by_rank) > 1:
        monotone &= bool(np.all(np.diff(table.ts[by_rank]) >= 0))
    if len(setters) > 1:
        monotone &= bool(np.all(np.diff(c.timestamp[setters]) >= 0))
    enter = np.where(head_c != NULL, head_c, head_s)
    oldest = np.where(head_c == NULL, ts_s, np.where(ts_s == NULL, ts_c, np.minimum(ts_c, ts_s)))
    return Heads(enter=enter, oldest=np.where(monotone, oldest, NULL), known=monotone)


def _group_last(end: np.ndarray) -> Ints:
    """For each sorted position, the position of the last element of its group (``end`` marks them)."""
    positions = np.arange(len(end))
    ends = np.flatnonzero(end)
    return ends[np.searchsorted(ends, positions)]


def _first_open(ranks: Ints, ts: Ints, ends: Ints, starts: Ints | None, queries: Ints) -> tuple[Ints, Ints]:
    """Per query q: rank and timestamp of the first interval (in the given order) with start <= q < end."""
    if not len(ranks):
        empty = np.full(len(queries), NULL, np.int64)
        return empty, empty.copy()
    reach = np.maximum.accumulate(ends)
    first = np.searchsorted(reach, queries, side="right")
    inside = first < len(ranks)
    pick = np.minimum(first, len(ranks) - 1)
    if starts is not None:
        inside &= starts[pick] <= queries
    return np.where(inside, ranks[pick], NULL), np.where(inside, ts[pick], NULL)


__all__ = ["Heads", "heads_after"]
