"""Profile ``pulsar-master``: the entry cache as merged (SPEC.md, "Profile pulsar-master").

Bounded requeue to the tail instead of a stash, the ``accessed`` flag and its TTL extension, one TTL
with strict ``<``, size eviction that ignores timestamps, duplicate inserts refused, ``markRead``
with no floor. Sources: apache/pulsar PR #24623 (merged as 490ba0cca1) and later fixes up to
fbcfacf324 (PR #25988); ``RangeCacheRemovalQueue.java``, ``RangeEntryCacheImpl.java``,
``RangeEntryCacheManagerImpl.java`` and ``RangeCache.java`` under
``managed-ledger/src/main/java/org/apache/bookkeeper/mledger/impl/cache/``, and
``impl/EntryReadCountHandlerImpl.java``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ledgerspec.spec._rules import Rule, RuleTable
from ledgerspec.spec.cache._base import (
    COMMON_RULES,
    Base,
    Handler,
    Outcome,
    Work,
    deterministic,
    require,
    run_step,
)
from ledgerspec.spec.cache._citations import SPEC, ledger_layer, on_removals
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._kernels import (
    Verdict,
    master_should_requeue,
    master_size_verdict,
    master_timestamp_verdict,
)
from ledgerspec.spec.cache._ledger import ledger_rules
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import (
    Clear,
    EvictBefore,
    EvictBytes,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    Op,
    Release,
    RemoveRange,
    ReplayIncrement,
)

NAME = "pulsar-master"


@dataclass(frozen=True)
class Wrapper:
    """``RangeCacheEntryWrapper``: ``handler`` is None when the entry was inserted with count <= 0."""

    ledger: int
    entry: int
    size: int
    ts: int
    handler: int | None
    requeues: int = 0
    accessed: bool = False


TOMBSTONE = None
"""A removed entry's wrapper, still queued: ``markRemoved`` nulls its key (apache/pulsar#24623)."""


@dataclass(frozen=True)
class State:
    """One queue, in queue order, with the tombstones (None) of entries removed by force.

    ``removeRange`` and ``clear`` unmap an entry and leave its wrapper queued with a null key. A pass
    that finds one at the head drops it (MISSING, checked before the predicate, so even after a size
    pass has freed enough) and goes on: a tombstone never stops a pass nor counts towards the size
    freed. Only the queue's length (``observe_queue_length``) shows them
    (``RangeCacheRemovalQueue.handleQueue`` / ``evaluateEvictionPredicate``, managed-ledger 4.2.4).

    Micro-scenario: A, B, C queued; invalidate B -> queue A, ~, C (length 3). A size pass freeing A's
    bytes removes A, drops the tombstone (MISSING), then STOPs at C: length 1.
    """

    base: Base
    queue: tuple[Wrapper | None, ...] = ()


class _Work(Work):
    def __init__(self, state: State) -> None:
        super().__init__(state.base)
        self.queue: list[Wrapper | None] = list(state.queue)

    def index(self, ledger: int, entry: int) -> int | None:
        for index, wrapper in enumerate(self.queue):
            if wrapper is not None and (wrapper.ledger, wrapper.entry) == (ledger, entry):
                return index
        return None

    def live(self) -> list[Wrapper]:
        """The cached entries' wrappers, in queue order."""
        return [w for w in self.queue if w is not None]

    def head(self) -> Wrapper | None:
        """The live head, after dropping the tombstones before it (MISSING comes before any verdict)."""
        while self.queue and self.queue[0] is None:
            self.queue.pop(0)
        return self.queue[0] if self.queue else None


def _freeze(work: _Work) -> State:
    return State(base=work.base(), queue=tuple(work.queue))


def init(config: CacheConfig) -> State:
    """An empty cache; ``max_size == 0`` gives ``EntryCacheDisabled``."""
    return State(base=Base(config=config, disabled=config.max_size == 0, counters=Counters(evictions=0, hit_bytes=0)))


def step(state: State, op: Op) -> frozenset[Outcome[State]]:
    """The allowed outcomes of ``op`` (deterministic in this profile: zero or one)."""
    return run_step(state, op, RULES, _Work, _freeze)


def observe(state: State) -> Observation:
    """Entries in position order; ``timestamp`` is the insertion time or the last requeue time."""
    base = state.base
    entries = tuple(
        sorted(
            CachedEntry(
                ledger=w.ledger,
                entry=w.entry,
                size=w.size,
                count=None if w.handler is None else base.handlers[w.handler],
                timestamp=w.ts,
                requeues=w.requeues,
                accessed=w.accessed,
            )
            for w in state.queue
            if w is not None
        )
    )
    copies = tuple((copy, None if h is None else base.handlers[h]) for copy, h in base.copies)
    return Observation(
        entries=entries,
        size=sum(e.size for e in entries),
        counters=base.counters,
        copies=copies,
        queue_length=len(state.queue),
        non_evictable_size=sum(e.size for e in entries if is_non_evictable(e.count)),
    )


