"""CACHE-BOUNDED-PROTECTION in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/bounded_protection.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CUTOFF_PASS, REMOVE, REQUEUE, SIZE_LIKE, TTL_LIKE, TTL_PASS
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView


class _BoundedProtection(Accelerator):
    def events(self, view: EventsView) -> None:
        self._requeues(view)
        self._removals(view)

    @staticmethod
    def _removals(view: EventsView) -> None:
        """A timestamp pass that meets each entry once removes none that was due a requeue.

        A requeued entry is stamped with the pass's time, so a TTL pass (threshold ``now - ttl``) or a
        cutoff at or before ``now`` never meets it again: what it removes, it met for the first time. A
        size or bytes pass, or a cutoff after ``now`` (or with no cutoff given), may go round the queue,
        requeueing an entry until its budget is spent and then removing it, which looks from outside like
        a removal alone.

        Only the expected reads are judged here, not ``accessed``: a trace's hits include the reader's copy
        of an entry a storage read has just cached, which does not mark it accessed.
        """
        c, f = view.c, view.f
        kinds = view.pass_kinds()
        cutoffs = view.pass_values()
        once = (kinds == TTL_PASS) | ((kinds == CUTOFF_PASS) & (cutoffs != NULL) & (cutoffs <= view.pass_nows()))
        removes = (c.kind == REMOVE) & f.live & once
        if not removes.any():
            return
        config = view.config
        awaited = removes & f.exact & (f.count != NULL) & (f.count >= 1) & (f.requeues < config.max_requeue)
        view.report(
            np.flatnonzero(awaited),
            lambda i: (
                f"removed {view.position(i)} with {f.count[i]} expected reads after {f.requeues[i]} requeues "
                f"(max {config.max_requeue}): it is requeued"
            ),
        )

    @staticmethod
    def _requeues(view: EventsView) -> None:
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


INVARIANT_ID = "CACHE-BOUNDED-PROTECTION"
ACCELERATOR = _BoundedProtection()
