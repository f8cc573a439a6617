"""CACHE-BOUNDED-PROTECTION (pulsar-master): requeues for expected reads alone stop at maxRequeue."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import REQUEUE, SIZE_LIKE, TTL_LIKE
from ledgerspec.spec.cache.invariants._chunk import NULL
from ledgerspec.spec.cache.invariants._declare import MASTER, TIMES, Check, EventsView, Invariant


class _BoundedProtection(Check):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        kinds = view.pass_kinds()
        requeues = (c.kind == REQUEUE) & f.live & np.isin(kinds, SIZE_LIKE + TTL_LIKE)
        if not requeues.any():
            return
        config = view.config
        unread = requeues & ~(f.accessed & config.extend_ttl)
        view.report(
            np.flatnonzero(unread & (f.requeues >= config.max_requeue)),
            lambda i: (
                f"{view.position(i)} was requeued again without a read after {f.requeues[i]} requeues "
                f"(max {config.max_requeue})"
            ),
        )
        view.report(
            np.flatnonzero(unread & (f.requeues < config.max_requeue) & ((f.count == NULL) | (f.count < 1))),
            lambda i: f"{view.position(i)} was requeued with no read since it entered and no expected reads",
        )


INVARIANT = Invariant(
    order=9,
    id="CACHE-BOUNDED-PROTECTION",
    statement=(
        "Protection by expected reads is bounded: an entry is requeued for its expected reads alone (no "
        "read since it last entered the queue) only while it has expected reads and has been requeued "
        "fewer than maxRequeue times, so no entry is permanently non-evictable. (Seen from outside, "
        "several requeues of one entry within one pass count as one: the bound can be missed, never "
        "invented.)"
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeCacheRemovalQueue shouldRequeue, "
        "managedLedgerCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes"
    ),
    profiles=(MASTER,),
    check=_BoundedProtection(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "requeue", "hit", "pass_start"})},
    soundness="requeues go through the broker's one queue",
)
