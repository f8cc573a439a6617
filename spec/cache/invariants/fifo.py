"""CACHE-FIFO: the removal queue is first-in first-out, and a TTL pass walks it in order."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, REQUEUE, SIZE_LIKE, STASH, TTL_LIKE
from ledgerspec.spec.cache.invariants._common import order_violations, protected_unexpired
from ledgerspec.spec.cache.invariants._declare import (
    MASTER,
    PIP430,
    TIMES,
    Check,
    EventsView,
    Invariant,
    PassView,
    show,
)


class _Fifo(Check):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        inserts = np.flatnonzero((c.kind == INSERT) & (c.timestamp != c.time))
        view.report(
            inserts,
            lambda i: (
                f"inserted {view.position(i)} at now={c.time[i]} but its timestamp is {show(int(c.timestamp[i]))}"
            ),
        )
        requeues = c.kind == REQUEUE
        if requeues.any():
            kinds = view.pass_kinds()
            walking = np.isin(kinds, SIZE_LIKE + TTL_LIKE)
            allowed = (view.profile == MASTER) & walking & (c.timestamp == c.time)
            view.report(
                np.flatnonzero(requeues & f.live & ~allowed),
                lambda i: (
                    f"{view.op(i)} changed the timestamp of {view.position(i)} from {show(int(f.ts[i]))} "
                    f"to {show(int(c.timestamp[i]))}"
                ),
            )
            view.report(
                np.flatnonzero(requeues & ~f.live), lambda i: f"requeued {view.position(i)}, which is not cached"
            )
        stashes = c.kind == STASH
        if stashes.any():
            kinds, nows = view.pass_kinds(), view.pass_nows()
            in_pass = (view.profile == PIP430) & f.live & np.isin(kinds, SIZE_LIKE + TTL_LIKE)
            keeps = protected_unexpired(f.count, f.ts, nows, view.config.ttl_max)
            view.report(
                np.flatnonzero(stashes & ~(in_pass & keeps)),
                lambda i: f"stashed {view.position(i)}, which is not a protected, unexpired entry in a pip430 pass",
            )

    def pass_end(self, view: PassView) -> None:
        if view.kind in TTL_LIKE:
            view.report(order_violations(view, "timestamp pass"))


INVARIANT = Invariant(
    order=1,
    id="CACHE-FIFO",
    statement=(
        "The removal queue is first-in first-out: an inserted entry is stamped with the insert's time; "
        "its timestamp changes only when an eviction pass requeues it to the tail, and then to that "
        "pass's time (pulsar-master; never in pip430); and a timestamp pass that removes an entry keeps "
        "no entry that entered the queue before it, except one the profile lets the pass skip (pip430: "
        "a protected entry younger than thresholdMax, stashed; pulsar-master: an entry it requeued)."
    ),
    citation=(
        "apache/pulsar pip/pip-430.md (PR #24444, cf3d7d17d9) 'Eviction Consideration'; PR #24623 (490ba0cca1) "
        "RangeCacheRemovalQueue; PR #24363 (8ce67b97b3) 'Incorrect Timestamp-Based Eviction'"
    ),
    profiles=(PIP430, MASTER),
    check=_Fifo(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "requeue", "stash", "remove", "pass_start", "pass_end"})},
    soundness="one removal queue per broker: queue order is a property of the broker's events, never of one ledger's",
)
