"""Rules that several invariants share: queue order at a pass's end, protection, expiry."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache.invariants._declare import MASTER, PIP430, SEGMENTED
from ledgerspec.traces.cache.bulk._chunk import NULL, Bools, Ints
from ledgerspec.traces.cache.bulk._state import LiveTable, find
from ledgerspec.traces.cache.bulk._views import PassView, show


def protected_unexpired(counts: Ints, ts: Ints, now: int | Ints, ttl_max: int) -> Bools:
    """pip430: what eviction must keep: a positive count, and younger than thresholdMax."""
    kept: Bools = (counts != NULL) & (counts > 0) & (ts != NULL) & (ts >= now - ttl_max)
    return kept


def order_violations(view: PassView, what: str) -> list[str]:
    """Entries the pass kept although they entered the queue before the newest one it removed.

    An entry the pass requeued is judged as it was before the pass. Exempt: pip430, a protected entry
    younger than thresholdMax (stashed); pulsar-master, an entry the pass requeued (stamped with its
    time); segmented, the position the rotating insert writes again. Entries requeued by one earlier
    pass tie (``_facts.py``).
    """
    removed = view.removed
    if not len(removed):
        return []
    newest = int(np.argmax(removed.enter))
    limit = int(removed.enter[newest])
    if (view.head_enter is None or view.head_enter >= limit) and (not len(view.requeued) or view.profile == MASTER):
        return []  # nothing left entered before it, and what the pass requeued is exempt or absent
    table = view.table
    enter, ts, counts = table.enter.copy(), table.ts.copy(), view.counts.copy()
    if len(view.requeued):  # compare entries requeued by this pass as they were before it
        keys, first = np.unique(view.requeued.key, return_index=True)
        found, at = find(table.key, keys)
        rows, source = at[found], first[found]
        enter[rows], ts[rows] = view.requeued.enter[source], view.requeued.ts[source]
        counts[rows] = view.requeued_counts[source]
    older = enter < limit
    if not older.any():
        return []
    if view.profile == PIP430:
        older &= ~protected_unexpired(counts, ts, view.now, view.config.ttl_max)
    elif view.profile == SEGMENTED and view.ledger != NULL:
        older &= ~((table.ledger == view.ledger) & (table.entry == view.entry))
    elif view.profile == MASTER:
        older &= table.ts != view.now
    at = np.flatnonzero(older)
    at = at[np.lexsort((table.entry[at], table.ledger[at]))]
    gone = (int(removed.ledger[newest]), int(removed.entry[newest]))
    return [
        f"{what} removed {gone} but kept {(int(table.ledger[i]), int(table.entry[i]))}, which entered the queue "
        f"earlier (count {show(int(counts[i]))}, timestamp {show(int(ts[i]))}) and may not be skipped"
        for i in at.tolist()
    ]


def position(ledger: int, entry: int) -> tuple[int, int]:
    """A position as the messages print it."""
    return (int(ledger), int(entry))


def positions(table: LiveTable) -> list[tuple[int, int]]:
    """The positions of a table's entries as the messages print them, in order."""
    order = np.lexsort((table.entry, table.ledger))
    return list(zip(table.ledger[order].tolist(), table.entry[order].tolist(), strict=True))


__all__ = ["order_violations", "position", "positions", "protected_unexpired"]