def is_non_evictable(count: int | None) -> bool:
    """What ``RangeCacheRemovalQueue.getNonEvictableSize()`` counts: no handler, or ``hasExpectedReads()``.

    E5 (SPEC.md §3.1): an entry without a handler counts as non-evictable here, although every eviction
    treats it as evictable (``shouldRequeue`` needs ``hasExpectedReads()``). The observation reports
    the method as it is (managed-ledger 4.2.4, ``getNonEvictableSize``, a test helper).

    Micro-scenario: A (10 bytes, no handler), B (20, count 1), C (40, count 0) -> 30.
    """
    return count is None or count >= 1


# --- insert and reads ----------------------------------------------------------------------------


def _insert(work: _Work, op: Insert) -> bool:
    """``RangeCache.put``: put-if-absent; a duplicate is refused and changes nothing (apache/pulsar#24623, D4).

    The handler exists only for a count > 0 (``EntryReadCountHandlerImpl.maybeCreate``). The
    wrapper is stamped with ``now`` and offered at the tail. Inserts are never refused for size.
    """
    require(op.valid())
    if work.disabled or work.index(op.ledger, op.entry) is not None:
        return False
    handler = work.new_handler(op.reads()) if op.reads() > 0 else None
    work.queue.append(Wrapper(op.ledger, op.entry, op.size, op.now, handler))
    work.count("inserted")
    return True


def _read_one(work: _Work, ledger: int, entry: int) -> int | None:
    """A hit sets ``accessed`` and dispatches a copy sharing the handler (apache/pulsar#24623)."""
    index = work.index(ledger, entry)
    if index is None:
        work.count("misses")
        return None
    wrapper = work.queue[index]
    assert wrapper is not None  # index() finds live wrappers only
    work.queue[index] = dataclasses.replace(wrapper, accessed=True)
    work.count("hits")
    work.count("hit_bytes", wrapper.size)
    return work.make_copy(wrapper.handler)


def _get(work: _Work, op: Get) -> int | None:
    return _read_one(work, op.ledger, op.entry)


def _get_range(work: _Work, op: GetRange) -> tuple[int | None, ...]:
    require(op.first <= op.last)
    return tuple(_read_one(work, op.ledger, entry) for entry in range(op.first, op.last + 1))


def _mark_read(work: _Work, handler: int | None) -> None:
    """``markRead()``: -1 with no floor; nothing without a handler (apache/pulsar#24623)."""
    if handler is not None:
        work.handlers[handler] -= 1


def _release(work: _Work, op: Release) -> None:
    """Releasing a dispatch copy (flag true) calls ``markRead()``."""
    handler = work.copy_handler(op.copy)
    del work.copies[op.copy]
    _mark_read(work, handler)


def _replay_increment(work: _Work, op: ReplayIncrement) -> None:
    """``incrementExpectedReadCount()``: +1 if there is a handler; returns nothing (D3)."""
    handler = work.copy_handler(op.copy)
    if handler is not None:
        work.handlers[handler] += 1


# --- removal -----------------------------------------------------------------------------------


def _remove(work: _Work, wrapper: Wrapper, reason: str) -> None:
    """``removeEntry``: the entry leaves and the cache's own value is deallocated.

    That value was created with ``decreaseReadCountOnRelease = true`` (the default), so its
    deallocation calls ``markRead()`` once more on the shared handler (apache/pulsar#24623, D7). Only open copies
    can observe it.
    """
    work.count(f"removed_{reason}")
    _mark_read(work, wrapper.handler)


def _remove_where(work: _Work, doomed: set[tuple[int, int]], reason: str) -> tuple[int, int]:
    """Remove the doomed positions; what was freed, as ``RangeCacheRemovalCounters``: (entries, bytes)."""
    freed = (0, 0)
    for index, wrapper in enumerate(work.queue):
        if wrapper is not None and (wrapper.ledger, wrapper.entry) in doomed:
            _remove(work, wrapper, reason)
            freed = (freed[0] + 1, freed[1] + wrapper.size)
            work.queue[index] = TOMBSTONE
    return freed


