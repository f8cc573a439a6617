"""Profile ``pip430``: the entry cache as the PIP-430 text states it (SPEC.md, "Profile pip430").

One broker-wide FIFO removal queue with a stash beside it; two TTLs; a final EVICTED state set by
``markEvicted`` on forced removal; a duplicate insert merges its expected reads into the cached entry.
Source: the PIP-430 text, apache/pulsar ``pip/pip-430.md`` at cf3d7d17d9 (PR #24444).
"""

from __future__ import annotations

from collections.abc import Callable
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
from ledgerspec.spec.cache._citations import SPEC, ledger_layer
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._kernels import (
    Verdict,
    can_evict,
    pip430_increment,
    pip430_mark_evicted,
    pip430_mark_read,
    pip430_size_verdict,
    pip430_timestamp_verdict,
)
from ledgerspec.spec.cache._ledger import ledger_rules
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import (
    Clear,
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

NAME = "pip430"


@dataclass(frozen=True)
class Wrapper:
    """``RangeCacheEntryWrapper`` of a cached entry: with a handler, unless created without one."""

    ledger: int
    entry: int
    size: int
    ts: int
    handler: int | None


@dataclass(frozen=True)
class State:
    """The stash holds entries taken from the queue head, so ``stash + queue`` is insertion order."""

    base: Base
    stash: tuple[Wrapper, ...] = ()
    queue: tuple[Wrapper, ...] = ()


class _Work(Work):
    def __init__(self, state: State) -> None:
        super().__init__(state.base)
        self.stash = list(state.stash)
        self.queue = list(state.queue)

    def cached(self, ledger: int, entry: int) -> Wrapper | None:
        for wrapper in self.stash + self.queue:
            if (wrapper.ledger, wrapper.entry) == (ledger, entry):
                return wrapper
        return None

    def size(self) -> int:
        return sum(w.size for w in self.stash) + sum(w.size for w in self.queue)


def _freeze(work: _Work) -> State:
    return State(base=work.base(), stash=tuple(work.stash), queue=tuple(work.queue))


def init(config: CacheConfig) -> State:
    """An empty cache. ``max_size == 0`` gives ``EntryCacheDisabled``, which never caches."""
    return State(base=Base(config=config, disabled=config.max_size == 0, counters=Counters(evictions=0, hit_bytes=0)))


def step(state: State, op: Op) -> frozenset[Outcome[State]]:
    """The allowed outcomes of ``op`` (deterministic in this profile: zero or one)."""
    return run_step(state, op, RULES, _Work, _freeze)


def observe(state: State) -> Observation:
    """Entries in position order with their handler's count and their insertion timestamp."""
    base = state.base
    entries = tuple(
        sorted(
            CachedEntry(ledger=w.ledger, entry=w.entry, size=w.size, count=_count(base, w.handler), timestamp=w.ts)
            for w in state.stash + state.queue
        )
    )
    copies = tuple((copy, _count(base, h)) for copy, h in base.copies)
    return Observation(
        entries=entries,
        size=sum(e.size for e in entries),
        counters=base.counters,
        copies=copies,
        non_evictable_size=sum(e.size for e in entries if not can_evict(e.count)),
    )


def _count(base: Base, handler: int | None) -> int | None:
    return None if handler is None else base.handlers[handler]


# --- insert and reads ------------------------------------------------------------------------------


def _insert(work: _Work, op: Insert) -> bool:
    """``RangeEntryCacheImpl.insert`` of the PIP text (pip-430.md at cf3d7d17d9).

    A duplicate position merges the new expected reads into the cached entry's handler and returns
    false. If the cached handler is EVICTED the merge is refused and the insert would go on along
    the normal path; the put-if-absent then fails because the old mapping still exists, so the
    result is also false (an open point of the text, pip-430.md at cf3d7d17d9; unreachable here, because only a forced
    removal marks a handler EVICTED and it also unmaps the entry).

    An entry created without a handler (``expected_reads=None``) takes the normal path even when the
    position is cached ("If the new entry has no handler, the insert also continues along the normal
    path"): the put-if-absent fails and nothing is merged. Cached, it has no handler: ``canEvict()``.

    Micro-scenario: insert (1,0) with 2 expected reads, insert (1,0) again with 1 -> false, and the
    cached entry now expects 3 reads; size and timestamp are unchanged.
    """
    require(op.valid())
    if work.disabled:
        return False
    previous = work.cached(op.ledger, op.entry)
    if previous is not None:
        if op.expected_reads is not None and previous.handler is not None:
            merged, _ = pip430_increment(work.handlers[previous.handler], op.expected_reads)
            work.handlers[previous.handler] = merged
        return False
    handler = None if op.expected_reads is None else work.new_handler(op.expected_reads)
    work.queue.append(Wrapper(op.ledger, op.entry, op.size, op.now, handler))
    work.count("inserted")
    return True


def _read_one(work: _Work, ledger: int, entry: int) -> int | None:
    wrapper = work.cached(ledger, entry)
    if wrapper is None:
        work.count("misses")
        return None
    work.count("hits")
    work.count("hit_bytes", wrapper.size)
    return work.make_copy(wrapper.handler)


def _get(work: _Work, op: Get) -> int | None:
    """A hit dispatches a copy sharing the entry's handler; nothing else changes."""
    return _read_one(work, op.ledger, op.entry)


def _get_range(work: _Work, op: GetRange) -> tuple[int | None, ...]:
    """Each position of ``[first, last]`` in order, as :func:`_get`."""
    require(op.first <= op.last)
    return tuple(_read_one(work, op.ledger, entry) for entry in range(op.first, op.last + 1))


def _release(work: _Work, op: Release) -> None:
    """Releasing a dispatched copy calls ``markRead()`` (pip-430.md at cf3d7d17d9): -1, unless EVICTED."""
    handler = work.copy_handler(op.copy)
    del work.copies[op.copy]
    if handler is not None:  # a copy of an entry created without a handler: nothing to mark
        work.handlers[handler] = pip430_mark_read(work.handlers[handler])


def _replay_increment(work: _Work, op: ReplayIncrement) -> bool:
    """``incrementExpectedReadCount()``: false and unchanged once EVICTED (pip-430.md at cf3d7d17d9).

    A copy without a handler has no count to increment: false (the text leaves it open).
    """
    handler = work.copy_handler(op.copy)
    if handler is None:
        return False
    work.handlers[handler], accepted = pip430_increment(work.handlers[handler], 1)
    return accepted


# --- forced removal: markEvicted -----------------------------------------------------------------


def _force_remove(work: _Work, doomed: set[tuple[int, int]], reason: str) -> tuple[int, int]:
    """Remove entries by force and mark their handlers EVICTED (pip-430.md at cf3d7d17d9); (entries, bytes) freed."""
    freed = (0, 0)
    for wrapper in work.stash + work.queue:
        if (wrapper.ledger, wrapper.entry) in doomed:
            if wrapper.handler is not None:
                work.handlers[wrapper.handler] = pip430_mark_evicted(work.handlers[wrapper.handler])
            work.count(f"removed_{reason}")
            freed = (freed[0] + 1, freed[1] + wrapper.size)
    work.stash = [w for w in work.stash if (w.ledger, w.entry) not in doomed]
    work.queue = [w for w in work.queue if (w.ledger, w.entry) not in doomed]
    return freed


def _positions(work: _Work) -> set[tuple[int, int]]:
    return {(w.ledger, w.entry) for w in work.stash + work.queue}


def _invalidate_before(work: _Work, op: InvalidateBefore) -> None:
    """Every entry of the ledger strictly before the position."""
    _force_remove(work, {p for p in _positions(work) if p[0] == op.ledger and p[1] < op.entry}, "invalidate")


def _invalidate_ledger(work: _Work, op: InvalidateLedger) -> None:
    """Every entry of the ledger (ledger deletion)."""
    _force_remove(work, {p for p in _positions(work) if p[0] == op.ledger}, "invalidate")


def _remove_range(work: _Work, op: RemoveRange) -> tuple[int, int]:
    """``RangeCache.removeRange(first, last, lastInclusive)`` of one ledger: forced, so EVICTED; (entries, bytes)."""
    require(op.first <= op.last)
    end = op.last + 1 if op.inclusive else op.last
    doomed = {p for p in _positions(work) if p[0] == op.ledger and op.first <= p[1] < end}
    return _force_remove(work, doomed, "invalidate")


def _clear(work: _Work, _op: Clear) -> None:
    """Every entry of the cache."""
    _force_remove(work, _positions(work), "clear")


# --- eviction ----------------------------------------------------------------------------------


def _evict_timestamp(work: _Work, op: EvictTimestamp) -> None:
    """Timestamp pass, ``evictEntries(predicate, processAllEntriesInStash=true)`` (the PIP text).

    ``processAllEntriesInStash`` is named by unmerged drafts of apache/pulsar#24623.

    The stash is scanned in full: entries whose TTL has passed are removed, the others stay. Then
    the queue is walked from the head: REMOVE, STASH (protected, past ``ttl`` but not ``ttl_max``)
    or STOP at the first entry that has not expired. Normal eviction does not call markEvicted.

    Micro-scenario: ttl 10, ttl_max 50; A (count 0, ts 0), B (count 1, ts 1), C (count 0, ts 2);
    pass at now 20: A removed (0 < 10), B stashed (1 < 10, not < -30), C removed (2 < 10).
    """
    config = work.config

    def verdict(w: Wrapper) -> Verdict:
        return pip430_timestamp_verdict(w.ts, work.handler_count(w.handler), op.now, config.ttl, config.ttl_max)

    kept = []
    for wrapper in work.stash:
        if verdict(wrapper) is Verdict.REMOVE:
            work.count("removed_ttl")
        else:
            kept.append(wrapper)
    work.stash = kept
    _walk_queue(work, verdict, lambda _removed: work.count("removed_ttl"))


def _walk_queue(work: _Work, verdict: Callable[[Wrapper], Verdict], remove: Callable[[Wrapper], None]) -> None:
    """Walk the queue from its head after the stash: stop at the first STOP, stash or ``remove`` the others."""
    while work.queue:
        head = work.queue[0]
        result = verdict(head)
        if result is Verdict.STOP:
            break
        work.queue.pop(0)
        if result is Verdict.STASH:
            work.stash.append(head)
        else:
            remove(head)


def _evict_size(work: _Work, op: EvictSize) -> None:
    """``doEvictToWatermarkWhenOverThreshold`` then ``evictEntries(sizeToEvict, now - ttl_max)`` (the PIP text).

    Runs only when the size is above ``(long)(max_size * trigger)``; frees
    ``size - (long)(max_size * watermark)``. Stash first, then queue, ``processAll = false``: the first
    STOP ends the pass. An entry is removed if it may be evicted by count or has passed ``ttl_max``,
    otherwise stashed (queue) or left stashed (stash).

    Micro-scenario: max 100, trigger 0.98, watermark 0.5; A (40, count 1), B (40, count 0),
    C (30, count 0): size 110 > 98, to free 60: A stashed, B removed (40), C removed (70 >= 60 ends).
    """
    config = work.config
    size = work.size()
    if size <= config.trigger_size:
        return
    to_free = size - config.watermark_size
    if to_free > 0:
        _free(work, to_free, op.now - config.ttl_max)
        work.count("evictions")


def _evict_bytes(work: _Work, op: EvictBytes) -> tuple[int, int]:
    """``evictLeastAccessedEntries(bytes, now - ttl_max)`` called directly; ``bytes > 0`` (the PIP text)."""
    require(op.bytes > 0)
    return _free(work, op.bytes, op.now - work.config.ttl_max)


def _free(work: _Work, to_free: int, expiry: int) -> tuple[int, int]:
    """Stash first, then queue, until ``to_free`` bytes are removed; returns (entries, bytes) removed."""
    removed, entries = 0, 0

    def verdict(w: Wrapper) -> Verdict:
        return pip430_size_verdict(w.ts, work.handler_count(w.handler), removed, to_free, expiry)

    def remove(wrapper: Wrapper) -> None:
        nonlocal removed, entries
        removed += wrapper.size
        entries += 1
        work.count("removed_size")

    kept: list[Wrapper] = []
    for index, wrapper in enumerate(work.stash):
        result = verdict(wrapper)
        if result is Verdict.STOP:
            work.stash = kept + work.stash[index:]
            return entries, removed
        if result is Verdict.REMOVE:
            remove(wrapper)
        else:
            kept.append(wrapper)
    work.stash = kept
    _walk_queue(work, verdict, remove)
    return entries, removed


def _shared_by(work: _Work, ledger: int, entry: int) -> int | None:
    """The handler a copy of a cached entry shares."""
    wrapper = work.cached(ledger, entry)
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
    RemoveRange: deterministic(_remove_range),
}

