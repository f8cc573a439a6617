"""CACHE-BACKLOG-CACHING in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/backlog_caching.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np
from ledgerspec.spec.cache._events import CURSOR_READ, CURSOR_SEEK, HIT, INSERT, MERGE, MISS, REFUSED
from ledgerspec.spec.cache.invariants._ledger import legacy_mode
from ledgerspec.spec.cache.invariants.backlog_caching import _Read
from ledgerspec.traces.cache.bulk._chunk import NULL
from ledgerspec.traces.cache.bulk._views import Accelerator, EndView, EventsView

_READS = (HIT, MISS, INSERT, REFUSED, MERGE)
"""The kinds of a read's own events, between its ``cursor_read`` and the reader's ``cursor_seek``."""


class _BacklogCaching(Accelerator):
    """Per BookKeeper ledger read: a reopen starts one, and the count of each is taken at its start."""

    def events(self, view: EventsView) -> None:
        c = view.c
        read: _Read | None = view.state()
        starts = np.flatnonzero(c.kind == CURSOR_READ).tolist()
        if read is None and not starts:
            return
        counting = not legacy_mode(view) and view.enabled  # disabled is fixed at start (EntryCacheDisabled)
        i = 0 if read is not None else starts[0]
        while i < len(c):
            if c.kind[i] == CURSOR_READ:
                name = c.cursor_names[c.cursor[i]]
                count = int(view.cursor_counts[i]) if counting else 0
                read = _Read(int(c.ledger[i]), name, count, int(c.seq[i]), int(c.entry[i]))
            elif read is not None and self._event(view, read, i):
                read = None
                following = bisect_right(starts, i)  # skip to the next read: nothing between is a read's
                if following == len(starts):
                    break
                i = starts[following]
                continue
            i += 1
        view.keep_state(read)

    @staticmethod
    def _event(view: EventsView, read: _Read, i: int) -> bool:
        """Judge event ``i`` of ``read``; True when it ends the read.

        The reader's move past the read's start ends it, judged; any event that is not a read's
        (a failed or abandoned read) ends it unjudged.
        """
        c = view.c
        kind = int(c.kind[i])
        if kind == CURSOR_SEEK and c.ledger[i] == read.ledger and c.cursor_names[c.cursor[i]] == read.cursor:
            if c.entry[i] > read.start:
                _BacklogCaching._ended(view, read, i)
            return True
        if kind not in _READS or c.ledger[i] != read.ledger:
            return True
        entry, count = int(c.entry[i]), int(c.count[i])
        if kind == MISS:
            read.missed.add(entry)
        elif kind == INSERT and entry in read.missed:
            read.missed.discard(entry)
            if read.count == 0:
                view.report_at(i, f"{read.what(entry)}: cached with count {None if count == NULL else count}")
                return False
            if count not in (NULL, read.count):
                view.report_at(i, f"{read.what(entry)}: cached with count {count}")
            read.cached.add(entry)
        elif kind == HIT:
            read.cached.discard(entry)
        return False

    @staticmethod
    def _ended(view: EventsView, read: _Read, i: int) -> None:
        """The reader moved past ``read`` at event ``i``: what it missed is cached, and the reader holds it."""
        for entry in sorted(read.missed if read.count > 0 else ()):
            view.report_at(i, f"{read.what(entry)}: not cached")
        for entry in sorted(read.cached):
            view.report_at(i, f"{read.what(entry)}: cached, but the reader got no copy of it")

    def finish(self, view: EndView) -> str | None:
        """A read under way at the end with entries its end judges: what it cached, or missed and must cache."""
        read: _Read | None = view.state()
        if read is None:
            return None
        pending = sorted(read.cached | (read.missed if read.count > 0 else set()))
        if not pending:
            return None
        return (
            f"the trace ends inside the read of ledger {read.ledger} by {read.cursor!r} (seq {read.seq}): "
            f"{[(read.ledger, entry) for entry in pending]} read from storage are judged when the reader moves past it"
        )


INVARIANT_ID = "CACHE-BACKLOG-CACHING"
ACCELERATOR = _BacklogCaching()
