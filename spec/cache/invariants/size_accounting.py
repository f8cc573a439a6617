"""CACHE-SIZE-ACCOUNTING: the reported size is the sum of the cached entries' sizes; counters add up."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ledgerspec.spec.cache._events import PASS_END, PASS_START, REMOVE, SIZE_SAMPLE
from ledgerspec.spec.cache._normative import Judge, Rule
from ledgerspec.spec.cache._observation import Counters
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._chunk import Ints
from ledgerspec.spec.cache.invariants._declare import (
    LEGACY,
    MASTER,
    PIP430,
    Check,
    EventsView,
    Invariant,
    StepView,
)


class _SizeAccounting(Check):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        reports = c.of_kinds(SIZE_SAMPLE, PASS_START, PASS_END)
        sampled = reports & (c.size != f.total)
        first = _first_changes(view, reports & ~sampled)
        view.report(
            np.flatnonzero(sampled),
            lambda i: f"reported size {c.size[i]} but the cached entries add up to {f.total[i]}",
            first,
        )
        removes = c.kind == REMOVE
        view.report(np.flatnonzero(removes & ~f.live), lambda i: f"removed {view.position(i)}, which is not cached")
        view.report(
            np.flatnonzero(removes & f.live & (c.size != f.size)),
            lambda i: f"removed {view.position(i)} of {c.size[i]} bytes, the entry has {f.size[i]}",
        )

    def step(self, view: StepView) -> None:
        SIZE_ACCOUNTING.step(view)


_REPORTS = frozenset({"size_sample", "pass_start", "pass_end"})
"""The events that show the cache's total size."""


class SizeAccounting(Rule):
    """The size the cache reports is the sum of its entries' sizes; a removal takes a cached entry, as it is.

    A report that disagrees names where the drift began: the first insert or removal that changed the
    total since the size last agreed (or since the broker's first event), when that is earlier.
    """

    kinds = _REPORTS | {"insert", "remove"}

    def event(self, at: At, judge: Judge) -> None:
        """Judge one size report or removal; note where the total first moved since the size last agreed."""
        event, memory = at.event, judge.memory
        if event.kind in _REPORTS:
            if event.size == at.total:
                memory["drift"] = None  # agreed: a later drift begins after here
            else:
                judge.report(
                    f"reported size {event.size} but the cached entries add up to {at.total}",
                    first=memory.get("drift"),
                )
            return
        if judge.shadow.total != at.total and memory.get("drift") is None:
            memory["drift"] = (event.seq, event.row)  # the first change since the size last agreed
        if event.kind == "remove":
            cached = at.cached
            if cached is None:
                judge.report(f"removed {event.position}, which is not cached")
            elif event.size != cached.size:
                judge.report(f"removed {event.position} of {event.size} bytes, the entry has {cached.size}")

    def step(self, view: StepView) -> None:
        """The counters: inserted - removed = the entries cached, and no counter goes down."""
        after = view.after
        live = after.counters.inserted - after.counters.removed
        messages = []
        if live != len(after.entries):
            messages.append(f"inserted - removed = {live} but {len(after.entries)} entries are cached")
        for name in Counters.__dataclass_fields__:  # in declared order, whatever built the counters
            value, now = getattr(view.before.counters, name), getattr(after.counters, name)
            if value is not None and now is not None and now < value:  # None: a statistic not observed
                messages.append(f"counter {name} went down from {value} to {getattr(after.counters, name)}")
        view.report(messages)


SIZE_ACCOUNTING = SizeAccounting()


def _first_changes(view: EventsView, agreed: Ints) -> Callable[[int], tuple[int, int] | None]:
    """For a size report that disagrees: the (seq, row) where the drift it shows began, or None.

    That is the first event since the last report that agreed (or the broker's first event) that
    changed the cached entries' total: an insert or a removal. Between two reports nothing else moves
    the total, so a size that drifts at an insert (counted twice, not at all) is named there, not at the
    size report that shows it. None: nothing changed since the size last agreed; the report itself is
    where they part. The broker's state (:meth:`EventsView.state`): that event of the segments before,
    or None.
    """
    c, f = view.c, view.f
    n = len(c)
    index = np.arange(n)
    changed = np.append(f.total[1:], f.total_after) != f.total
    after = np.minimum.accumulate(np.where(changed, index, n)[::-1])[::-1]  # the first change at or after i
    last_agreed = np.maximum.accumulate(np.where(agreed, index, -1))
    carried: tuple[int, int] | None = view.state()
    if carried is None and after[0] < n:
        carried = (int(c.seq[after[0]]), int(c.row[after[0]]))
    if last_agreed[-1] >= 0:
        j = int(after[last_agreed[-1] + 1]) if last_agreed[-1] + 1 < n else n
        view.keep_state(None if j == n else (int(c.seq[j]), int(c.row[j])))
    else:
        view.keep_state(carried)

    def first(i: int) -> tuple[int, int] | None:
        agreed_at = int(last_agreed[i - 1]) if i else -1
        if agreed_at < 0:
            return carried if carried is None or carried[1] < int(c.row[i]) else None
        j = int(after[agreed_at + 1])
        return (int(c.seq[j]), int(c.row[j])) if j < i else None

    return first


INVARIANT = Invariant(
    order=5,
    id="CACHE-SIZE-ACCOUNTING",
    statement=(
        "The reported total size equals the sum of the cached entries' sizes, inserted minus removed "
        "(all reasons) equals the number of cached entries, and no counter ever decreases."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeCache.size / RangeEntryCacheManagerImpl currentSize; "
        "impl/cache/RangeEntryCacheImpl.java at 8ce67b97b3^ (cacheEntryCount)"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=_SizeAccounting(),
    rule=SIZE_ACCOUNTING,
    events={"*": frozenset({"insert", "remove", "size_sample", "pass_start", "pass_end"})},
    soundness="the reported size is the broker-wide sum of the live entries",
    conformance_only="the counters (inserted, removed, hits, misses): a trace does not record them",
)
