"""CACHE-BELOW-SLOWEST in bulk over trace events: the accelerator of its normative check.

The check itself, in plain Python: spec/cache/invariants/below_slowest.py
tests/quality/test_differential.py holds the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from ledgerspec.spec.cache._events import (
    CURSOR_ADD,
    CURSOR_READ,
    CURSOR_REMOVE,
    CURSOR_SEEK,
    INVALIDATE_PASS,
    LEDGER_CLOSE,
    PASS_START,
)
from ledgerspec.spec.cache.invariants._declare import LEGACY
from ledgerspec.spec.cache.invariants._ledger import legacy_mode
from ledgerspec.traces.cache.bulk._chunk import NULL, Bools, Chunk
from ledgerspec.traces.cache.bulk._common import positions
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView


def _bound(value: int) -> str:
    return "none (the whole ledger)" if value == NULL else str(value)


@dataclass
class _Ledger:
    """One ledger's cursors as the check follows them, and the cursor operation under way on it.

    An operation is one cursor's events: a seek, a removal, or a read (``cursor_read`` then ``cursor_seek``,
    again for each BookKeeper ledger of a read across a reopen); its invalidation comes right after it.
    Two reads of one cursor in a row look like one read across a reopen: taken as one, which can only
    miss a violation, never make one up.
    """

    slowest: int = NULL
    """The slowest active read position after the ledger's last cursor event (NULL: none known)."""
    placed: set[str] = field(default_factory=set)
    """The cursors whose position the trace showed (added or moved); another may have been the slowest."""
    cursor: str | None = None
    """The cursor whose operation is under way (None: none, or an arrival)."""
    last: int = -1
    """The kind of that operation's last cursor event."""
    before: int = NULL
    """The slowest before the operation, or since its last invalidation."""
    seq: int = 0
    """The seq where :attr:`before` was taken."""
    moved: bool = False
    """The slowest changed since :attr:`before`, a cursor left, or a cursor the trace never placed moved."""

    def start(self, cursor: str, kind: int, seq: int) -> None:
        """A cursor event: the next step of the operation under way, or a new operation."""
        ends_read = kind == CURSOR_SEEK and self.last == CURSOR_READ
        reads_on = kind == CURSOR_READ and self.last == CURSOR_SEEK
        continues = self.cursor == cursor and (ends_read or reads_on)
        if not continues:
            self.cursor, self.before, self.seq, self.moved = cursor, self.slowest, seq, False
        self.last = kind


@dataclass
class _Windows:
    """What the check keeps per broker: each ledger's cursors, and the passes to judge at their end."""

    ledgers: dict[int, _Ledger] = field(default_factory=dict)
    unmoved: dict[int, str] = field(default_factory=dict)
    """Rank of a pass a cursor made with the slowest in place -> what made it (judged by what it removes)."""


_WINDOW_KINDS = (CURSOR_ADD, CURSOR_SEEK, CURSOR_REMOVE, CURSOR_READ, LEDGER_CLOSE)
"""With the invalidations a cursor made, the events a ledger's cursor operations are followed by."""


def _made(c: Chunk, i: int) -> str:
    return f"the invalidation cursor {c.cursor_names[c.cursor[i]]!r} made on ledger {c.ledger[i]}"


class _BelowSlowest(Accelerator):
    def events(self, view: EventsView) -> None:
        c = view.c
        named = (c.kind == PASS_START) & (c.reason == INVALIDATE_PASS) & (c.cursor >= 0)
        self._windows(view, named)
        made = np.flatnonzero(named)
        if not len(made):
            return
        if view.profile != LEGACY and view.config.track_reads:
            tracking = "with expected-read-count tracking on, cursors invalidate nothing"
            view.report(made, lambda i: f"{_made(c, i)}: {tracking}")
            return
        wrong = made[c.entry[made] != view.slowest[made]]
        view.report(
            wrong,
            lambda i: (
                f"{_made(c, i)} is bounded by {_bound(int(c.entry[i]))}; the slowest active cursor is at "
                f"{_bound(int(view.slowest[i]))}"
            ),
        )

    @staticmethod
    def _windows(view: EventsView, named: Bools) -> None:
        """Follow each ledger's cursor operations in legacy mode; note passes made with the slowest in place.

        With tracking on nothing is followed (a cursor event per read would cost the replay a quarter of its
        time), and what was is forgotten: back in legacy mode, each cursor's first move counts as moving the
        slowest, as for a cursor the trace never placed.
        """
        windows = view.state() or _Windows()
        view.keep_state(windows)
        if not legacy_mode(view):
            windows.ledgers.clear()
            return
        c = view.c
        kinds, ledgers, slowest, seqs = c.kind.tolist(), c.ledger.tolist(), view.slowest.tolist(), c.seq.tolist()
        for i in np.flatnonzero(c.of_kinds(*_WINDOW_KINDS) | named).tolist():
            kind, ledger = kinds[i], ledgers[i]
            if kind == LEDGER_CLOSE:
                windows.ledgers.pop(ledger, None)
                continue
            state = windows.ledgers.setdefault(ledger, _Ledger())
            cursor = c.cursor_names[c.cursor[i]]
            if kind == PASS_START:
                if state.cursor == cursor and not state.moved:
                    since = f"at {_bound(state.before)} since seq {state.seq}"
                    windows.unmoved[view.pass_rank(i)] = f"{_made(c, i)} with the slowest cursor in place ({since})"
                state.before, state.seq, state.moved = state.slowest, seqs[i], False
                continue
            if kind == CURSOR_ADD:
                state.cursor = None  # an arrival moves nothing
                state.placed.add(cursor)
            else:
                state.start(cursor, kind, seqs[i])
                state.moved |= kind == CURSOR_REMOVE or cursor not in state.placed or slowest[i] != state.before
                if kind == CURSOR_SEEK:
                    state.placed.add(cursor)
                elif kind == CURSOR_REMOVE:
                    state.placed.discard(cursor)
            state.slowest = slowest[i]

    def pass_end(self, view: PassView) -> None:
        windows: _Windows | None = view.state()
        what = windows.unmoved.pop(view.rank, None) if windows is not None else None
        if what is not None and len(view.removed):
            removed = positions(view.removed)
            view.report([f"{what} removed {removed}; a move that leaves the slowest in place removes nothing"])


INVARIANT_ID = "CACHE-BELOW-SLOWEST"
ACCELERATOR = _BelowSlowest()
