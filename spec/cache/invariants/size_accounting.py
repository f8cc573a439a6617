"""CACHE-SIZE-ACCOUNTING: the reported size is the sum of the cached entries' sizes; counters add up."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import PASS_END, PASS_START, REMOVE, SIZE_SAMPLE
from ledgerspec.spec.cache._observation import Counters
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
        sampled = c.of_kinds(SIZE_SAMPLE, PASS_START, PASS_END) & (c.size != f.total)
        view.report(
            np.flatnonzero(sampled),
            lambda i: f"reported size {c.size[i]} but the cached entries add up to {f.total[i]}",
        )
        removes = c.kind == REMOVE
        view.report(np.flatnonzero(removes & ~f.live), lambda i: f"removed {view.position(i)}, which is not cached")
        view.report(
            np.flatnonzero(removes & f.live & (c.size != f.size)),
            lambda i: f"removed {view.position(i)} of {c.size[i]} bytes, the entry has {f.size[i]}",
        )

    def step(self, view: StepView) -> None:
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
    events={"*": frozenset({"insert", "remove", "size_sample", "pass_start", "pass_end"})},
    soundness="the reported size is the broker-wide sum of the live entries",
    conformance_only="the counters (inserted, removed, hits, misses): a trace does not record them",
)
