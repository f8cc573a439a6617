"""CACHE-TTL: a timestamp pass removes exactly the expired entries."""

from __future__ import annotations

from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At, Cached, Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import COUNTS, MASTER, PIP430, TIMES, Invariant


def has_expired(profile: str, config: CacheConfig, count: int | None, timestamp: int | None, now: int) -> bool:
    """pulsar-master: ts < now - ttl; pip430: ts < now - thresholdMax, or count <= 0 and ts < now - ttl.

    An entry without a known timestamp counts as stamped now (it has not expired).
    """
    stamp = now if timestamp is None else timestamp
    if profile == PIP430:
        unprotected = count is None or count <= 0
        return stamp < now - config.ttl_max or (unprotected and stamp < now - config.ttl)
    return stamp < now - config.ttl


class Ttl(Check):
    """A timestamp pass at ``now`` removes only expired entries and leaves none.

    A TTL pass judges each removal (and, in pulsar-master, each requeue: the walk reaches only expired
    entries) by the entry's timestamp and count before it, and what is left at its end. A pass with an
    explicit cutoff (pulsar-master ``evictLEntriesBeforeTimestamp(cutoff)``) does the same with ts < cutoff.
    """

    kinds = frozenset({"remove", "requeue"})

    def event(self, at: At, judge: Judge) -> None:
        """A removal (a requeue, pulsar-master) in a TTL pass must meet an expired entry."""
        done, cached = at.in_pass, at.cached
        if done is None or done.kind != "ttl" or cached is None:
            return
        if has_expired(judge.profile, judge.config, at.count, cached.timestamp, done.now):
            return
        if at.event.kind == "remove":
            judge.report(
                f"removed {cached.position} (timestamp {rules.show(cached.timestamp)}, count {rules.show(at.count)}), "
                f"which has not expired at {done.now}"
            )
        elif judge.profile == MASTER:
            judge.report(
                f"requeued {cached.position} (timestamp {rules.show(cached.timestamp)}), "
                f"which has not expired at {done.now}"
            )

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """A TTL pass leaves no expired entry; a cutoff pass (pulsar-master) takes exactly those before it."""
        if done.kind == "cutoff" and judge.profile == MASTER:
            for message in self.cutoff_violations(done, judge):
                judge.report(message)
        elif done.kind == "ttl":
            shadow = judge.shadow
            for entry in sorted(shadow.entries.values(), key=lambda e: e.position):
                count = shadow.count_of(entry)
                if has_expired(judge.profile, judge.config, count, entry.timestamp, done.now):
                    judge.report(
                        f"left {entry.position} (timestamp {rules.show(entry.timestamp)}, "
                        f"count {rules.show(count)}), expired at {done.now}"
                    )

    @staticmethod
    def cutoff_violations(done: Pass, judge: Judge) -> list[str]:
        """Only ts < cutoff is removed or requeued, and none such is left (an unknown one counts as earliest)."""
        cutoff = done.value
        touched: list[tuple[str, Cached]] = [("removed", entry) for entry, _ in done.removed]
        touched += [("requeued", entry) for entry, _ in done.requeued]
        messages = [
            f"{what} {entry.position} (timestamp {rules.show(entry.timestamp)}), not before the cutoff "
            f"{rules.show(cutoff)}"
            for what, entry in touched
            if not rules.before(entry.timestamp, cutoff)
        ]
        left = sorted(judge.shadow.entries.values(), key=lambda e: e.position)
        messages += [
            f"left {entry.position} (timestamp {rules.show(entry.timestamp)}), before the cutoff {rules.show(cutoff)}"
            for entry in left
            if rules.before(entry.timestamp, cutoff)
        ]
        return messages


INVARIANT = Invariant(
    order=7,
    id="CACHE-TTL",
    statement=(
        "A timestamp pass at `now` removes only expired entries and leaves none: pulsar-master: expired "
        "means ts < now - ttl (strict), the pass requeues no other entry, and every entry left has ts >= "
        "now - ttl (requeued entries carry the pass's time); pip430: expired means count <= 0 and ts < "
        "now - ttl, or ts < now - thresholdMax. A pass with an explicit cutoff (pulsar-master "
        "evictLEntriesBeforeTimestamp(cutoff)) does the same with ts < cutoff."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeEntryCacheManagerImpl.doEvictByTimestamp (strict <); "
        "pip/pip-430.md (PR #24444) two TTLs; PR #24363 (8ce67b97b3) 'Incorrect Timestamp-Based Eviction'"
    ),
    profiles=(PIP430, MASTER),
    check=Ttl(),
    needs={PIP430: frozenset({TIMES, COUNTS}), MASTER: frozenset({TIMES})},
    events={"*": frozenset({"insert", "remove", "requeue", "pass_start", "pass_end"})},
    soundness="a TTL pass walks the broker's one queue",
)
