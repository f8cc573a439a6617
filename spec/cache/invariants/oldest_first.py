"""CACHE-OLDEST-FIRST: size eviction frees the oldest entries first, across ledgers."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import SIZE_LIKE as SIZE_PASSES
from ledgerspec.spec.cache._shadow import Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import COUNTS, MASTER, PIP430, SEGMENTED, TIMES, Invariant


class OldestFirst(Check):
    """A size pass (a ring's rotation too) frees from the queue's head, across ledgers.

    When it removes an entry, every entry still cached that entered the queue before it was skipped
    for a reason the profile allows (``order_violations``).
    """

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """Judge what a size or bytes pass kept against the newest entry it removed."""
        if done.kind in SIZE_PASSES:
            for message in rules.order_violations(
                done, judge.shadow, judge.profile, judge.config.ttl_max, "size eviction"
            ):
                judge.report(message)


INVARIANT = Invariant(
    order=2,
    id="CACHE-OLDEST-FIRST",
    statement=(
        "Size eviction frees the oldest entries first, globally across ledgers: when a size-eviction "
        "step removes an entry, every entry that entered the queue before it and is still cached was "
        "skipped for a reason the profile allows (pip430: positive expected read count and younger than "
        "thresholdMax; pulsar-master: requeued by this step; segmented: none, a whole segment goes)."
    ),
    citation=(
        "apache/pulsar pip/pip-430.md (PR #24444) 'Eviction Consideration'; PR #24623 (490ba0cca1) "
        "RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold; PR #24363 (8ce67b97b3) motivation; "
        "apache/bookkeeper 9590a97f67 bookie/storage/ldb/ReadCache.java (rotation)"
    ),
    profiles=(PIP430, MASTER, SEGMENTED),
    check=OldestFirst(),
    needs={PIP430: frozenset({TIMES, COUNTS}), MASTER: frozenset({TIMES})},
    events={"*": frozenset({"insert", "remove", "requeue", "pass_start", "pass_end"})},
    soundness="size eviction walks the broker's one queue (or ring), never one ledger's",
)