def _invalidate_before(work: _Work, op: InvalidateBefore) -> None:
    """``removeRange((-1,0), pos, false)`` within the ledger; leaves tombstones (apache/pulsar#24623)."""
    doomed = {(w.ledger, w.entry) for w in work.live() if w.ledger == op.ledger and w.entry < op.entry}
    _remove_where(work, doomed, "invalidate")


def _invalidate_ledger(work: _Work, op: InvalidateLedger) -> None:
    """``invalidateAllEntries(ledgerId)``."""
    _remove_where(work, {(w.ledger, w.entry) for w in work.live() if w.ledger == op.ledger}, "invalidate")


def _remove_range(work: _Work, op: RemoveRange) -> tuple[int, int]:
    """``RangeCache.removeRange(first, last, lastInclusive)`` of one ledger; (entries, bytes) (apache/pulsar#24623)."""
    require(op.first <= op.last)
    end = op.last + 1 if op.inclusive else op.last
    doomed = {(w.ledger, w.entry) for w in work.live() if w.ledger == op.ledger and op.first <= w.entry < end}
    return _remove_where(work, doomed, "invalidate")


def _clear(work: _Work, _op: Clear) -> None:
    """``clear()``."""
    _remove_where(work, {(w.ledger, w.entry) for w in work.live()}, "clear")


# --- eviction ----------------------------------------------------------------------------------


def _should_requeue(work: _Work, wrapper: Wrapper) -> bool:
    count = None if wrapper.handler is None else work.handlers[wrapper.handler]
    return master_should_requeue(
        count, wrapper.requeues, wrapper.accessed, work.config.max_requeue, work.config.extend_ttl
    )


def _requeue(work: _Work, head: Wrapper) -> None:
    """``markRequeued()``: stamp now, clear ``accessed``, count the requeue, append at the tail."""
    work.queue.append(dataclasses.replace(head, ts=work.now, accessed=False, requeues=head.requeues + 1))


def _evict_timestamp(work: _Work, op: EvictTimestamp) -> None:
    """``evictLEntriesBeforeTimestamp(now - ttl)`` (apache/pulsar#24623).

    A requeued entry is stamped ``now``, so when it comes round again in the same pass it has not
    expired and the pass stops: the walk always ends.

    Micro-scenario: ttl 10, max_requeue 1; A (count 1, ts 0), B (count 0, ts 1). Pass at now 20:
    A requeued (ts 20, requeues 1), B removed, A again: 20 >= 10, stop. Pass at now 40: A removed.
    """
    _evict_before_timestamp(work, op.now - work.config.ttl)


def _evict_before(work: _Work, op: EvictBefore) -> tuple[int, int]:
    """``evictLEntriesBeforeTimestamp(cutoff)`` called with an explicit cutoff (``RangeCacheRemovalQueue``)."""
    return _evict_before_timestamp(work, op.cutoff)


def _evict_before_timestamp(work: _Work, threshold: int) -> tuple[int, int]:
    """The TTL walk: strict ``ts < threshold``; requeue or remove; STOP. Returns (entries, bytes) removed."""
    freed = (0, 0)
    while (head := work.head()) is not None:
        verdict = master_timestamp_verdict(head.ts, threshold, _should_requeue(work, head))
        if verdict is Verdict.STOP:
            break
        work.queue.pop(0)
        if verdict is Verdict.REQUEUE:
            _requeue(work, head)
        else:
            _remove(work, head, "ttl")
            freed = (freed[0] + 1, freed[1] + head.size)
    return freed


def _evict_size(work: _Work, _op: EvictSize) -> None:
    """``doEvictToWatermarkWhenOverThreshold`` then ``evictLeastAccessedEntries(sizeToEvict)`` (apache/pulsar#24623).

    Above ``(long)(max_size * 0.98)`` (strict), free ``size - (long)(max_size * watermark)``. The
    walk ends when the queue is empty or enough is freed; an entry with expected reads is requeued
    until its requeue count reaches ``max_requeue`` and then removed whatever its count.

    Micro-scenario: max 100, watermark 0.5; A (60, count 1), B (50, count 0), max_requeue 1:
    size 110 > 98, to free 60: A requeued, B removed (50), A removed (110 >= 60).
    """
    size = sum(w.size for w in work.live())
    if size <= work.config.trigger_size:
        return
    to_free = size - work.config.watermark_size
    if to_free > 0:
        _free(work, to_free)
        work.count("evictions")


def _evict_bytes(work: _Work, op: EvictBytes) -> tuple[int, int]:
    """``evictLeastAccessedEntries(bytes)`` called directly; ``bytes > 0`` (apache/pulsar#24623)."""
    require(op.bytes > 0)
    return _free(work, op.bytes)


