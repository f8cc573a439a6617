"""CACHE-TTL in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/ttl.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._events import CUTOFF_PASS, REMOVE, REQUEUE, TTL_PASS
from ledgerspec.spec.cache.invariants._declare import MASTER, PIP430
from ledgerspec.traces.cache.bulk._chunk import NULL, Bools, Ints
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView, show


def expired(profile: str, config: CacheConfig, counts: Ints, ts: Ints, now: int | Ints) -> Bools:
    """pulsar-master: ts < now - ttl; pip430: ts < now - thresholdMax, or count <= 0 and ts < now - ttl."""
    stamp = np.where(ts == NULL, now, ts)
    if profile == PIP430:
        unprotected = (counts == NULL) | (counts <= 0)
        old: Bools = (stamp < now - config.ttl_max) | (unprotected & (stamp < now - config.ttl))
        return old
    young: Bools = stamp < now - config.ttl
    return young


class _Ttl(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        in_ttl_pass = view.pass_kinds() == TTL_PASS
        if not in_ttl_pass.any():
            return
        removes = (c.kind == REMOVE) & f.live & in_ttl_pass
        nows = view.pass_nows()
        early = removes & ~expired(view.profile, view.config, f.count, f.ts, nows)
        view.report(
            np.flatnonzero(early),
            lambda i: (
                f"removed {view.position(i)} (timestamp {show(int(f.ts[i]))}, count {show(int(f.count[i]))}), "
                f"which has not expired at {nows[i]}"
            ),
        )
        if view.profile == MASTER:  # the walk reaches only expired entries: it requeues no other
            requeues = (c.kind == REQUEUE) & f.live & (view.pass_kinds() == TTL_PASS)
            young = requeues & ~expired(view.profile, view.config, f.count, f.ts, nows)
            view.report(
                np.flatnonzero(young),
                lambda i: (
                    f"requeued {view.position(i)} (timestamp {show(int(f.ts[i]))}), which has not expired at {nows[i]}"
                ),
            )

    def pass_end(self, view: PassView) -> None:
        if view.kind == CUTOFF_PASS and view.profile == MASTER:
            view.report(_cutoff_violations(view))
            return
        if view.kind != TTL_PASS or view.head_enter is None:
            return
        config = view.config
        shortest = min(config.ttl, config.ttl_max) if view.profile == PIP430 else config.ttl
        if view.oldest_ts is not None and view.oldest_ts >= view.now - shortest:
            return  # even the oldest entry left is younger than the shortest TTL
        table = view.table
        left = np.flatnonzero(expired(view.profile, view.config, view.counts, table.ts, view.now))
        left = left[np.lexsort((table.entry[left], table.ledger[left]))]
        view.report(
            f"left {(int(table.ledger[i]), int(table.entry[i]))} (timestamp {show(int(table.ts[i]))}, "
            f"count {show(int(view.counts[i]))}), expired at {view.now}"
            for i in left.tolist()
        )


def _cutoff_violations(view: PassView) -> list[str]:
    """pulsar-master ``evictLEntriesBeforeTimestamp(cutoff)``: only ts < cutoff goes or requeues, none is left."""
    cutoff = view.value
    messages = [
        f"{what} {(int(lg), int(en))} (timestamp {int(ts)}), not before the cutoff {cutoff}"
        for what, table in (("removed", view.removed), ("requeued", view.requeued))
        for lg, en, ts in zip(table.ledger, table.entry, table.ts, strict=True)
        if ts >= cutoff
    ]
    if view.head_enter is not None and (view.oldest_ts is None or view.oldest_ts < cutoff):
        table = view.table
        messages += [
            f"left {(int(table.ledger[i]), int(table.entry[i]))} (timestamp {int(table.ts[i])}), "
            f"before the cutoff {cutoff}"
            for i in np.flatnonzero(table.ts < cutoff).tolist()
        ]
    return messages


INVARIANT_ID = "CACHE-TTL"
ACCELERATOR = _Ttl()
