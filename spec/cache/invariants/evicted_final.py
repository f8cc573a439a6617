"""CACHE-EVICTED-FINAL (pip430): forced removal marks EVICTED; EVICTED is final; increments report it."""

from __future__ import annotations

from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import FORCED as FORCED_PASSES
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import COPIES, COUNTS, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._rules_counts import first_open_copy, show_count


def _forced(at: At) -> bool:
    """The event is in a forced removal's pass (invalidation, clear, range removal)."""
    return at.in_pass is not None and at.in_pass.kind in FORCED_PASSES


class EvictedFinal(Check):
    """pip430: a forced removal marks its entry's handler EVICTED, and EVICTED is final.

    A copy of an EVICTED handler shows EVICTED when it is released or incremented; an entry removed by
    force shows EVICTED; ``incrementExpectedReadCount`` returns false exactly on an EVICTED handler or a
    copy without one; ``markEvicted`` happens only in a forced removal of a cached entry.
    """

    kinds = frozenset({"release", "replay_increment", "remove", "mark_evicted"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one release, replay increment, removal or mark."""
        event, kind = at.event, at.event.kind
        changed = event.count is not None and event.count != EVICTED
        if kind in ("release", "replay_increment") and at.copy_open and at.count == EVICTED and changed:
            judge.report(f"copy {event.copy} was EVICTED and now shows count {event.count}")
        cached = at.cached
        if kind == "remove" and cached is not None and _forced(at) and cached.handler >= 0 and changed:
            seen = first_open_copy(judge, cached.handler)
            judge.report(f"{event.position} was removed by force but {seen} shows count {event.count}, not EVICTED")
        if kind == "replay_increment":
            self._increment(at, judge)
        if kind == "mark_evicted" and not (_forced(at) and cached is not None):
            judge.report(f"markEvicted of {event.position} outside a forced removal of a cached entry")

    @staticmethod
    def _increment(at: At, judge: Judge) -> None:
        """``incrementExpectedReadCount`` returns true on a live handler, false on EVICTED or no handler."""
        event = at.event
        count = at.count if at.copy_open else None
        nothing = at.copy_open and at.copy_handler < 0  # a copy without a handler: nothing to increment
        wanted = not nothing and count != EVICTED
        got = None if event.result is None else bool(event.result)
        if got is None or got != wanted:
            judge.report(
                f"incrementExpectedReadCount through copy {event.copy} (count {show_count(count)}) returned "
                f"{got!r}, expected {wanted}"
            )

    def step(self, view: StepView) -> None:
        """An EVICTED copy showing another count after a step whose events did not touch it."""
        view.report(
            f"{d.member} was EVICTED and now shows count {d.observed}"
            for d in view.differences
            if d.member.startswith("copy") and d.expected == EVICTED and d.observed != EVICTED
        )


EVICTED_FINAL = EvictedFinal()


INVARIANT = Invariant(
    order=4,
    id="CACHE-EVICTED-FINAL",
    statement=(
        "A forced removal (invalidation, ledger deletion, clear) marks the removed entry's read-count "
        "handler EVICTED (Integer.MIN_VALUE / 2), as every open copy sharing it shows; once EVICTED, a "
        "handler stays EVICTED: markRead leaves it and incrementExpectedReadCount returns false and "
        "leaves it, while on a live handler it returns true."
    ),
    citation="apache/pulsar pip/pip-430.md (PR #24444, cf3d7d17d9) EntryReadCountHandler",
    profiles=(PIP430,),
    check=EVICTED_FINAL,
    needs={"*": frozenset({COPIES, COUNTS})},
    events={"*": frozenset({"hit", "release", "replay_increment", "remove", "mark_evicted", "pass_start"})},
    soundness="a handler is shared by an entry and its copies, all within one broker",
    conformance_only="an EVICTED copy showing another count after a step whose events did not touch it",
)
