"""CACHE-WATERMARK: size eviction starts above the trigger and stops at the watermark, no further."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import Pass
from ledgerspec.spec.cache.invariants._declare import COUNTS, MASTER, PIP430, TIMES, Invariant
from ledgerspec.spec.cache.invariants._rules import protected


class Watermark(Check):
    """A size pass (not a ring's rotation inside an insert) against the trigger and the watermark."""

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """Judge a size pass by the sizes its start and end showed and what it removed."""
        if done.kind != "size" or done.inside_insert:
            return
        config = judge.config
        trigger, watermark = config.trigger_size, config.watermark_size
        removed = [entry for entry, _ in done.removed]
        if done.before <= trigger:
            if removed:
                judge.report(f"size {done.before} is not above the trigger {trigger}, yet {len(removed)} entries went")
            return
        if done.after > watermark:
            left = judge.shadow.entries.values()
            excused = judge.profile == PIP430 and all(
                protected(judge.shadow.count_of(entry), entry.timestamp, done.now, config.ttl_max) for entry in left
            )
            if not excused:
                judge.report(
                    f"size {done.before} was above the trigger {trigger}; "
                    f"after eviction {done.after} > watermark {watermark}"
                )
        elif removed and done.after + max(entry.size for entry in removed) <= watermark:
            judge.report(
                f"evicted down to {done.after}, more than needed: the watermark {watermark} was reached "
                "before the last entry removed"
            )


INVARIANT = Invariant(
    order=6,
    id="CACHE-WATERMARK",
    statement=(
        "A size-eviction step does nothing unless the size is above (long)(maxSize * trigger); above it, "
        "it ends at or below (long)(maxSize * watermark), stopping at the entry that gets it there, "
        "unless (pip430 only) every entry left is protected and younger than thresholdMax."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold; "
        "pip/pip-430.md (PR #24444) 'Eviction Consideration'"
    ),
    profiles=(PIP430, MASTER),
    check=Watermark(),
    needs={PIP430: frozenset({TIMES, COUNTS})},
    events={"*": frozenset({"insert", "remove", "pass_start", "pass_end"})},
    soundness="the trigger and the watermark apply to the broker-wide size",
)
