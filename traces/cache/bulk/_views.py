"""What an accelerator is given to look at: a segment of events with the bulk facts, a finished pass, the end.

The accelerators (``accelerators/``) judge trace events in bulk as the normative checks
(spec/cache/invariants/) judge them one at a time; the differential tests hold them equal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from ledgerspec.spec.cache._events import (
    HIT,
    KIND_NAMES,
    PASS_KINDS,
    RELEASE,
)
from ledgerspec.spec.cache._normative import operation
from ledgerspec.traces.cache.bulk._chunk import NULL, Chunk, Ints
from ledgerspec.traces.cache.bulk._state import Copies, Handlers, LiveTable

if TYPE_CHECKING:
    from ledgerspec.spec.cache._config import CacheConfig
    from ledgerspec.traces.cache.bulk._facts import Facts


class Accelerator:
    """An invariant's check. Each method reports what breaks through the view it is given."""

    def events(self, view: EventsView) -> None:
        """Judge a segment of events, each with the shadow's facts before it."""

    def pass_end(self, view: PassView) -> None:
        """Judge a finished pass: what it removed and requeued, and the cache after it."""

    def finish(self, view: EndView) -> str | None:
        """What the end of a broker's events leaves unjudged: why the verdict is incomplete, or None.

        A trace may end anywhere; an event judged by a later one is not judged by the end alone when
        what it shows so far could still be made right by events the trace does not have.
        """


Report = Callable[[str, int, str, "tuple[int, int] | None"], None]
"""The replay's sink: (invariant, event index in the segment, message, first divergence or None)."""


def op_name(pass_kind: int, ledger: int, bound: int, kind: int) -> str:
    """The operation an event came from, as far as events tell: the spec's :func:`operation`, from codes."""
    return operation(
        PASS_KINDS[pass_kind] if pass_kind >= 0 else None,
        None if ledger == NULL else ledger,
        None if bound == NULL else bound,
        KIND_NAMES[kind] if kind >= 0 else "",
    )


