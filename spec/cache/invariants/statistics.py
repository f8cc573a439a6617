"""CACHE-STATISTICS: the factory's counters evictions and hit_bytes move exactly as the merged code records them."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check
from ledgerspec.spec.cache._ops import CursorRead, EvictSize, Get, GetRange
from ledgerspec.spec.cache.invariants._declare import MASTER, PIP430, Invariant, StepView

EVICTIONS, HIT_BYTES = "observe_evictions", "observe_hit_bytes"
"""The adapter capabilities that show the two counters (conformance/cache/adapters/_api.py)."""


class Statistics(Check):
    """hit_bytes grows by the sizes the step's reads hit; evictions by one exactly when a size eviction frees bytes."""

    def step(self, view: StepView) -> None:
        """Judge the counters before and after the step (a counter not observed is not judged)."""
        before, after, op = view.before.counters, view.after.counters, view.op
        messages = []
        if before.hit_bytes is not None and after.hit_bytes is not None:
            read = _bytes_hit(view)
            if after.hit_bytes - before.hit_bytes != read:
                messages.append(f"hit_bytes went from {before.hit_bytes} to {after.hit_bytes}; the hits read {read}")
        if before.evictions is not None and after.evictions is not None:
            size, config = view.before.size, view.config
            runs = int(isinstance(op, EvictSize) and size > config.trigger_size and size > config.watermark_size)
            if after.evictions - before.evictions != runs:
                messages.append(
                    f"evictions went from {before.evictions} to {after.evictions} on {op.describe()} "
                    f"(size before {size}, trigger {config.trigger_size}): expected +{runs}"
                )
        view.report(messages)


def _bytes_hit(view: StepView) -> int:
    """The sizes of the cached entries the step's read hit (a copy id in its result), as cached before it."""
    op, sizes = view.op, view.before.by_position()
    if isinstance(op, Get):
        hits = [((op.ledger, op.entry), view.result)]
    elif isinstance(op, GetRange):
        hits = [((op.ledger, op.first + i), copy) for i, copy in enumerate(view.result)]
    elif isinstance(op, CursorRead):  # read from the cursor's position to last; copies of what storage returned miss
        first = op.last + 1 - len(view.result)
        hits = [((op.ledger, first + i), copy) for i, copy in enumerate(view.result)]
    else:
        return 0
    return sum(sizes[at].size for at, copy in hits if copy is not None and at in sizes)


RULE = Statistics()


INVARIANT = Invariant(
    order=19,
    id="CACHE-STATISTICS",
    statement=(
        "The factory's statistics: hit_bytes grows by exactly the sizes of the entries a step's reads hit; "
        "evictions grows by one exactly when a size eviction runs with bytes to free (the size above the "
        "trigger and the watermark), and by nothing else: not by a TTL pass, an explicit bytes pass or a removal."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold "
        "(recordCacheEviction), ManagedLedgerFactoryMBeanImpl.recordCacheHit / getCacheHitsBytesTotal"
    ),
    profiles=(PIP430, MASTER),
    check=RULE,
    needs={"*": frozenset({EVICTIONS, HIT_BYTES})},
    soundness="counters are observed, never recorded as events: checked in conformance only",
    on_traces=False,
    conformance_only="all of it: counters are not events",
)
