"""CACHE-BACKLOG-CACHING: what a cursor reads from storage is cached iff its count is > 0, with that count.

On traces a ``cursor_read`` starts one BookKeeper ledger's read and the reader's ``cursor_seek`` past it
ends it (FORMAT.md: a read's events are written together); each position it missed is judged then. A
read cut short by any other event (it failed, or was abandoned) is not judged; a trace that ends inside a
read with a judgement pending is UNKNOWN (the reader's move past it would have come next).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledgerspec.spec.cache._base import cursors_at_or_before
from ledgerspec.spec.cache._ledger import bookkeeper_reads
from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import CursorRead
from ledgerspec.spec.cache._shadow import At, Event
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, legacy_mode
from ledgerspec.spec.cache.invariants._rules_counts import EVERY_KIND, tracking


@dataclass
class _Read:
    """One BookKeeper ledger's read by a cursor, under way.

    ``missed``: positions it read from storage and has not cached; ``cached``: those it cached and the
    reader has no copy of yet.
    """

    ledger: int
    cursor: str
    count: int
    """The reader's count at the read's start (0 with tracking off, or a disabled cache)."""
    seq: int
    start: int
    """The read position it starts at (``entry`` of its ``cursor_read``)."""
    missed: set[int] = field(default_factory=set)
    cached: set[int] = field(default_factory=set)

    def what(self, entry: int) -> str:
        return f"{(self.ledger, entry)} read from storage by {self.cursor!r} (seq {self.seq}) counting {self.count}"


_READ_KINDS = frozenset({"hit", "miss", "insert", "insert_refused", "merge"})
"""The kinds of a read's own events, between its ``cursor_read`` and the reader's ``cursor_seek``."""


class BacklogCaching(Check):
    """What a cursor reads from storage is cached exactly when its count is > 0, with that count, and it gets a copy.

    A ``cursor_read`` starts one BookKeeper ledger's read, with the reader's count then (0 with tracking
    off, or a disabled cache); the reader's ``cursor_seek`` past its start ends it. A position it missed
    is cached (an ``insert``) only if that count is > 0, with that count; at its end every missed position
    is cached, and the reader got a copy (a ``hit``) of each it cached. Any other event ends the read
    unjudged (it failed, or was abandoned).
    """

    kinds = EVERY_KIND

    def event(self, at: At, judge: Judge) -> None:
        """Start a read, follow its events, or judge it at the reader's move past it."""
        event, memory = at.event, judge.memory
        if event.kind == "cursor_read":
            count = (at.cursor_count or 0) if tracking(judge) and judge.enabled else 0
            memory["read"] = _Read(event.ledger or 0, event.cursor or "", count, event.seq, event.entry or 0)
            return
        read: _Read | None = memory.get("read")
        if read is not None and self._ends(read, event, judge):
            memory["read"] = None

    @staticmethod
    def _ends(read: _Read, event: Event, judge: Judge) -> bool:
        """Follow one event of ``read``; True when it ends the read.

        The reader's move past the read's start ends it, judged; any event that is not a read's
        (a failed or abandoned read) ends it unjudged.
        """
        if event.kind == "cursor_seek" and event.ledger == read.ledger and event.cursor == read.cursor:
            if event.entry is not None and event.entry > read.start:
                BacklogCaching._ended(read, judge)
            return True
        if event.kind not in _READ_KINDS or event.ledger != read.ledger:
            return True
        entry = event.entry if event.entry is not None else -1
        if event.kind == "miss":
            read.missed.add(entry)
        elif event.kind == "insert" and entry in read.missed:
            read.missed.discard(entry)
            if read.count == 0:
                judge.report(f"{read.what(entry)}: cached with count {event.count}")
                return False
            if event.count not in (None, read.count):
                judge.report(f"{read.what(entry)}: cached with count {event.count}")
            read.cached.add(entry)
        elif event.kind == "hit":
            read.cached.discard(entry)
        return False

    @staticmethod
    def _ended(read: _Read, judge: Judge) -> None:
        """The reader moved past ``read``: what it missed is cached, and the reader holds it."""
        for entry in sorted(read.missed if read.count > 0 else ()):
            judge.report(f"{read.what(entry)}: not cached")
        for entry in sorted(read.cached):
            judge.report(f"{read.what(entry)}: cached, but the reader got no copy of it")

    def finish(self, judge: Judge) -> str | None:
        """A read under way at the end with entries its end judges: what it cached, or missed and must cache."""
        read: _Read | None = judge.memory.get("read")
        if read is None:
            return None
        pending = sorted(read.cached | (read.missed if read.count > 0 else set()))
        if not pending:
            return None
        return (
            f"the trace ends inside the read of ledger {read.ledger} by {read.cursor!r} (seq {read.seq}): "
            f"{[(read.ledger, entry) for entry in pending]} read from storage are judged when the reader moves past it"
        )

    def step(self, view: StepView) -> None:
        """That a read answers one result per position it asked for, each cached with the reader's count."""
        op = view.op
        if not isinstance(op, CursorRead) or (op.ledger, op.cursor) not in view.cursors:
            return
        first = view.cursors[op.ledger, op.cursor]
        results = list(view.result) if isinstance(view.result, tuple | list) else []
        if len(results) != op.last - first + 1:
            view.report([f"read of {first}..{op.last} by {op.cursor!r} returned {len(results)} results"])
            return
        copies, messages = view.after.copy_counts(), []
        cursors = dict(view.cursors)
        for part_first, part_last in bookkeeper_reads(view.reopens, op.ledger, first, op.last):
            cursors[op.ledger, op.cursor] = part_first  # the cursor moved past the earlier parts
            count = 0 if legacy_mode(view) else cursors_at_or_before(cursors, op.ledger, op.cursor)
            for entry in range(part_first, part_last + 1):
                message = self._entry(view, op, entry, results[entry - first], count, copies)
                if message is not None:
                    messages.append(message)
        view.report(messages)

    @staticmethod
    def _entry(
        view: StepView, op: CursorRead, entry: int, copy: int | None, count: int, copies: dict[int, int | None]
    ) -> str | None:
        """What is wrong with the read of ``entry`` from storage by a cursor counting ``count`` (None: nothing)."""
        if view.before.entry(op.ledger, entry) is not None:
            return None  # a hit (CACHE-NO-STALE-READ)
        got = view.after.entry(op.ledger, entry)
        if not (count > 0 and view.enabled):
            if got is not None or copy is not None:
                return f"{(op.ledger, entry)} read from storage was cached with the reader's count {count}"
            return None
        alone = CachedEntry(ledger=op.ledger, entry=entry, size=1, count=count, timestamp=op.now)
        (want,) = view.project(Observation(entries=(alone,), size=0, counters=Counters(), copies=())).entries
        if got is None or got.count != want.count or copy is None or copies.get(copy) != want.count:
            shown = "not cached" if got is None else f"count {got.count}, copy {copy}"
            return f"{(op.ledger, entry)} read from storage by a cursor counting {count}: {shown}"
        return None


BACKLOG_CACHING = BacklogCaching()


INVARIANT = Invariant(
    order=24,
    id="CACHE-BACKLOG-CACHING",
    statement=(
        "An entry a cursor reads from storage is cached exactly when the cursor's count "
        "(getNumberOfCursorsAtSamePositionOrBefore, evaluated once per BookKeeper ledger read, before the cursor "
        "moves past it; 0 with expected-read-count tracking off) is > 0, with that count, and the reader gets a "
        "copy sharing it."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/cache/RangeEntryCacheImpl.readFromStorage, "
        "impl/ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore / isCacheReadEntry; "
        "impl/OpReadEntry.checkReadCompletion and ManagedLedgerImpl.internalReadFromLedger (a read per "
        "BookKeeper ledger, managed-ledger 4.2.4)"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=BACKLOG_CACHING,
    needs={"*": frozenset({LEDGER})},
    events={"*": frozenset({"cursor_read", "cursor_add", "cursor_seek", "cursor_remove", "miss", "insert", "hit"})},
    soundness=(
        "a ledger's cursors and the reads of them are all in the broker that holds its cache, and a read's "
        "events are written together"
    ),
    conformance_only="that a read answers one result per position it asked for",
)
