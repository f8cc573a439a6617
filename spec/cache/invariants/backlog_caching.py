"""CACHE-BACKLOG-CACHING: what a cursor reads from storage is cached iff its count is > 0, with that count."""

from __future__ import annotations

from ledgerspec.spec.cache._base import cursors_at_or_before
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import CursorRead
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, legacy_mode


class _BacklogCaching(Check):
    def step(self, view: StepView) -> None:
        op = view.op
        if not isinstance(op, CursorRead) or (op.ledger, op.cursor) not in view.cursors:
            return
        first = view.cursors[op.ledger, op.cursor]
        results = list(view.result) if isinstance(view.result, tuple | list) else []
        if len(results) != op.last - first + 1:
            view.report([f"read of {first}..{op.last} by {op.cursor!r} returned {len(results)} results"])
            return
        count = 0 if legacy_mode(view) else cursors_at_or_before(view.cursors, op.ledger, op.cursor)
        copies, messages = view.after.copy_counts(), []
        for entry, copy in zip(range(first, op.last + 1), results, strict=True):
            if view.before.entry(op.ledger, entry) is not None:
                continue  # a hit (CACHE-NO-STALE-READ)
            got = view.after.entry(op.ledger, entry)
            if not (count > 0 and view.enabled):
                if got is not None or copy is not None:
                    messages.append(
                        f"{(op.ledger, entry)} read from storage was cached with the reader's count {count}"
                    )
                continue
            alone = CachedEntry(ledger=op.ledger, entry=entry, size=1, count=count, timestamp=op.now)
            (want,) = view.project(Observation(entries=(alone,), size=0, counters=Counters(), copies=())).entries
            if got is None or got.count != want.count or copy is None or copies.get(copy) != want.count:
                shown = "not cached" if got is None else f"count {got.count}, copy {copy}"
                messages.append(f"{(op.ledger, entry)} read from storage by a cursor counting {count}: {shown}")
        view.report(messages)


INVARIANT = Invariant(
    order=24,
    id="CACHE-BACKLOG-CACHING",
    statement=(
        "An entry a cursor reads from storage is cached exactly when the cursor's count "
        "(getNumberOfCursorsAtSamePositionOrBefore, evaluated once for the batch before it moves; 0 with "
        "expected-read-count tracking off) is > 0, with that count, and the reader gets a copy sharing it."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/cache/RangeEntryCacheImpl.readFromStorage, "
        "impl/ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore / isCacheReadEntry"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=_BacklogCaching(),
    needs={"*": frozenset({LEDGER})},
    soundness="the reading cursor's count is not an event: checked in conformance only",
    on_traces=False,
    conformance_only="all of it: whether a read is cached depends on the cursors before it",
)
