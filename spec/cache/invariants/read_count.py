"""CACHE-READ-COUNT: counts change only by the profile's rules; copies agree with their entry."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import COPIES, COUNTS, MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._rules_counts import first_open_copy, holds, show_count, where


class ReadCount(Check):
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
    check=READ_COUNT,
    needs={"*": frozenset({COPIES, COUNTS})},
    events={"*": frozenset({"insert", "hit", "release", "replay_increment", "merge", "remove", "mark_evicted"})},
    soundness="an entry's handler and its copies live in one broker",
    conformance_only="a count that changes on a copy or entry no event of the step touched",
)
