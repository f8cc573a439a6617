"""CACHE-TTL-WALK (legacy): a TTL pass walks each ledger up from its lowest entry to the first unexpired one."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CUTOFF_PASS, TTL_LIKE
from ledgerspec.spec.cache.invariants._common import position
from ledgerspec.spec.cache.invariants._declare import LEGACY, TIMES, Check, Invariant, PassView, show


class _TtlWalk(Check):
    def pass_end(self, view: PassView) -> None:
        if view.kind not in TTL_LIKE:
            return
        # expired: timestamp <= limit (inclusive); an explicit cutoff (EvictBefore) is the limit itself
        limit = view.value if view.kind == CUTOFF_PASS else view.now - view.config.ttl
        removed = view.removed
        messages = [
            f"removed {position(lg, en)} (timestamp {show(int(ts))}), which has not expired at {view.now}: "
            f"expired means a timestamp <= {limit}"
            for lg, en, ts in zip(removed.ledger, removed.entry, removed.ts, strict=True)
            if ts > limit
        ]
        for ledger in np.unique(removed.ledger).tolist():
            kept = view.cached_in(ledger)
            gone = removed.entry[removed.ledger == ledger]
            below = kept.entry < gone.max() if len(kept) else np.zeros(0, np.bool_)
            if below.any():
                top, low = position(ledger, int(gone.max())), position(ledger, int(kept.entry[below].min()))
                messages.append(f"removed {top} but kept {low} below it: the walk goes from the lowest position")
        if view.head_enter is not None and (view.oldest_ts is None or view.oldest_ts <= limit):
            messages += _expired_heads(view, limit)
        view.report(messages)


def _expired_heads(view: PassView, limit: int) -> list[str]:
    """Ledgers whose lowest cached entry has expired: the walk should have gone on."""
    table = view.table
    if not len(table):
        return []
    order = np.lexsort((table.entry, table.ledger))
    ledgers = table.ledger[order]
    lowest = order[np.r_[True, ledgers[1:] != ledgers[:-1]]]
    return [
        f"left {position(table.ledger[i], table.entry[i])} (timestamp {table.ts[i]}), the lowest position of ledger "
        f"{table.ledger[i]}, expired at {view.now}: the walk stops only at an unexpired entry"
        for i in lowest.tolist()
        if table.ts[i] <= limit
    ]


INVARIANT = Invariant(
    order=16,
    id="CACHE-TTL-WALK",
    statement=(
        "A TTL pass at `now` walks each ledger's cache from its lowest position, removing entries while "
        "their timestamp is <= now - ttl (inclusive), and stops at the ledger's first unexpired entry: it "
        "removes no unexpired entry and nothing above an entry of the same ledger it keeps, and leaves no "
        "ledger whose lowest entry has expired (an expired entry behind a newer, lower one stays: L2)."
    ),
    citation=(
        "apache/pulsar at 8ce67b97b3^ (the parent of PR #24363): impl/ManagedLedgerFactoryImpl.java "
        "doCacheEviction, util/RangeCache.java evictLEntriesBeforeTimestamp"
    ),
    profiles=(LEGACY,),
    check=_TtlWalk(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "remove", "pass_start", "pass_end"})},
    soundness="each ledger's cache lives in one broker, and a pass walks all of that broker's ledgers",
)
