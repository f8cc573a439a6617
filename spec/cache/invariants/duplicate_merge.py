"""CACHE-DUPLICATE-MERGE (pip430): a duplicate insert adds its expected reads to the cached entry."""

from __future__ import annotations

from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._ops import Insert
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import COUNTS, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._rules_counts import show_count


class DuplicateMerge(Check):
    """pip430: inserting a cached position is refused and merges the insert's expected reads into its count.

    The insert returns false (no ``insert`` of a cached position); the count after is the count before
    plus the reads the insert asked for (a ``merge`` shows it, an ``insert_refused`` leaves it), except
    that an EVICTED handler refuses the merge and an entry without a handler has nothing to add to.
    """

    kinds = frozenset({"insert", "insert_refused", "merge"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one insert of a position: a cached one is refused, and its count merged."""
        event, cached = at.event, at.cached
        if cached is None:
            return
        if event.kind == "insert":
            judge.report(f"insert of cached {event.position} returned True, expected False")
            return
        reads = _asked(at)
        unchanged = at.count == EVICTED or cached.handler < 0
        expected = at.count if unchanged else (at.count or 0) + reads
        got = event.count if event.kind == "merge" else at.count
        if got != expected:
            judge.report(
                f"insert of cached {event.position} with {reads} reads: count {show_count(got)}, "
                f"expected {show_count(expected)}"
            )

    def step(self, view: StepView) -> None:
        """A refused duplicate that changed the entry's size or timestamp (no event shows them)."""
        op = view.op
        if not isinstance(op, Insert) or view.result is True:
            return
        before, after = view.before.entry(op.ledger, op.entry), view.after.entry(op.ledger, op.entry)
        if before is not None and (after is None or (after.size, after.timestamp) != (before.size, before.timestamp)):
            view.report([f"insert of cached {before.position} changed it from {before} to {after}"])


def _asked(at: At) -> int:
    """The expected reads the duplicate insert brings: a merge's value, a refused insert's count."""
    event = at.event
    if event.kind == "insert_refused":
        return event.count or 0
    return 0 if event.value is None else int(event.value)


DUPLICATE_MERGE = DuplicateMerge()


INVARIANT = Invariant(
    order=12,
    id="CACHE-DUPLICATE-MERGE",
    statement=(
        "Inserting a position that is cached returns false, leaves size and timestamp as they were, and "
        "adds the new expected read count to the cached entry's count (unless it is EVICTED or the "
        "cached entry was created without a handler)."
    ),
    citation="apache/pulsar pip/pip-430.md (PR #24444, cf3d7d17d9) RangeEntryCacheImpl.insert (increaseReadCount)",
    profiles=(PIP430,),
    check=DUPLICATE_MERGE,
    needs={"*": frozenset({COUNTS})},
    events={"*": frozenset({"insert", "insert_refused", "merge", "remove"})},
    soundness="whether a position is cached is a fact of the broker's cache at that point",
    conformance_only="a refused duplicate that changes the entry's size or timestamp (no event shows them)",
)
