"""CACHE-FIFO: the removal queue is first-in first-out, and a TTL pass walks it in order."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import TTL_LIKE as TIMESTAMP_PASSES
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import MASTER, PIP430, TIMES, Invariant
from ledgerspec.spec.cache.invariants._rules import protected


class Fifo(Check):
    """An entry enters the queue stamped with its insert's time and leaves it in order.

    Its timestamp changes only by a requeue of a pass walking the queue, to that pass's time, and only
    in pulsar-master; pip430 stashes (skips) only a protected entry younger than thresholdMax; and a
    timestamp pass that removes an entry keeps none that entered the queue before it, except what the
    profile lets it skip (``order_violations``).
    """

    kinds = frozenset({"insert", "requeue", "stash"})

    def event(self, at: At, judge: Judge) -> None:
        """An insert's stamp, a requeue's new stamp, a stash's excuse."""
        event, cached = at.event, at.cached
        if event.kind == "insert":
            if event.timestamp != event.time:
                judge.report(
                    f"inserted {event.position} at now={event.time} but its timestamp is {rules.show(event.timestamp)}"
                )
        elif event.kind == "requeue":
            if cached is None:
                judge.report(f"requeued {event.position}, which is not cached")
            elif not self.may_restamp(at, judge.profile):
                judge.report(
                    f"{judge.op(at)} changed the timestamp of {event.position} from {rules.show(cached.timestamp)} "
                    f"to {rules.show(event.timestamp)}"
                )
        elif not self.may_stash(at, judge):
            judge.report(f"stashed {event.position}, which is not a protected, unexpired entry in a pip430 pass")

    @staticmethod
    def may_restamp(at: At, profile: str) -> bool:
        """pulsar-master: a pass walking the queue requeues an entry to its tail, stamped with the event's time."""
        return profile == MASTER and rules.walking(at) and at.event.timestamp == at.event.time

    @staticmethod
    def may_stash(at: At, judge: Judge) -> bool:
        """pip430: a pass walking the queue skips a cached entry that is protected and younger than thresholdMax."""
        if judge.profile != PIP430 or at.cached is None or not rules.walking(at):
            return False
        assert at.in_pass is not None, "walking"
        return protected(at.count, at.cached.timestamp, at.in_pass.now, judge.config.ttl_max)

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """A timestamp pass removes from the queue's head, skipping only what the profile allows."""
        if done.kind in TIMESTAMP_PASSES:
            for message in rules.order_violations(
                done, judge.shadow, judge.profile, judge.config.ttl_max, "timestamp pass"
            ):
                judge.report(message)


INVARIANT = Invariant(
    order=1,
    id="CACHE-FIFO",
    statement=(
        "The removal queue is first-in first-out: an inserted entry is stamped with the insert's time; "
        "its timestamp changes only when an eviction pass requeues it to the tail, and then to that "
        "pass's time (pulsar-master; never in pip430); and a timestamp pass that removes an entry keeps "
        "no entry that entered the queue before it, except one the profile lets the pass skip (pip430: "
        "a protected entry younger than thresholdMax, stashed; pulsar-master: an entry it requeued)."
    ),
    citation=(
        "apache/pulsar pip/pip-430.md (PR #24444, cf3d7d17d9) 'Eviction Consideration'; PR #24623 (490ba0cca1) "
        "RangeCacheRemovalQueue; PR #24363 (8ce67b97b3) 'Incorrect Timestamp-Based Eviction'"
    ),
    profiles=(PIP430, MASTER),
    check=Fifo(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "requeue", "stash", "remove", "pass_start", "pass_end"})},
    soundness="one removal queue per broker: queue order is a property of the broker's events, never of one ledger's",
)
