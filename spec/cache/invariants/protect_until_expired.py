"""CACHE-PROTECT-UNTIL-EXPIRED (pip430): no eviction removes a protected entry younger than thresholdMax."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import COUNTS, PIP430, TIMES, Invariant
from ledgerspec.spec.cache.invariants._rules import protected


class ProtectUntilExpired(Check):
    """No size or timestamp pass removes an entry with a positive count that is younger than thresholdMax."""

    kinds = frozenset({"remove"})

    def event(self, at: At, judge: Judge) -> None:
        """A removal by a pass walking the queue, judged by the entry's count and timestamp before it."""
        done, cached = at.in_pass, at.cached
        if done is None or cached is None or not rules.walking(at):
            return
        ttl_max = judge.config.ttl_max
        if protected(at.count, cached.timestamp, done.now, ttl_max):
            judge.report(
                f"{judge.op(at)} removed {cached.position} with count {rules.show(at.count)} and timestamp "
                f"{rules.show(cached.timestamp)}, younger than thresholdMax (now {done.now} - {ttl_max})"
            )


INVARIANT = Invariant(
    order=3,
    id="CACHE-PROTECT-UNTIL-EXPIRED",
    statement=(
        "No eviction (size or timestamp) removes an entry whose expected read count is positive before "
        "it is older than thresholdMax (ts >= now - thresholdMax keeps it)."
    ),
    citation=(
        "apache/pulsar pip/pip-430.md (PR #24444, cf3d7d17d9) 'Eviction Consideration' and the "
        "evictLeastAccessedEntries predicate"
    ),
    profiles=(PIP430,),
    check=ProtectUntilExpired(),
    needs={"*": frozenset({TIMES, COUNTS})},
    events={"*": frozenset({"insert", "remove", "release", "replay_increment", "merge", "pass_start"})},
    soundness="an entry's count is changed by its copies, all within the broker",
)
