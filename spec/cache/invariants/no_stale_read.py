"""CACHE-NO-STALE-READ: reads agree with the content; invalidation removes exactly its range."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._ops import GetRange
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._rules_counts import covers, pass_label


class NoStaleRead(Check):
    """Reads agree with the cache, and an invalidation removes exactly its range.

    A hit only of a cached position, its copy showing the entry's count; a miss only of an uncached one
    (legacy: or of any position of a range read that missed one, read whole from storage). An
    invalidation, a clear or a range removal removes nothing outside what it covers and leaves nothing
    inside it cached.
    """

    kinds = frozenset({"hit", "miss", "remove"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one read, or one removal of a forced pass."""
        event, cached = at.event, at.cached
        if event.kind == "hit":
            if cached is None:
                judge.report(f"read of {event.position} hit (copy {event.copy}) but it was not cached")
            elif event.count is not None and event.count != at.count:
                judge.report(f"copy {event.copy} of {event.position} shows count {event.count}, not the entry's")
        elif event.kind == "miss":
            whole_range = judge.profile == LEGACY and event.reason == "range"
            if cached is not None and not whole_range:
                judge.report(f"read of {event.position} missed but it was cached")
        else:
            self._removal(at, judge)

    @staticmethod
    def _removal(at: At, judge: Judge) -> None:
        """An invalidation or a range removal removes only what it covers (a clear covers everything)."""
        removing = at.in_pass
        if at.cached is None or removing is None or removing.kind not in ("invalidate", "range"):
            return
        if not covers(removing, at.event.position):
            judge.report(f"{judge.op(at)} also removed {at.event.position}")

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """A forced pass leaves nothing it covers cached."""
        if done.kind not in ("invalidate", "clear", "range"):
            return
        left = sorted(position for position in judge.shadow.entries if covers(done, position))
        label = pass_label(done, judge)
        for position in left:
            judge.report(f"{label} left {position} cached")

    def step(self, view: StepView) -> None:
        """A range read answering a different number of positions than it asked for."""
        op = view.op
        if isinstance(op, GetRange):
            wanted = op.last - op.first + 1
            results = list(view.result) if isinstance(view.result, tuple | list) else [view.result]
            if len(results) != wanted:
                view.report([f"read of {wanted} positions returned {len(results)} results"])


NO_STALE_READ = NoStaleRead()


INVARIANT = Invariant(
    order=8,
    id="CACHE-NO-STALE-READ",
    statement=(
        "Reads agree with the cache: a hit only for a cached position and a miss only for an uncached "
        "one (legacy: or for any position of a range read that has an uncached one, read whole from "
        "storage), the copy a hit dispatches shares the entry's count; after invalidating a position, a "
        "ledger or the whole cache, none of the matching entries is left and no other entry is removed."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeEntryCacheImpl.getRange / invalidateEntries / "
        "invalidateAllEntries, RangeEntryCacheManagerImpl.clear"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=NO_STALE_READ,
    events={"*": frozenset({"insert", "remove", "hit", "miss", "pass_start", "pass_end"})},
    soundness="a read is judged against the broker's cache content at that point",
    conformance_only="a range read answering a different number of positions than it asked for",
)
