"""CACHE-SIZE-ACCOUNTING: the reported size is the sum of the cached entries' sizes; counters add up."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._observation import Counters
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Invariant, StepView

_REPORTS = frozenset({"size_sample", "pass_start", "pass_end"})
"""The events that show the cache's total size."""


class SizeAccounting(Check):
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
    check=SIZE_ACCOUNTING,
    events={"*": frozenset({"insert", "remove", "size_sample", "pass_start", "pass_end"})},
    soundness="the reported size is the broker-wide sum of the live entries",
    conformance_only="the counters (inserted, removed, hits, misses): a trace does not record them",
)
