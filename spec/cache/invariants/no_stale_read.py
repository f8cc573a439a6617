"""CACHE-NO-STALE-READ: reads agree with the content; invalidation removes exactly its range."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CLEAR_PASS, HIT, INVALIDATE_PASS, MISS, RANGE_MISS, RANGE_PASS, REMOVE
from ledgerspec.spec.cache._normative import Judge, Rule
from ledgerspec.spec.cache._ops import GetRange
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants._chunk import NULL, Bools, Ints
from ledgerspec.spec.cache.invariants._declare import (
    LEGACY,
    MASTER,
    PIP430,
    Check,
    EventsView,
    Invariant,
    PassView,
    StepView,
)
from ledgerspec.spec.cache.invariants._rules_counts import covers, pass_label


def in_range(kind: int, ledger: int, bound: int, ledgers: Ints, entries: Ints, first: int = NULL) -> Bools:
    """The positions a forced pass covers: a ledger below ``bound`` (NULL: all of it), from ``first`` for a range."""
    if kind == CLEAR_PASS:
        return np.ones(len(ledgers), np.bool_)
    covered: Bools = (ledgers == ledger) & ((bound == NULL) | (entries < bound))
    if kind == RANGE_PASS:
        covered &= entries >= first
    return covered


class _NoStaleRead(Check):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        hits, misses = c.kind == HIT, c.kind == MISS
        if view.profile == LEGACY:  # legacy reads a range whole from storage when any of it is missing
            misses &= c.reason != RANGE_MISS
        view.report(
            np.flatnonzero(hits & ~f.live),
            lambda i: f"read of {view.position(i)} hit (copy {c.copy[i]}) but it was not cached",
        )
        view.report(np.flatnonzero(misses & f.live), lambda i: f"read of {view.position(i)} missed but it was cached")
        shown = hits & f.live & (c.count != NULL) & (c.count != f.count)
        view.report(
            np.flatnonzero(shown),
            lambda i: f"copy {c.copy[i]} of {view.position(i)} shows count {c.count[i]}, not the entry's",
        )
        kinds = view.pass_kinds()
        removes = (c.kind == REMOVE) & f.live & ((kinds == INVALIDATE_PASS) | (kinds == RANGE_PASS))
        if removes.any():
            ledgers = np.array([p.ledger for p in f.passes] + [NULL], np.int64)[f.pass_index]
            bounds = np.array([p.entry for p in f.passes] + [NULL], np.int64)[f.pass_index]
            outside = (c.ledger != ledgers) | ((bounds != NULL) & (c.entry >= bounds))
            outside |= (kinds == RANGE_PASS) & (c.entry < view.pass_values())
            view.report(np.flatnonzero(removes & outside), lambda i: f"{view.op(i)} also removed {view.position(i)}")

    def pass_end(self, view: PassView) -> None:
        if view.kind not in (INVALIDATE_PASS, CLEAR_PASS, RANGE_PASS):
            return
        bound = None if view.entry == NULL else view.entry  # an invalidation's bound, a range's end: nothing above
        table = view.table if view.kind == CLEAR_PASS else view.cached_in(view.ledger, bound)
        left = np.flatnonzero(in_range(view.kind, view.ledger, view.entry, table.ledger, table.entry, view.value))
        left = left[np.lexsort((table.entry[left], table.ledger[left]))]
        view.report(f"{view.label} left {(int(table.ledger[i]), int(table.entry[i]))} cached" for i in left.tolist())

    def step(self, view: StepView) -> None:
        NO_STALE_READ.step(view)


class NoStaleRead(Rule):
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
    check=_NoStaleRead(),
    rule=NO_STALE_READ,
    events={"*": frozenset({"insert", "remove", "hit", "miss", "pass_start", "pass_end"})},
    soundness="a read is judged against the broker's cache content at that point",
    conformance_only="a range read answering a different number of positions than it asked for",
)
