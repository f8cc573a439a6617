"""CACHE-NO-STALE-READ in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/no_stale_read.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CLEAR_PASS, HIT, INVALIDATE_PASS, MISS, RANGE_MISS, RANGE_PASS, REMOVE
from ledgerspec.spec.cache.invariants._declare import LEGACY
from ledgerspec.traces.cache.bulk._chunk import NULL, Bools, Ints
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView


def in_range(kind: int, ledger: int, bound: int, ledgers: Ints, entries: Ints, first: int = NULL) -> Bools:
    """The positions a forced pass covers: a ledger below ``bound`` (NULL: all of it), from ``first`` for a range."""
    if kind == CLEAR_PASS:
        return np.ones(len(ledgers), np.bool_)
    covered: Bools = (ledgers == ledger) & ((bound == NULL) | (entries < bound))
    if kind == RANGE_PASS:
        covered &= entries >= first
    return covered


class _NoStaleRead(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        hits, misses = c.kind == HIT, c.kind == MISS
        if view.profile == LEGACY:  # legacy reads a range whole from storage when any of it is missing
            misses &= c.reason != RANGE_MISS
        view.report(
            np.flatnonzero(hits & ~f.live),
            lambda i: f"read of {view.position(i)} hit (copy {c.copy[i]}) but it was not cached",
        )
        view.report(np.flatnonzero(misses & f.live), lambda i: f"read of {view.position(i)} missed but it was cached")
        shown = hits & f.live & (c.count != NULL) & (c.count != f.count)
        view.report(
            np.flatnonzero(shown),
            lambda i: f"copy {c.copy[i]} of {view.position(i)} shows count {c.count[i]}, not the entry's",
        )
        kinds = view.pass_kinds()
        removes = (c.kind == REMOVE) & f.live & ((kinds == INVALIDATE_PASS) | (kinds == RANGE_PASS))
        if removes.any():
            ledgers = np.array([p.ledger for p in f.passes] + [NULL], np.int64)[f.pass_index]
            bounds = np.array([p.entry for p in f.passes] + [NULL], np.int64)[f.pass_index]
            outside = (c.ledger != ledgers) | ((bounds != NULL) & (c.entry >= bounds))
            outside |= (kinds == RANGE_PASS) & (c.entry < view.pass_values())
            view.report(np.flatnonzero(removes & outside), lambda i: f"{view.op(i)} also removed {view.position(i)}")

    def pass_end(self, view: PassView) -> None:
        if view.kind not in (INVALIDATE_PASS, CLEAR_PASS, RANGE_PASS):
            return
        bound = None if view.entry == NULL else view.entry  # an invalidation's bound, a range's end: nothing above
        table = view.table if view.kind == CLEAR_PASS else view.cached_in(view.ledger, bound)
        left = np.flatnonzero(in_range(view.kind, view.ledger, view.entry, table.ledger, table.entry, view.value))
        left = left[np.lexsort((table.entry[left], table.ledger[left]))]
        view.report(f"{view.label} left {(int(table.ledger[i]), int(table.entry[i]))} cached" for i in left.tolist())


INVARIANT_ID = "CACHE-NO-STALE-READ"
ACCELERATOR = _NoStaleRead()
