"""CACHE-READ-COUNT: counts change only by the profile's rules; copies agree with their entry."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import INSERT, MERGE, RELEASE, REMOVE, REPLAY
from ledgerspec.spec.cache._normative import Judge, Rule
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._chunk import NULL
from ledgerspec.spec.cache.invariants._declare import (
    COPIES,
    COUNTS,
    MASTER,
    PIP430,
    Check,
    EventsView,
    Invariant,
    StepView,
    show,
)
from ledgerspec.spec.cache.invariants._rules_counts import first_open_copy, holds, show_count, where


def member(view: EventsView, i: int) -> str:
    """Who showed the count event ``i`` carries: the copy itself, the entry, or another open copy.

    A release shows the count through the entry if it is still cached with that handler, else through
    another open copy; a removal through an open copy; a replay through its own copy.
    """
    c, f = view.c, view.f
    kind, handler = int(c.kind[i]), int(f.touched[i])
    if kind == REPLAY:
        return f"copy {c.copy[i]}"
    if kind == RELEASE and _entry_holds(view, handler, i):
        return f"entry {view.handler_position(handler)}"
    copies = [k for k in view.open_copies(handler, i) if not (kind == RELEASE and k == c.copy[i])]
    return f"copy {copies[0]}" if copies else "its handler"


def _entry_holds(view: EventsView, handler: int, i: int) -> bool:
    """Whether the entry the handler was made for is cached with it just before event ``i``."""
    ledger, entry = view.handler_position(handler)
    c, f = view.c, view.f
    mine = np.flatnonzero((c.ledger[:i] == ledger) & (c.entry[:i] == entry) & np.isin(c.kind[:i], (INSERT, REMOVE)))
    if len(mine):
        last = int(mine[-1])
        return bool(c.kind[last] == INSERT and f.base + last == handler)
    return bool(np.any(view.table.handler == handler))


class _ReadCount(Check):
    def events(self, view: EventsView) -> None:
        c, f = view.c, view.f
        shown = (f.touched >= 0) & (c.count != NULL) & (c.count != f.expected)
        changed = shown & c.of_kinds(RELEASE, REPLAY, REMOVE)
        view.report(
            np.flatnonzero(changed),
            lambda i: (
                f"{member(view, i)} (handler of {view.handler_position(int(f.touched[i]))}) shows count "
                f"{c.count[i]} after {view.op(i)}; expected {show(int(f.expected[i]))} (was {show(int(f.count[i]))})"
            ),
        )
        copies = c.of_kinds(RELEASE, REPLAY)
        view.report(
            np.flatnonzero(copies & ~f.copy_open),
            lambda i: (
                f"{'release of' if c.kind[i] == RELEASE else 'replay increment through'} copy {c.copy[i]}, "
                "which is not open"
            ),
        )
        view.report(
            np.flatnonzero((c.kind == RELEASE) & f.copy_open & (f.copy_handler < 0) & (c.count != NULL)),
            lambda i: f"copy {c.copy[i]} has no handler but its release shows count {c.count[i]}",
        )
        view.report(
            np.flatnonzero((c.kind == MERGE) & ~(f.live & (f.handler >= 0))),
            lambda i: f"merged a count into {view.position(i)}, which is not cached or has no handler",
        )

    def step(self, view: StepView) -> None:
        READ_COUNT.step(view)


class ReadCount(Rule):
    """A handler's count moves only by the profile's rule, and everyone sharing it shows the same count.

    A release or a replay increment goes through an open copy; a copy without a handler shows no count;
    a merge adds to a cached entry that has a handler. Whatever shows a count (a release, a replay
    increment, a removal) shows the one the rule gives (the shadow's ``expected``).
    """

    kinds = frozenset({"release", "replay_increment", "remove", "merge"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one release, replay increment, removal or merge."""
        event = at.event
        if event.kind == "merge":
            if at.cached is None or at.cached.handler < 0:
                judge.report(f"merged a count into {event.position}, which is not cached or has no handler")
            return  # the count a merge shows: CACHE-DUPLICATE-MERGE, CACHE-DUPLICATE-REFUSED
        shows = event.count is not None
        if at.handler >= 0 and shows and event.count != at.expected:
            judge.report(
                f"{self._member(at, judge)} (handler of {where(judge, at.handler)}) shows count {event.count} "
                f"after {judge.op(at)}; expected {show_count(at.expected)} (was {show_count(at.count)})"
            )
        if event.kind in ("release", "replay_increment") and not at.copy_open:
            through = "release of" if event.kind == "release" else "replay increment through"
            judge.report(f"{through} copy {event.copy}, which is not open")
        if event.kind == "release" and at.copy_open and at.copy_handler < 0 and shows:
            judge.report(f"copy {event.copy} has no handler but its release shows count {event.count}")

    @staticmethod
    def _member(at: At, judge: Judge) -> str:
        """Who showed the count.

        A replay increment its own copy; a release the entry if still cached with the handler, else
        another open copy; a removal an open copy.
        """
        event = at.event
        if event.kind == "replay_increment":
            return f"copy {event.copy}"
        if event.kind == "release" and holds(judge, at.handler):
            return f"entry {where(judge, at.handler)}"
        return first_open_copy(judge, at.handler, but=event.copy if event.kind == "release" else None)

    def step(self, view: StepView) -> None:
        """A count that changed on a copy or entry that no event of the step touched."""
        op = type(view.op).__name__
        view.report(
            f"{d.member} (handler of {d.handler_of}) shows count {d.observed} after {op}; "
            f"expected {d.expected} (was {d.expected})"
            for d in view.differences
        )


READ_COUNT = ReadCount()


INVARIANT = Invariant(
    order=11,
    id="CACHE-READ-COUNT",
    statement=(
        "An expected read count changes only through the operations the profile defines, by their "
        "amounts: pip430: -1 per released copy, +1 per replay increment, +n per merged duplicate, "
        "EVICTED on forced removal, all refused once EVICTED; pulsar-master: -1 per released copy, +1 "
        "per replay increment, -1 when the cache's own value is released on removal (D7), none without "
        "a handler. Every open copy and the cached entry sharing a handler show the same count."
    ),
    citation=(
        "apache/pulsar pip/pip-430.md (PR #24444) EntryReadCountHandler; PR #24623 (490ba0cca1) "
        "EntryReadCountHandlerImpl, RangeCacheEntryWrapper release"
    ),
    profiles=(PIP430, MASTER),
    check=_ReadCount(),
    rule=READ_COUNT,
    needs={"*": frozenset({COPIES, COUNTS})},
    events={"*": frozenset({"insert", "hit", "release", "replay_increment", "merge", "remove", "mark_evicted"})},
    soundness="an entry's handler and its copies live in one broker",
    conformance_only="a count that changes on a copy or entry no event of the step touched",
)
