"""CACHE-QUEUE-ACCOUNTING: the removal queue's length and each wrapper's requeue count and accessed flag.

Black-box, from two observations around a step: nothing here reads the model's state. The
tombstones (the queue's length less the cached entries) are the one part no event shows.
"""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check
from ledgerspec.spec.cache._observation import CachedEntry
from ledgerspec.spec.cache._ops import CursorRead, EvictBefore, EvictBytes, EvictSize, EvictTimestamp, Get, GetRange
from ledgerspec.spec.cache.invariants._declare import MASTER, TIMES, Invariant, StepView

QUEUE_LENGTH, REQUEUES, ACCESSED = "observe_queue_length", "observe_requeues", "observe_accessed"
"""The adapter capabilities that show the queue's length and the two wrapper fields
(conformance/cache/adapters/_api.py)."""


PASSES = (EvictSize, EvictTimestamp, EvictBytes, EvictBefore)
"""The operations that walk the queue: the only ones that requeue, and the only ones that drop tombstones."""


class QueueAccounting(Check):
    """The queue's length and the wrappers' requeue counts and accessed flags, across one observed step.

    Every cached entry is queued, and only a pass shortens the queue (:func:`_queue_length`); a
    wrapper's fields change only as ``markRequeued()`` and reads change them (:func:`_wrappers`).
    """

    def step(self, view: StepView) -> None:
        """Judge the observations before and after the step."""
        view.report(_queue_length(view) + _wrappers(view))


def _queue_length(view: StepView) -> list[str]:
    """Every cached entry is queued; only a pass shortens the queue, by its removals and tombstones.

    Off a pass an insert adds one wrapper and a forced removal leaves its wrapper as a tombstone, so the
    length grows by the new entries exactly. A pass drops what it removes and the tombstones it meets
    at the head (MISSING), never more tombstones than there were.

    Micro-scenario: A, B cached (length 2); invalidate A -> length 2 (one tombstone). A TTL pass that
    removes B drops B and may drop A's tombstone: length 1 or 0, never 2, never below 0.
    """
    before, after = view.before, view.after
    if after.queue_length is None:
        return []
    messages = []
    if after.queue_length < len(after.entries):
        messages.append(f"queue_length {after.queue_length} < {len(after.entries)} cached entries")
    if before.queue_length is None:
        return messages
    cached_before, cached_after = before.by_position().keys(), after.by_position().keys()
    added, removed = len(cached_after - cached_before), len(cached_before - cached_after)
    grew = after.queue_length - before.queue_length
    if not isinstance(view.op, PASSES):
        if grew != added:
            messages.append(
                f"queue_length went from {before.queue_length} to {after.queue_length} on {view.op.describe()}, "
                f"which cached {added} new entries: off a pass the queue grows by exactly its inserts "
                "(a removed entry's wrapper stays as a tombstone)"
            )
    else:
        tombstones = before.queue_length - len(before.entries)
        dropped = -grew - removed
        if added or not 0 <= dropped <= tombstones:
            messages.append(
                f"queue_length went from {before.queue_length} to {after.queue_length} on {view.op.describe()}, "
                f"which removed {removed} entries with {tombstones} tombstones queued: a pass drops its "
                "removals and at most the tombstones it meets"
            )
    return messages


def _wrappers(view: StepView) -> list[str]:
    """Requeue counts and accessed flags change only as ``markRequeued()`` and reads change them."""
    before, after, op = view.before.by_position(), view.after.by_position(), view.op
    hits = _hit_positions(view)
    messages = []
    for position, entry in after.items():
        old = before.get(position)
        if old is None:
            if entry.requeues not in (None, 0) or entry.accessed not in (None, False):
                messages.append(f"entry {position}: new, with requeues {entry.requeues}, accessed {entry.accessed}")
            continue
        if isinstance(op, PASSES):
            messages += _after_pass(position, old, entry, view)
        elif entry.requeues is not None and entry.requeues != old.requeues:
            messages.append(f"entry {position}: requeues {old.requeues} -> {entry.requeues} off a pass")
        if entry.accessed is None or old.accessed is None or isinstance(op, PASSES):
            continue
        expected = True if position in hits else old.accessed
        if entry.accessed != expected:
            read = "read" if position in hits else "not read"
            messages.append(f"entry {position}: accessed {old.accessed} -> {entry.accessed}, {read} by {op.describe()}")
    return messages