def _free(work: _Work, to_free: int) -> tuple[int, int]:
    """The size walk: STOP once ``to_free`` is freed, else requeue or remove. Returns (entries, bytes) removed."""
    removed, entries = 0, 0
    while (head := work.head()) is not None:
        verdict = master_size_verdict(removed, to_free, _should_requeue(work, head))
        if verdict is Verdict.STOP:
            break
        work.queue.pop(0)
        if verdict is Verdict.REQUEUE:
            _requeue(work, head)
        else:
            removed += head.size
            entries += 1
            _remove(work, head, "size")
    return entries, removed


def _shared_by(work: _Work, ledger: int, entry: int) -> int | None:
    """The handler a copy of a cached entry shares."""
    index = work.index(ledger, entry)
    wrapper = None if index is None else work.queue[index]
    return None if wrapper is None else wrapper.handler


_CACHE_RULES: dict[type[Op], Handler] = {
    **COMMON_RULES,
    Insert: deterministic(_insert),
    Get: deterministic(_get),
    GetRange: deterministic(_get_range),
    Release: deterministic(_release),
    ReplayIncrement: deterministic(_replay_increment),
    InvalidateBefore: deterministic(_invalidate_before),
    InvalidateLedger: deterministic(_invalidate_ledger),
    Clear: deterministic(_clear),
    EvictTimestamp: deterministic(_evict_timestamp),
    EvictSize: deterministic(_evict_size),
    EvictBytes: deterministic(_evict_bytes),
    EvictBefore: deterministic(_evict_before),
    RemoveRange: deterministic(_remove_range),
}

RULES = {**_CACHE_RULES, **ledger_rules(_CACHE_RULES, _shared_by, always_legacy=False)}
"""The cache's rules and the managed-ledger layer over them (``_ledger.py``)."""

_TTL = Rule("5.2", "TTL pass", ("RangeCacheRemovalQueue.evictLEntriesBeforeTimestamp",))
_SIZE = Rule("5.2", "Size pass", ("RangeCacheRemovalQueue.evictLeastAccessedEntries",))
_REMOVAL = Rule("5.2", "Removal", ("EntryReadCountHandlerImpl.markRead",))
_REQUEUE = Rule("5.2", "Requeue rule", ("shouldRequeue",))
CITATIONS = RuleTable(
    SPEC,
    "apache/pulsar PR #24623, managed-ledger 4.2.4",
    {
        **ledger_layer(),
        "insert": Rule("5.2", "Insert", ("RangeEntryCacheImpl.insert",)),
        "get": Rule("5.2", "Reads", ("RangeCache.get",)),
        "get_range": Rule("5.2", "Reads", ("RangeCache.getRange",)),
        "release": Rule("5.2", "Release", ("EntryReadCountHandlerImpl.markRead",)),
        "replay_increment": Rule("5.2", "ReplayIncrement", ("EntryReadCountHandlerImpl.incrementExpectedReadCount",)),
        "invalidate_before": Rule("5.2", "Removal", ("RangeEntryCacheImpl.invalidateEntries",)),
        "invalidate_ledger": Rule("5.2", "Removal", ("RangeEntryCacheImpl.invalidateAllEntries",)),
        "clear": Rule("5.2", "Removal", ("RangeEntryCacheManagerImpl.clear",)),
        "remove_range": Rule("5.2", "Tombstones", ("RangeCache.removeRange",)),
        "evict_timestamp": _TTL,
        "evict_before": _TTL,
        "evict_size": Rule(
            "5.2",
            "Size pass",
            (
                "RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold",
                "RangeCacheRemovalQueue.evictLeastAccessedEntries",
            ),
        ),
        "evict_bytes": _SIZE,
        **on_removals("copies", _REMOVAL),
        **on_removals("queue_length", Rule("5.2", "Tombstones", ("RangeCacheRemovalQueue.evaluateEvictionPredicate",))),
        **{f"{kind}/requeue": _REQUEUE for kind in ("evict_timestamp", "evict_before", "evict_size", "evict_bytes")},
        "*/non_evictable_size": Rule("3.1", "E5", ("RangeCacheRemovalQueue.getNonEvictableSize",)),
        "*/statistics": Rule("2", "counters", ("ManagedLedgerFactoryMBeanImpl.recordCacheEviction",)),
    },
)
"""Which rule of SPEC.md §5.2 (and §3, §3.2) gives each operation's expectation, for a model divergence."""

__all__ = ["CITATIONS", "NAME", "State", "Wrapper", "init", "is_non_evictable", "observe", "step"]