@dataclass
class EventsView:
    """A segment of one broker's events, with the shadow's facts before each (``_facts.Facts``)."""

    profile: str
    config: CacheConfig
    c: Chunk
    f: Facts
    cursor_counts: Ints
    """For ``cursor_count`` and ``cursor_read``: the cursor's count (``cursor_count``'s answer); for ``append``:
    its ledger's active cursors; for ``cursor_remove``: 1 if the cursor was active, else 0 (else NULL)."""
    slowest: Ints
    """For cursor events and a ``pass_start`` naming a cursor: its ledger's slowest active read position
    after the event (NULL: none active, or another event)."""
    sink: Report
    copies: Copies
    """The copies open when the segment began."""
    handlers: Handlers
    """The handlers live when the segment began."""
    table: LiveTable
    """The entries cached when the segment began."""
    enabled: bool = True
    """The cache was enabled at start (``max_size > 0``)."""
    scratch: dict[str, Any] = field(default_factory=dict)
    """Per invariant, what its check keeps for this broker from one segment to the next."""
    load_cached: Callable[[int, int], LiveTable] | None = None
    """The entries of a ledger cached after the first ``limit`` events of the segment: ``(limit, ledger)``."""
    sink_at: Callable[[str, int, int, str], None] | None = None
    """Reports a violation at an event given by (seq, row): one of an earlier segment, too."""
    invariant: str = ""

    def cached(self, limit: int, ledger: int) -> LiveTable:
        """The entries of ``ledger`` cached after the first ``limit`` events of the segment (a state query: costly)."""
        assert self.load_cached is not None, "the replay gives every segment its state query"
        return self.load_cached(limit, ledger)

    def state(self) -> Any:
        """The current invariant's own state for this broker (a check that must remember more than the shadow)."""
        return self.scratch.get(self.invariant)

    def keep_state(self, state: Any) -> None:
        """Store :meth:`state` for the next segment."""
        self.scratch[self.invariant] = state

    def report(
        self,
        indices: Iterable[int] | Ints,
        message: Callable[[int], str],
        first: Callable[[int], tuple[int, int] | None] | None = None,
    ) -> None:
        """Report the events at ``indices`` as violations; ``message(i)`` words each.

        ``first(i)``: the (seq, row) where the divergence event ``i`` shows began, if earlier (:class:`Finding`).
        """
        for i in np.asarray(indices, dtype=np.int64).tolist():
            self.sink(self.invariant, i, message(i), None if first is None else first(i))

    def report_at(self, i: int, message: str) -> None:
        """Report event ``i`` as a violation."""
        self.sink(self.invariant, i, message, None)

    def report_event(self, seq: int, row: int, message: str) -> None:
        """Report the event (seq, row) as a violation, wherever the trace was cut into segments."""
        assert self.sink_at is not None, "the replay gives every segment its sink"
        self.sink_at(self.invariant, seq, row, message)

    def position(self, i: int) -> tuple[int, int]:
        """(ledger, entry) of event ``i``."""
        return int(self.c.ledger[i]), int(self.c.entry[i])

    def op(self, i: int) -> str:
        """The name of the operation event ``i`` came from."""
        if self.c.label is not None:
            return self.c.label
        index = int(self.f.pass_index[i])
        if index < 0:
            return op_name(-1, NULL, NULL, int(self.c.kind[i]))
        open_pass = self.f.passes[index]
        return op_name(open_pass.kind, open_pass.ledger, open_pass.entry, int(self.c.kind[i]))

    def open_copies(self, handler: int, i: int) -> list[int]:
        """The copies sharing ``handler`` that are open just before event ``i``, in dispatch order."""
        copies = [int(c) for c in self.copies.copy[self.copies.handler == handler]]
        kinds, ids, shared = self.c.kind[:i].tolist(), self.c.copy[:i].tolist(), self.f.copy_handler[:i].tolist()
        for kind, copy, owner in zip(kinds, ids, shared, strict=True):
            if kind == HIT and owner == handler:
                copies.append(copy)
            elif kind == RELEASE and copy in copies:
                copies.remove(copy)
        return copies

    def handler_position(self, handler: int) -> tuple[int, int]:
        """The position a handler was made for."""
        at = np.flatnonzero(self.handlers.hid == handler)
        if len(at):
            return int(self.handlers.ledger[at[0]]), int(self.handlers.entry[at[0]])
        i = handler - self.f.base
        return self.position(int(i))

    def pass_rank(self, i: int) -> int:
        """The rank of the pass event ``i`` is in (its :attr:`PassView.rank`); ``i`` must be in a pass."""
        return self.f.passes[int(self.f.pass_index[i])].rank

    def pass_kinds(self) -> Ints:
        """Per event: the kind of the pass it is in (-1: none)."""
        kinds = np.array([p.kind for p in self.f.passes] + [-1], np.int64)
        return kinds[self.f.pass_index]

    def pass_values(self) -> Ints:
        """Per event: the target of the pass it is in (NULL: none, or a pass without one)."""
        values = np.array([p.value for p in self.f.passes] + [NULL], np.int64)
        return values[self.f.pass_index]

    def pass_nows(self) -> Ints:
        """Per event: the time of the pass it is in (NULL: none)."""
        nows = np.array([p.now for p in self.f.passes] + [NULL], np.int64)
        return nows[self.f.pass_index]


