"""CACHE-BACKLOG-CACHING: what a cursor reads from storage is cached iff its count is > 0, with that count."""

from __future__ import annotations

from ledgerspec.spec.cache._base import cursors_at_or_before
from ledgerspec.spec.cache._ledger import bookkeeper_reads
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import CursorRead
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, legacy_mode


class _BacklogCaching(Check):
    """Per BookKeeper ledger read: a reopen starts one, and the count of each is taken at its start."""

    def step(self, view: StepView) -> None:
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
    check=_BacklogCaching(),
    needs={"*": frozenset({LEDGER})},
    soundness="the reading cursor's count is not an event: checked in conformance only",
    on_traces=False,
    conformance_only="all of it: whether a read is cached depends on the cursors before it",
)
