"""The managed-ledger invariants' bulk helpers (the plain ones: spec/cache/invariants/_ledger.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ledgerspec.spec.cache.invariants._ledger import Due
from ledgerspec.traces.cache.bulk._chunk import Ints
from ledgerspec.traces.cache.bulk._views import EventsView


def judged_by_next(view: EventsView, due: Ints, facts: Callable[[int], tuple[Any, ...]]) -> Iterator[tuple[Due, int]]:
    """Each event ``due`` with the index of the event after it.

    The segment's last event waits for the next segment (in the current invariant's state), whose first
    event is the one after it: a chunk may end anywhere.
    """
    pending: Due | None = view.state()
    if pending is not None:
        view.keep_state(None)
        yield pending, 0
    c = view.c
    for i in due.tolist():
        event = Due(int(c.seq[i]), int(c.row[i]), facts(i))
        if i + 1 == len(c):
            view.keep_state(event)
        else:
            yield event, i + 1
