"""CACHE-TTL-WALK in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/ttl_walk.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CUTOFF_PASS, TTL_LIKE
from ledgerspec.traces.cache.bulk._common import position
from ledgerspec.traces.cache.bulk._views import Accelerator, PassView, show


class _TtlWalk(Accelerator):
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


INVARIANT_ID = "CACHE-TTL-WALK"
ACCELERATOR = _TtlWalk()
