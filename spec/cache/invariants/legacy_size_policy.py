"""CACHE-LEGACY-SIZE-POLICY (legacy): a size pass frees the largest caches first, each from its lowest position."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import SIZE_PASS
from ledgerspec.spec.cache.invariants._common import position
from ledgerspec.spec.cache.invariants._declare import LEGACY, Check, Invariant, PassView


class _LegacySizePolicy(Check):
    def pass_end(self, view: PassView) -> None:
        if view.kind != SIZE_PASS:
            return
        removed = view.removed
        if not len(removed):
            return
        table = view.table
        freed = {int(lg): int(removed.size[removed.ledger == lg].sum()) for lg in np.unique(removed.ledger)}
        kept = {int(lg): int(table.size[table.ledger == lg].sum()) for lg in np.unique(table.ledger)}
        before = {lg: kept.get(lg, 0) + freed.get(lg, 0) for lg in freed.keys() | kept.keys()}
        messages = []
        for ledger in sorted(freed):
            gone = removed.entry[removed.ledger == ledger]
            stays = table.entry[table.ledger == ledger]
            below = stays[stays < gone.max()]
            if len(below):
                messages.append(
                    f"removed {position(ledger, int(gone.max()))} but kept {position(ledger, int(below.min()))} "
                    "below it: a cache frees its lowest positions first"
                )
        smallest = min(before[lg] for lg in freed)
        spared = sorted(lg for lg in before if lg not in freed and before[lg] > smallest)
        messages += [
            f"ledger {lg} ({before[lg]} bytes before the pass) lost nothing while a smaller cache "
            f"({smallest} bytes) lost entries: the largest caches are freed first"
            for lg in spared
        ]
        view.report(messages)


INVARIANT = Invariant(
    order=20,
    id="CACHE-LEGACY-SIZE-POLICY",
    statement=(
        "The legacy size eviction (the task an insert schedules when it sees the size above "
        "(long)(maxSize * 0.98)) ranks the ledgers' caches by size, selects the largest, and frees from each "
        "selected cache its lowest positions: a cache that loses entries has none kept below one it lost, and "
        "every cache larger than it (before the pass) loses entries too (its share is at least as large)."
    ),
    citation=(
        "apache/pulsar managed-ledger 4.0.x: impl/cache/EntryCacheDefaultEvictionPolicy.java doEviction, "
        "impl/cache/RangeEntryCacheImpl.java evictLeastAccessedEntries (at 8ce67b97b3^, the parent of PR #24363)"
    ),
    profiles=(LEGACY,),
    check=_LegacySizePolicy(),
    events={"*": frozenset({"insert", "remove", "pass_start", "pass_end"})},
    soundness="each ledger's cache lives in one broker, and the policy ranks all of that broker's caches",
)
