"""CACHE-LEGACY-SIZE-POLICY in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/legacy_size_policy.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np
from ledgerspec.spec.cache._events import INSERT, PASS_END, REFUSED, SIZE_PASS
from ledgerspec.spec.cache.invariants.legacy_size_policy import shares
from ledgerspec.traces.cache.bulk._common import position
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView


@dataclass
class _Scheduled:
    """One broker's scheduled eviction: the size the scheduling insert captured, per size pass in order."""

    captured: int | None = None
    """The size an insert since the last size pass saw above the trigger (the first such one), if any."""
    at_ends: deque[int | None] = field(default_factory=deque)
    """What each size pass ending in the current segment captured, for :meth:`Accelerator.pass_end`."""


class _LegacySizePolicy(Accelerator):
    def events(self, view: EventsView) -> None:
        """Follow the scheduling.

        The first insert (cached or refused) since the last size pass that sees the size above the trigger
        schedules one eviction with that size; the pass's end consumes it.
        """
        c, f = view.c, view.f
        state: _Scheduled = view.state() or _Scheduled()
        scheduling = np.flatnonzero(c.of_kinds(INSERT, REFUSED) & (f.total > view.config.trigger_size))
        ends = np.flatnonzero((c.kind == PASS_END) & (c.reason == SIZE_PASS)).tolist()
        previous = -1
        for end in [*ends, len(c)]:
            first = int(np.searchsorted(scheduling, previous, side="right"))
            if state.captured is None and first < len(scheduling) and scheduling[first] < end:
                state.captured = int(f.total[scheduling[first]])
            if end < len(c):
                state.at_ends.append(state.captured)
                state.captured = None
            previous = end
        view.keep_state(state)

    def pass_end(self, view: PassView) -> None:
        if view.kind != SIZE_PASS:
            return
        state: _Scheduled = view.state()
        captured = state.at_ends.popleft()
        removed = view.removed
        if captured is None:
            if len(removed):
                trigger = view.config.trigger_size
                view.report(
                    [
                        (
                            f"{len(removed)} entries went, but no insert since the last size pass saw the size "
                            f"above the trigger {trigger}: no eviction was scheduled"
                        )
                    ]
                )
            return
        view.report(_lowest_first(view) + _shares(view, captured - view.config.watermark_size))


def _lowest_first(view: PassView) -> list[str]:
    """A cache that loses entries keeps none below one it lost."""
    removed, table = view.removed, view.table
    messages = []
    for ledger in np.unique(removed.ledger).tolist():
        gone = removed.entry[removed.ledger == ledger]
        stays = table.entry[table.ledger == ledger]
        below = stays[stays < gone.max()]
        if len(below):
            messages.append(
                f"removed {position(ledger, int(gone.max()))} but kept {position(ledger, int(below.min()))} "
                "below it: a cache frees its lowest positions first"
            )
    return messages


def _shares(view: PassView, to_free: int) -> list[str]:
    """The shares, from the pass's view (see :func:`shares`)."""
    removed, table = view.removed, view.table
    left = list(zip(table.ledger.tolist(), table.size.tolist(), strict=True))
    gone = list(zip(removed.ledger.tolist(), removed.entry.tolist(), removed.size.tolist(), strict=True))
    return shares(left, gone, to_free)


INVARIANT_ID = "CACHE-LEGACY-SIZE-POLICY"
ACCELERATOR = _LegacySizePolicy()
