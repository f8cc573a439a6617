"""CACHE-FIFO in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/fifo.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, REQUEUE, SIZE_LIKE, STASH, TTL_LIKE
from ledgerspec.spec.cache.invariants._declare import MASTER, PIP430
from ledgerspec.traces.cache.bulk._common import order_violations, protected_unexpired
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView, show


class _Fifo(Accelerator):
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


INVARIANT_ID = "CACHE-FIFO"
ACCELERATOR = _Fifo()