RULES = {**_CACHE_RULES, **ledger_rules(_CACHE_RULES, _shared_by, always_legacy=False)}
"""The cache's rules and the managed-ledger layer over them (``_ledger.py``)."""

_FORCED = Rule("5.1", "Forced removal", ("markEvicted",))
_FORCED_KINDS = (
    "invalidate_before",
    "invalidate_ledger",
    "clear",
    "remove_range",
    "ledger_close",
    "cursor_seek",
    "cursor_remove",
    "cursor_read",
)
"""Forced removals (``ledger_close`` and, in legacy mode, the layer's cursor moves too): open copies show EVICTED."""
_TIMESTAMP = Rule("5.1", "Timestamp pass")
_SIZE = Rule("5.1", "Size pass", ("evictLeastAccessedEntries",))
CITATIONS = RuleTable(
    SPEC,
    "the PIP-430 text, apache/pulsar pip/pip-430.md at cf3d7d17d9",
    {
        **ledger_layer(),
        "insert": Rule("5.1", "Insert", ("RangeEntryCacheImpl.insert", "increaseReadCount")),
        "get": Rule("5.1", "Reads"),
        "get_range": Rule("5.1", "Reads"),
        "release": Rule("5.1", "Release", ("markRead",)),
        "replay_increment": Rule("5.1", "ReplayIncrement", ("incrementExpectedReadCount",)),
        "invalidate_before": _FORCED,
        "invalidate_ledger": _FORCED,
        "clear": _FORCED,
        "remove_range": _FORCED,
        "evict_timestamp": _TIMESTAMP,
        "evict_size": _SIZE,
        "evict_bytes": _SIZE,
        **{f"{kind}/copies": _FORCED for kind in _FORCED_KINDS},
        "*/non_evictable_size": Rule("3.1", "non_evictable_size", ("canEvict",)),
        "*/statistics": Rule("2", "counters", ("ManagedLedgerFactoryMBeanImpl.recordCacheEviction",)),
    },
)
"""Which rule of SPEC.md §5.1 (and §3, §3.2) gives each operation's expectation, for a model divergence."""

__all__ = ["CITATIONS", "NAME", "State", "Wrapper", "init", "observe", "step"]
