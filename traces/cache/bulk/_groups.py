"""Vectorized scans over events grouped by a key (a position, a copy, a handler), in event order.

The replay computes, for every event, facts that depend on the earlier events of the same group
("was the position cached before this event?", "what count did the handler hold?"). Sorting the
events by group (stably, so each group keeps event order) turns each of those into a running
maximum or a running sum, restarted at group boundaries.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from ledgerspec.traces.cache.bulk._chunk import Bools, Ints


def by_group(groups: Ints) -> tuple[Ints, Ints, Bools]:
    """(order, group start, group end) for events with group ids ``groups``.

    ``order`` sorts the events by group, stably; ``start[j]`` is the sorted index where the group of
    sorted event ``j`` begins; ``end[j]`` is true at the last sorted event of each group.
    """
    order = np.argsort(groups, kind="stable")
    ordered = groups[order]
    n = len(ordered)
    first = np.ones(n, np.bool_)
    if n > 1:
        first[1:] = ordered[1:] != ordered[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    end = np.ones(n, np.bool_)
    if n > 1:
        end[:-1] = first[1:]
    return order.astype(np.int64), start.astype(np.int64), end


@dataclass(frozen=True)
class Grouping:
    """Events ``at`` (indices) grouped by a key: ``events`` in group order, each group in event order."""

    at: Ints
    order: Ints
    start: Ints
    end: Bools

    @classmethod
    def of(cls, at: Ints, groups: Ints) -> Grouping:
        """Group the events ``at`` by ``groups`` (one id per event of ``at``)."""
        order, start, end = by_group(groups)
        return cls(at, order, start, end)

    @classmethod
    def none(cls) -> Grouping:
        """No events."""
        empty = np.zeros(0, np.int64)
        return cls(empty, empty, empty, np.zeros(0, np.bool_))

    @functools.cached_property
    def events(self) -> Ints:
        """The events, group by group."""
        return self.at[self.order]

    def last_before(
        self, limit: int, keys: Ints, among: Bools | None = None, within: tuple[int, int] | None = None
    ) -> Ints:
        """The last event of each group among the events before ``limit`` (``keys``: each event's group id).

        ``among``: only the events where it is true (a mask over all events, as ``keys``); ``within``:
        only the events at these places of :attr:`events` (a run of whole groups).
        """
        events = self.events if within is None else self.events[within[0] : within[1]]
        wanted = events < limit
        if among is not None:
            wanted &= among[events]
        kept = events[wanted]
        if not len(kept):
            return kept
        groups = keys[kept]
        last = np.ones(len(kept), np.bool_)
        last[:-1] = groups[1:] != groups[:-1]
        return kept[last]


def last_before(flag: Bools, start: Ints) -> Ints:
    """Per sorted event: the sorted index of the last earlier event of its group with ``flag``, else -1."""
    n = len(flag)
    marks = np.maximum.accumulate(np.where(flag, np.arange(n), -1)) if n else np.zeros(0, np.int64)
    previous = np.empty(n, np.int64)
    if n:
        previous[0] = -1
        previous[1:] = marks[:-1]
        previous[previous < start] = -1
    return previous


def exclusive_sum(values: Ints) -> Ints:
    """Running sum before each element: ``out[j] = sum(values[:j])``."""
    out = np.zeros(len(values) + 1, np.int64)
    np.cumsum(values, out=out[1:])
    return out[:-1]


def pick(values: Ints, at: Ints, default: Ints | int) -> Ints:
    """``values[at]`` where ``at >= 0``, else ``default`` (both element-wise)."""
    if not len(values):
        return np.array(default, copy=True)
    return np.where(at >= 0, values[np.maximum(at, 0)], default)


__all__ = ["Grouping", "by_group", "exclusive_sum", "last_before", "pick"]