@dataclass
class PassView:
    """A finished pass: what it removed and requeued, the queue's head after it, and the cache after it.

    :attr:`table` and :attr:`counts` rebuild the cache at the pass's end when first read; a check asks
    the cheap questions first (:attr:`head_enter`, :attr:`oldest_ts`) and reads them only when needed.
    """

    profile: str
    config: CacheConfig
    kind: int
    now: int
    rank: int
    ledger: int
    entry: int
    before: int
    """The size the ``pass_start`` showed."""
    after: int
    """The size the ``pass_end`` showed."""
    removed: LiveTable
    """The entries it removed, as they were, in the order of their removal."""
    removed_counts: Ints
    """Their handlers' counts before the removal (NULL: no handler)."""
    requeued: LiveTable
    """The entries it requeued, as they were before (an entry requeued twice shows twice)."""
    requeued_counts: Ints
    """Their handlers' counts before."""
    head_enter: int | None
    """The queue rank of the entry at the head after the pass (None: nothing cached)."""
    oldest_ts: int | None
    """The oldest timestamp cached after the pass (None: nothing cached, or not known without :attr:`table`)."""
    load_entries: Callable[[int | None, int | None], LiveTable]
    """The entries cached after the pass: ``(ledger, below)``, each None for all."""
    load_counts: Callable[[LiveTable], Ints]
    label: str
    sink: Callable[[str, str], None]
    invariant: str = ""
    scratch: dict[str, Any] = field(default_factory=dict)
    """Per invariant, what its check keeps for this broker (shared with :attr:`EventsView.scratch`)."""
    value: int = NULL
    """The target the operation gave the pass, if any (``_events.PASS_KINDS``): bytes, cutoff, a range's first entry."""
    _table: LiveTable | None = None
    _counts: Ints | None = None

    @property
    def table(self) -> LiveTable:
        """The cached entries after the pass, sorted by key."""
        if self._table is None:
            self._table = self.load_entries(None, None)
        return self._table

    @property
    def counts(self) -> Ints:
        """Handler counts of :attr:`table`'s entries (NULL: no handler)."""
        if self._counts is None:
            self._counts = self.load_counts(self.table)
        return self._counts

    def cached_in(self, ledger: int, below: int | None = None) -> LiveTable:
        """The entries of one ledger cached after the pass, before ``below`` if given (cheaper than :attr:`table`)."""
        if self._table is None:
            return self.load_entries(ledger, below)
        wanted = self.table.ledger == ledger
        if below is not None:
            wanted &= self.table.entry < below
        return self.table.take(wanted)

    @property
    def name(self) -> str:
        """``size``, ``ttl``, ``invalidate``, ``clear``, ``bytes``, ``cutoff`` or ``range``."""
        return PASS_KINDS[self.kind]

    def state(self) -> Any:
        """The current invariant's own state for this broker, as its :meth:`Accelerator.events` kept it."""
        return self.scratch.get(self.invariant)

    def report(self, messages: Iterable[str]) -> None:
        """Report violations at the pass's end."""
        for message in messages:
            self.sink(self.invariant, message)


@dataclass
class EndView:
    """The end of a broker's events: the cache after the last one, and each check's kept state."""

    profile: str
    config: CacheConfig
    table: LiveTable
    """The entries cached after the last event, sorted by key."""
    scratch: dict[str, Any]
    invariant: str = ""

    def state(self) -> Any:
        """The current invariant's own state for this broker, as its :meth:`Accelerator.events` kept it."""
        return self.scratch.get(self.invariant)

    def cached_in(self, ledger: int) -> LiveTable:
        """The entries of one ledger cached after the last event."""
        return self.table.take(self.table.ledger == ledger)


def table_counts(table: LiveTable, hids: Ints, counts: Ints) -> Ints:
    """The handler count of each entry of ``table`` (NULL where it has none), from sorted ``hids``."""
    if not len(table):
        return np.zeros(0, np.int64)
    if not len(hids):
        return np.full(len(table), NULL, np.int64)
    at = np.minimum(np.searchsorted(hids, table.handler), len(hids) - 1)
    found = (table.handler >= 0) & (hids[at] == table.handler)
    return np.where(found, counts[at], NULL)


def show(value: int) -> str:
    """An integer column's value as the monitor prints it (``None`` for NULL)."""
    return "None" if value == NULL else str(value)
