"""CACHE-SIZE-ACCOUNTING in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/size_accounting.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ledgerspec.spec.cache._events import PASS_END, PASS_START, REMOVE, SIZE_SAMPLE
from ledgerspec.traces.cache.bulk._chunk import Ints
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView


class _SizeAccounting(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        reports = c.of_kinds(SIZE_SAMPLE, PASS_START, PASS_END)
        sampled = reports & (c.size != f.total)
        first = _first_changes(view, reports & ~sampled)
        view.report(
            np.flatnonzero(sampled),
            lambda i: f"reported size {c.size[i]} but the cached entries add up to {f.total[i]}",
            first,
        )
        removes = c.kind == REMOVE
        view.report(np.flatnonzero(removes & ~f.live), lambda i: f"removed {view.position(i)}, which is not cached")
        view.report(
            np.flatnonzero(removes & f.live & (c.size != f.size)),
            lambda i: f"removed {view.position(i)} of {c.size[i]} bytes, the entry has {f.size[i]}",
        )


def _first_changes(view: EventsView, agreed: Ints) -> Callable[[int], tuple[int, int] | None]:
    """For a size report that disagrees: the (seq, row) where the drift it shows began, or None.

    That is the first event since the last report that agreed (or the broker's first event) that
    changed the cached entries' total: an insert or a removal. Between two reports nothing else moves
    the total, so a size that drifts at an insert (counted twice, not at all) is named there, not at the
    size report that shows it. None: nothing changed since the size last agreed; the report itself is
    where they part. The broker's state (:meth:`EventsView.state`): that event of the segments before,
    or None.
    """
    c, f = view.c, view.f
    n = len(c)
    index = np.arange(n)
    changed = np.append(f.total[1:], f.total_after) != f.total
    after = np.minimum.accumulate(np.where(changed, index, n)[::-1])[::-1]  # the first change at or after i
    last_agreed = np.maximum.accumulate(np.where(agreed, index, -1))
    carried: tuple[int, int] | None = view.state()
    if carried is None and after[0] < n:
        carried = (int(c.seq[after[0]]), int(c.row[after[0]]))
    if last_agreed[-1] >= 0:
        j = int(after[last_agreed[-1] + 1]) if last_agreed[-1] + 1 < n else n
        view.keep_state(None if j == n else (int(c.seq[j]), int(c.row[j])))
    else:
        view.keep_state(carried)

    def first(i: int) -> tuple[int, int] | None:
        agreed_at = int(last_agreed[i - 1]) if i else -1
        if agreed_at < 0:
            return carried if carried is None or carried[1] < int(c.row[i]) else None
        j = int(after[agreed_at + 1])
        return (int(c.seq[j]), int(c.row[j])) if j < i else None

    return first


INVARIANT_ID = "CACHE-SIZE-ACCOUNTING"
ACCELERATOR = _SizeAccounting()
