"""CACHE-CURSOR-COUNT in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/cursor_count.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CURSOR_COUNT
from ledgerspec.spec.cache.invariants.cursor_count import COUNTING
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView


class _CursorCount(Accelerator):
    def events(self, view: EventsView) -> None:
        c, expected = view.c, view.cursor_counts
        if view.profile in COUNTING and not view.config.track_reads:  # the cursor's isCacheReadEntry(): false
            expected = np.where(c.kind == CURSOR_COUNT, 0, expected)
        bad = (c.kind == CURSOR_COUNT) & (c.result != expected)
        view.report(
            np.flatnonzero(bad),
            lambda i: (
                f"count of cursors at or before {c.cursor_names[c.cursor[i]]!r} on ledger {c.ledger[i]} is "
                f"{expected[i]}, got {None if c.result[i] == NULL else int(c.result[i])!r}"
            ),
        )


INVARIANT_ID = "CACHE-CURSOR-COUNT"
ACCELERATOR = _CursorCount()
