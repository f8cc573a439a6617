"""CACHE-READ-COUNT in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/read_count.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, MERGE, RELEASE, REMOVE, REPLAY
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, show


def member(view: EventsView, i: int) -> str:
    """Who showed the count event ``i`` carries: the copy itself, the entry, or another open copy.

    A release shows the count through the entry if it is still cached with that handler, else through
    another open copy; a removal through an open copy; a replay through its own copy.
    """
    c, f = view.c, view.f
    kind, handler = int(c.kind[i]), int(f.touched[i])
    if kind == REPLAY:
        return f"copy {c.copy[i]}"
    if kind == RELEASE and _entry_holds(view, handler, i):
        return f"entry {view.handler_position(handler)}"
    copies = [k for k in view.open_copies(handler, i) if not (kind == RELEASE and k == c.copy[i])]
    return f"copy {copies[0]}" if copies else "its handler"


def _entry_holds(view: EventsView, handler: int, i: int) -> bool:
    """Whether the entry the handler was made for is cached with it just before event ``i``."""
    ledger, entry = view.handler_position(handler)
    c, f = view.c, view.f
    mine = np.flatnonzero((c.ledger[:i] == ledger) & (c.entry[:i] == entry) & np.isin(c.kind[:i], (INSERT, REMOVE)))
    if len(mine):
        last = int(mine[-1])
        return bool(c.kind[last] == INSERT and f.base + last == handler)
    return bool(np.any(view.table.handler == handler))


class _ReadCount(Accelerator):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        shown = (f.touched >= 0) & (c.count != NULL) & (c.count != f.expected)
        changed = shown & c.of_kinds(RELEASE, REPLAY, REMOVE)
        view.report(
            np.flatnonzero(changed),
            lambda i: (
                f"{member(view, i)} (handler of {view.handler_position(int(f.touched[i]))}) shows count "
                f"{c.count[i]} after {view.op(i)}; expected {show(int(f.expected[i]))} (was {show(int(f.count[i]))})"
            ),
        )
        copies = c.of_kinds(RELEASE, REPLAY)
        view.report(
            np.flatnonzero(copies & ~f.copy_open),
            lambda i: (
                f"{'release of' if c.kind[i] == RELEASE else 'replay increment through'} copy {c.copy[i]}, "
                "which is not open"
            ),
        )
        view.report(
            np.flatnonzero((c.kind == RELEASE) & f.copy_open & (f.copy_handler < 0) & (c.count != NULL)),
            lambda i: f"copy {c.copy[i]} has no handler but its release shows count {c.count[i]}",
        )
        view.report(
            np.flatnonzero((c.kind == MERGE) & ~(f.live & (f.handler >= 0))),
            lambda i: f"merged a count into {view.position(i)}, which is not cached or has no handler",
        )


INVARIANT_ID = "CACHE-READ-COUNT"
ACCELERATOR = _ReadCount()
