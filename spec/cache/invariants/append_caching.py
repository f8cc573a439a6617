"""CACHE-APPEND-CACHING: an append is cached iff its ledger has an active cursor, expecting one read per cursor.

On traces an ``append`` is judged by the event right after it: the cache is offered the entry (an
``insert``, an ``insert_refused`` or a ``merge`` of its position) exactly when the cursor events left its
ledger an active cursor, and a cached one carries the expected reads its mode gives. A trace ending on an
append its ledger's cursors await is UNKNOWN: the event offering it would come next.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import Append
from ledgerspec.spec.cache._shadow import At, Position
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, legacy_mode
from ledgerspec.spec.cache.invariants._rules_counts import EVERY_KIND, tracking


@dataclass(frozen=True)
class _Append:
    """An append waiting for the event after it: where it was, and its ledger's active cursors then."""

    seq: int
    position: Position
    active: int

    @property
    def what(self) -> str:
        return f"append of {self.position} with {self.active} active cursor(s) on the ledger"


class AppendCaching(Check):
    """An append is offered to the cache exactly when its ledger has an active cursor, right after it.

    The event right after an ``append`` is the cache being offered its position (an ``insert``, an
    ``insert_refused`` or a ``merge``) exactly when the ledger had an active cursor; a cached one counts
    one expected read per active cursor with tracking on, and has no read-count handler with it off.
    """

    kinds = EVERY_KIND

    def event(self, at: At, judge: Judge) -> None:
        """Judge the append before this event, if any; remember this one if it is an append."""
        event, memory = at.event, judge.memory
        waiting: _Append | None = memory.pop("append", None)
        if waiting is not None:
            self._next(waiting, at, judge)
        if event.kind == "append":
            active = at.cursor_count or 0
            memory["append"] = _Append(event.seq, event.position, active)

    @staticmethod
    def _next(append: _Append, at: At, judge: Judge) -> None:
        """Judge ``append`` by the event right after it."""
        event = at.event
        offered = event.kind in ("insert", "insert_refused", "merge") and event.position == append.position
        cached = offered and event.kind == "insert"
        if offered != (append.active > 0):
            judge.report(f"{append.what}: {'offered to' if offered else 'not offered to'} the cache")
        elif cached and event.count is not None and not tracking(judge):
            judge.report(f"{append.what}: cached with count {event.count}, want no read-count handler")
        elif cached and event.count not in (None, append.active):
            judge.report(f"{append.what}: cached with count {event.count}, want {append.active}")

    def finish(self, judge: Judge) -> str | None:
        """An append last in the events with an active cursor: the event offering it may be cut off."""
        waiting: _Append | None = judge.memory.get("append")
        if waiting is None or waiting.active == 0:
            return None  # nothing after an append with no active cursor is what it must do
        return (
            f"the trace ends right after the append of {waiting.position} (seq {waiting.seq}) with "
            f"{waiting.active} active cursor(s) on the ledger: the event offering it to the cache would come next"
        )

    def step(self, view: StepView) -> None:
        """That an append the cache took is cached with its size and the append's time as timestamp."""
        op = view.op
        if not isinstance(op, Append) or not view.enabled or view.before.entry(op.ledger, op.entry) is not None:
            return  # a duplicate is the insert's business (CACHE-DUPLICATE-*)
        readers = sum(1 for ledger, _ in view.cursors if ledger == op.ledger)
        room = view.profile != LEGACY or view.before.size < view.config.max_size  # legacy: hasSpaceInCache
        wanted = readers > 0 and room
        if bool(view.result) != wanted:
            shown = "cached" if view.result else "not cached"
            view.report([f"append of {(op.ledger, op.entry)} {shown} with {readers} active cursor(s) on the ledger"])
            return
        got = view.after.entry(op.ledger, op.entry)
        if not wanted:
            if got is not None:
                view.report([f"append of {(op.ledger, op.entry)} returned False but the entry is cached"])
            return
        count = None if legacy_mode(view) else readers
        alone = CachedEntry(ledger=op.ledger, entry=op.entry, size=op.size, count=count, timestamp=op.now)
        (expected,) = view.project(Observation(entries=(alone,), size=0, counters=Counters(), copies=())).entries
        if got is None or got.count != expected.count:
            shown = "not cached" if got is None else f"count {got.count}"
            view.report([f"append of {(op.ledger, op.entry)} with {readers} active cursor(s): {shown}, want {count}"])


APPEND_CACHING = AppendCaching()


INVARIANT = Invariant(
    order=23,
    id="CACHE-APPEND-CACHING",
    statement=(
        "An appended entry is cached exactly when its ledger has at least one active cursor (and the cache "
        "takes the insert), expecting as many reads as the ledger has active cursors with expected-read-count "
        "tracking on, and with no read-count handler with it off (legacy: never a count)."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/OpAddEntry.java and ManagedLedgerImpl.shouldCacheAddedEntry; "
        "impl/ManagedLedgerImpl.java at 8ce67b97b3^"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=APPEND_CACHING,
    needs={"*": frozenset({LEDGER})},
    events={"*": frozenset({"append", "insert", "insert_refused", "merge", "cursor_add", "cursor_remove"})},
    soundness="a ledger's cursors and the appends to it are all in the broker that holds its cache",
    conformance_only="that an append the cache took is cached with its size and the append's time as timestamp",
)
