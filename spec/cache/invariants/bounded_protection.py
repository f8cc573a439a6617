"""CACHE-BOUNDED-PROTECTION (pulsar-master): protection by expected reads is bounded, and it holds.

Requeues for expected reads alone stop at maxRequeue; and a timestamp pass removes no entry that still
has expected reads and requeues left.
"""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import MASTER, TIMES, Invariant


class BoundedProtection(Check):
    """Requeues for expected reads alone stop at maxRequeue, and a pass meeting an entry once keeps it while due.

    A requeue with no read since the entry last entered the queue (or with extend_ttl off) needs
    expected reads and fewer than maxRequeue requeues; a timestamp pass that meets each entry once
    removes none that has expected reads and requeues left (``shouldRequeue`` keeps it).
    """

    kinds = frozenset({"requeue", "remove"})

    def event(self, at: At, judge: Judge) -> None:
        """A requeue or a removal of a cached entry by a pass."""
        done, cached = at.in_pass, at.cached
        if done is None or cached is None:
            return
        config = judge.config
        if at.event.kind == "requeue":
            if not rules.walking(at) or (cached.accessed and config.extend_ttl):
                return  # a read since it entered the queue extends it (with extend_ttl): no bound
            if cached.requeues >= config.max_requeue:
                judge.report(
                    f"{cached.position} was requeued again without a read after {cached.requeues} requeues "
                    f"(max {config.max_requeue})"
                )
            elif at.count is None or at.count < 1:
                judge.report(f"{cached.position} was requeued with no read since it entered and no expected reads")
        elif self.meets_once(done) and self.due_requeue(at, config.max_requeue):
            judge.report(
                f"removed {cached.position} with {at.count} expected reads after {cached.requeues} requeues "
                f"(max {config.max_requeue}): it is requeued"
            )

    @staticmethod
    def meets_once(done: Pass) -> bool:
        """A TTL pass, or a cutoff at or before its time: it never meets an entry it requeued again.

        A requeued entry is stamped with the pass's time; a size or bytes pass, or a cutoff after
        ``now`` (or none given), may go round the queue, requeueing an entry until its budget is spent
        and then removing it, which looks from outside like a removal alone.
        """
        return done.kind == "ttl" or (done.kind == "cutoff" and done.value is not None and done.value <= done.now)

    @staticmethod
    def due_requeue(at: At, max_requeue: int) -> bool:
        """It has expected reads and requeues left (an exactly known count of requeues).

        Only the expected reads are judged, not ``accessed``: a trace's hits include the reader's copy
        of an entry a storage read has just cached, which does not mark it accessed.
        """
        cached = at.cached
        assert cached is not None, "a cached entry"
        return cached.exact and at.count is not None and at.count >= 1 and cached.requeues < max_requeue


INVARIANT = Invariant(
    order=9,
    id="CACHE-BOUNDED-PROTECTION",
    statement=(
        "Protection by expected reads is bounded: an entry is requeued for its expected reads alone (no "
        "read since it last entered the queue) only while it has expected reads and has been requeued "
        "fewer than maxRequeue times, so no entry is permanently non-evictable. And protection holds: a "
        "timestamp pass (TTL, or a cutoff at or before its time) removes no entry that has expected reads "
        "and fewer than maxRequeue requeues (shouldRequeue keeps it). (Seen from outside, several requeues "
        "of one entry within one pass count as one: the bound can be missed, never invented.)"
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeCacheRemovalQueue shouldRequeue, "
        "managedLedgerCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes"
    ),
    profiles=(MASTER,),
    check=BoundedProtection(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "requeue", "hit", "remove", "pass_start"})},
    soundness="requeues go through the broker's one queue",
)
