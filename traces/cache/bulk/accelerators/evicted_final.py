"""CACHE-EVICTED-FINAL in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/evicted_final.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import (
    FORCED,
    MARK_EVICTED,
    RELEASE,
    REMOVE,
    REPLAY,
)
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, show

_RESULT = {NULL: None, 0: False, 1: True}


class _EvictedFinal(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        kinds = view.pass_kinds()
        forced = np.isin(kinds, FORCED)
        shown = c.count != NULL
        through_copy = c.of_kinds(RELEASE, REPLAY) & f.copy_open & (f.count == EVICTED) & shown
        view.report(
            np.flatnonzero(through_copy & (c.count != EVICTED)),
            lambda i: f"copy {c.copy[i]} was EVICTED and now shows count {c.count[i]}",
        )
        removed = (c.kind == REMOVE) & f.live & forced & (f.handler >= 0) & shown & (c.count != EVICTED)
        view.report(np.flatnonzero(removed), lambda i: self._not_evicted(view, i))
        replays = np.flatnonzero(c.kind == REPLAY)
        if len(replays):
            live = f.copy_open[replays] & (f.count[replays] != NULL)
            before = np.where(live, f.count[replays], NULL)
            without = f.copy_open[replays] & (f.copy_handler[replays] < 0)  # nothing to increment
            expected = ~without & (before != EVICTED)
            result = c.result[replays]
            bad = (result == NULL) | ((result != 0) != expected)
            wanted = dict(zip(replays.tolist(), expected.tolist(), strict=True))
            view.report(
                replays[bad],
                lambda i: (
                    f"incrementExpectedReadCount through copy {c.copy[i]} "
                    f"(count {show(int(f.count[i]) if f.copy_open[i] else NULL)}) returned "
                    f"{_RESULT.get(int(c.result[i]), bool(c.result[i]))!r}, expected {wanted[i]}"
                ),
            )
        marks = (c.kind == MARK_EVICTED) & ~(forced & f.live)
        view.report(
            np.flatnonzero(marks),
            lambda i: f"markEvicted of {view.position(i)} outside a forced removal of a cached entry",
        )

    @staticmethod
    def _not_evicted(view: EventsView, i: int) -> str:
        copies = view.open_copies(int(view.f.handler[i]), i)
        seen = f"copy {copies[0]}" if copies else "its handler"
        return f"{view.position(i)} was removed by force but {seen} shows count {view.c.count[i]}, not EVICTED"


INVARIANT_ID = "CACHE-EVICTED-FINAL"
ACCELERATOR = _EvictedFinal()
