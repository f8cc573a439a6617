"""CACHE-PROTECT-UNTIL-EXPIRED in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/protect_until_expired.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import REMOVE, SIZE_LIKE, TTL_LIKE
from ledgerspec.traces.cache.bulk._common import protected_unexpired
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, show


class _ProtectUntilExpired(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        removes = (c.kind == REMOVE) & f.live
        if not removes.any():
            return
        kinds, nows = view.pass_kinds(), view.pass_nows()
        evicting = np.isin(kinds, SIZE_LIKE + TTL_LIKE)
        ttl_max = view.config.ttl_max
        bad = removes & evicting & protected_unexpired(f.count, f.ts, nows, ttl_max)
        view.report(
            np.flatnonzero(bad),
            lambda i: (
                f"{view.op(i)} removed {view.position(i)} with count {show(int(f.count[i]))} and timestamp "
                f"{show(int(f.ts[i]))}, younger than thresholdMax (now {nows[i]} - {ttl_max})"
            ),
        )


INVARIANT_ID = "CACHE-PROTECT-UNTIL-EXPIRED"
ACCELERATOR = _ProtectUntilExpired()