def _after_pass(position: tuple[int, int], old: CachedEntry, entry: CachedEntry, view: StepView) -> list[str]:
    """A pass requeues an entry by ``markRequeued()``: requeues + 1, ``accessed`` cleared, stamped now.

    Without the recently-accessed extension, only expected reads requeue, and only below ``max_requeue``.
    """
    if entry.requeues is None or old.requeues is None:
        return []
    if entry.requeues < old.requeues:
        return [f"entry {position}: requeues went down, {old.requeues} -> {entry.requeues}"]
    if entry.requeues == old.requeues:
        if entry.accessed is not None and old.accessed is not None and entry.accessed != old.accessed:
            return [f"entry {position}: accessed {old.accessed} -> {entry.accessed} in a pass without a requeue"]
        if entry.timestamp is not None and old.timestamp is not None and entry.timestamp != old.timestamp:
            return [f"entry {position}: timestamp {old.timestamp} -> {entry.timestamp} without a requeue"]
        return []
    messages = []
    if entry.accessed:
        messages.append(f"entry {position}: requeued ({old.requeues} -> {entry.requeues}) but still accessed")
    if entry.timestamp is not None and entry.timestamp != view.op.now:
        messages.append(f"entry {position}: requeued but stamped {entry.timestamp}, not now {view.op.now}")
    limit = max(old.requeues, view.config.max_requeue)
    if not view.config.extend_ttl and entry.requeues > limit:
        messages.append(
            f"entry {position}: requeued to {entry.requeues} with extend_ttl off and max_requeue "
            f"{view.config.max_requeue}: only expected reads requeue, and only below max_requeue"
        )
    return messages


def _hit_positions(view: StepView) -> set[tuple[int, int]]:
    """The positions a read hit (a copy id in its result)."""
    op = view.op
    if isinstance(op, Get):
        return {(op.ledger, op.entry)} if view.result is not None else set()
    if isinstance(op, GetRange):
        return {(op.ledger, op.first + i) for i, copy in enumerate(view.result) if copy is not None}
    if isinstance(op, CursorRead) and isinstance(view.result, list | tuple):
        # the cursor read [its position, last]: one item per position; those cached before it were
        # hits of getRange, the rest came from storage (new wrappers, never marked accessed)
        first = op.last - len(view.result) + 1
        return {(op.ledger, first + i) for i, copy in enumerate(view.result) if copy is not None}
    return set()


RULE = QueueAccounting()


INVARIANT = Invariant(
    order=21,
    id="CACHE-QUEUE-ACCOUNTING",
    statement=(
        "The removal queue holds a wrapper for every cached entry and the tombstone of every entry removed "
        "by force until a pass meets it at the head: off a pass its length grows by exactly the new entries; "
        "a pass shortens it by its removals and at most the tombstones queued. A new wrapper has requeues 0 "
        "and accessed false; a read sets accessed; only a pass requeues, and a requeue adds to requeues, "
        "clears accessed and stamps now; with extend_ttl off nothing is requeued past max_requeue."
    ),
    citation=(
        "managed-ledger 4.2.4 (apache/pulsar PR #24623, 490ba0cca1) RangeCacheRemovalQueue.handleQueue / "
        "evaluateEvictionPredicate (MISSING), RangeCacheEntryWrapper.markRemoved / markRequeued, RangeCache.get"
    ),
    profiles=(MASTER,),
    check=RULE,
    needs={"*": frozenset({QUEUE_LENGTH, REQUEUES, ACCESSED, TIMES})},
    soundness="tombstones, requeue counts and the accessed flag are observed, never recorded: conformance only",
    on_traces=False,
    conformance_only="all of it: the queue's length and the wrapper fields are observations, not events",
)
