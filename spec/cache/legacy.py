"""Profile ``legacy``: per-ledger caches with ``EntryCacheDefaultEvictionPolicy`` (SPEC.md, "Profile legacy").

No global queue and no read counts. Size eviction is scheduled only by an insert that sees the size
above the trigger, uses the size captured then, ranks caches by size and frees a proportional share
of the largest ones, lowest positions first. The TTL walk goes per cache in position order with
``<=``. Inserts are refused once the size is at the maximum. Sources: apache/pulsar at 8ce67b97b3^ (the
parent of PR #24363, which deleted the policy), ``managed-ledger/src/main/java/org/apache/bookkeeper/
mledger/impl/cache/EntryCacheDefaultEvictionPolicy.java`` (last changed by 82237d3684),
``RangeEntryCacheImpl.java``, ``RangeEntryCacheManagerImpl.java``, ``util/RangeCache.java`` and
``impl/ManagedLedgerFactoryImpl.java``.
"""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import dataclass

from ledgerspec.spec._errors import SpecError
from ledgerspec.spec._rules import Rule, RuleTable
from ledgerspec.spec.cache._base import (
    COMMON_RULES,
    Base,
    Handler,
    Outcome,
    Result,
    Work,
    deterministic,
    require,
    run_step,
)
from ledgerspec.spec.cache._citations import SPEC, ledger_layer
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._kernels import legacy_expired
from ledgerspec.spec.cache._ledger import ledger_rules
from ledgerspec.spec.cache._observation import CachedEntry, Observation
from ledgerspec.spec.cache._ops import (
    Clear,
    EvictBefore,
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

NAME = "legacy"

PERCENT_OF_SIZE_TO_CONSIDER = 0.5
"""``PercentOfSizeToConsiderForEviction`` (apache/pulsar at 8ce67b97b3^)."""


@dataclass(frozen=True, order=True)
class Entry:
    """A cached entry of one ledger's ``RangeCache``: timestamp taken when the copy is created."""

    ledger: int
    entry: int
    size: int
    ts: int


@dataclass(frozen=True)
class State:
    """Entries sorted by position; ``pending`` is the size captured by a scheduled eviction."""

    base: Base
    entries: tuple[Entry, ...] = ()
    pending: int | None = None


class _Work(Work):
    def __init__(self, state: State) -> None:
        super().__init__(state.base)
        self.entries: dict[tuple[int, int], Entry] = {(e.ledger, e.entry): e for e in state.entries}
        self.pending = state.pending

    def size(self) -> int:
        return sum(e.size for e in self.entries.values())

    def ledger_sizes(self) -> dict[int, int]:
        sizes: dict[int, int] = {}
        for e in self.entries.values():
            sizes[e.ledger] = sizes.get(e.ledger, 0) + e.size
        return sizes

    def ledger_entries(self, ledger: int) -> list[Entry]:
        return sorted(e for e in self.entries.values() if e.ledger == ledger)


def _freeze(work: _Work) -> State:
    return State(base=work.base(), entries=tuple(sorted(work.entries.values())), pending=work.pending)


def init(config: CacheConfig) -> State:
    """An empty cache; ``max_size == 0`` disables caching."""
    return State(base=Base(config=config, disabled=config.max_size == 0))


def step(state: State, op: Op) -> frozenset[Outcome[State]]:
    """The allowed outcomes of ``op``: a set because caches of equal size rank in any order."""
    return run_step(state, op, RULES, _Work, _freeze)


def observe(state: State) -> Observation:
    """Entries in position order; no read counts in this profile."""
    entries = tuple(
        CachedEntry(ledger=e.ledger, entry=e.entry, size=e.size, count=None, timestamp=e.ts) for e in state.entries
    )
    return Observation(
        entries=entries,
        size=sum(e.size for e in entries),
        counters=state.base.counters,
        copies=tuple((copy_id, None) for copy_id, _ in state.base.copies),
    )


# --- insert and reads ----------------------------------------------------------------------------


def _insert(work: _Work, op: Insert) -> bool:
    """``RangeEntryCacheImpl.insert``, apache/pulsar at 8ce67b97b3^: ``hasSpaceInCache()`` first.

    ``hasSpaceInCache`` reads the size *before* this insert. Above ``(long)(max_size * 0.98)`` it
    schedules one eviction (if none is pending) that will use that captured size; it then answers
    ``size < max_size``, and the insert is refused otherwise. A duplicate is refused by ``exists()``.

    Micro-scenario: max 100; size 97, insert 20 -> cached (97 < 100), size 117, nothing scheduled
    (97 <= 98). With no further insert, nothing ever brings the size down but the TTL.
    """
    require(op.valid())
    if work.disabled:
        return False
    before = work.size()
    if before > work.config.trigger_size and work.pending is None:
        work.pending = before
    if not before < work.config.max_size:
        return False
    if (op.ledger, op.entry) in work.entries:
        return False
    work.entries[op.ledger, op.entry] = Entry(op.ledger, op.entry, op.size, op.now)
    work.count("inserted")
    return True


def _read_one(work: _Work, ledger: int, entry: int) -> int | None:
    if (ledger, entry) not in work.entries:
        work.count("misses")
        return None
    work.count("hits")
    return work.make_copy(None)


def _get(work: _Work, op: Get) -> int | None:
    return _read_one(work, op.ledger, op.entry)


def _get_range(work: _Work, op: GetRange) -> tuple[int | None, ...]:
    """All from the cache or all from storage (managed-ledger 4.0.8 ``doAsyncReadEntriesByPosition``).

    Unless every position of ``[first, last]`` is cached, the cached ones are released and the whole
    range is read from BookKeeper: every position is a miss and no copy is dispatched. (The merged code
    reads only the missing runs, apache/pulsar#24623.)

    Micro-scenario: (1,1) cached, (1,0) not. GetRange(1, 0, 1) -> (None, None), two misses, no hit.
    """
    require(op.first <= op.last)
    entries = range(op.first, op.last + 1)
    if all((op.ledger, entry) in work.entries for entry in entries):
        return tuple(_read_one(work, op.ledger, entry) for entry in entries)
    work.count("misses", len(entries))
    return (None,) * len(entries)


def _release(work: _Work, op: Release) -> None:
    """No read counts: releasing a copy only closes it."""
    work.copy_handler(op.copy)
    del work.copies[op.copy]


def _replay_increment(work: _Work, op: ReplayIncrement) -> None:
    """No read counts: nothing happens."""
    work.copy_handler(op.copy)


# --- removal -----------------------------------------------------------------------------------


def _remove_where(work: _Work, doomed: list[tuple[int, int]], reason: str) -> tuple[int, int]:
    """Remove the doomed positions; (entries, bytes) freed, as ``RangeCache`` returns them."""
    freed = 0
    for position in doomed:
        freed += work.entries.pop(position).size
        work.count(f"removed_{reason}")
    return len(doomed), freed


def _remove_range(work: _Work, op: RemoveRange) -> tuple[int, int]:
    """``RangeCache.removeRange(first, last, lastInclusive)`` of one ledger's cache (apache/pulsar at 8ce67b97b3^)."""
    require(op.first <= op.last)
    end = op.last + 1 if op.inclusive else op.last
    return _remove_where(work, [p for p in work.entries if p[0] == op.ledger and op.first <= p[1] < end], "invalidate")


def _invalidate_before(work: _Work, op: InvalidateBefore) -> None:
    doomed = [p for p in work.entries if p[0] == op.ledger and p[1] < op.entry]
    _remove_where(work, doomed, "invalidate")


def _invalidate_ledger(work: _Work, op: InvalidateLedger) -> None:
    _remove_where(work, [p for p in work.entries if p[0] == op.ledger], "invalidate")


def _clear(work: _Work, _op: Clear) -> None:
    _remove_where(work, list(work.entries), "clear")


def _evict_timestamp(work: _Work, op: EvictTimestamp) -> None:
    """Per cache, from the lowest position, remove while ``timestamp <= now - ttl`` (apache/pulsar at 8ce67b97b3^).

    The walk stops at the first entry *in position order* that has not expired, so an old entry
    behind a newer, lower-positioned one stays (a catch-up read or an out-of-order insert).

    Micro-scenario: ttl 10; (1,5) inserted at 0, then (1,3) at 8. Pass at 15: max 5; (1,3) has
    ts 8 > 5, stop; (1,5), expired since 10, stays.
    """
    _evict_before_timestamp(work, op.now - work.config.ttl)


def _evict_before(work: _Work, op: EvictBefore) -> tuple[int, int]:
    """``invalidateEntriesBeforeTimestamp(cutoff)`` of every cache with an explicit cutoff (at 8ce67b97b3^)."""
    return _evict_before_timestamp(work, op.cutoff)


def _evict_before_timestamp(work: _Work, max_timestamp: int) -> tuple[int, int]:
    """Each cache's ``evictLEntriesBeforeTimestamp(max)``: ``ts <= max`` from the lowest position; (entries, bytes)."""
    entries, freed = 0, 0
    for ledger in sorted(work.ledger_sizes()):
        for e in work.ledger_entries(ledger):
            if not legacy_expired(e.ts, max_timestamp):
                break
            entries, freed = entries + 1, freed + e.size
            _remove_where(work, [(e.ledger, e.entry)], "ttl")
    return entries, freed


def _evict_lowest(work: _Work, ledger: int, minimum: int) -> None:
    """``evictLeastAccessedEntries(min)``: remove the lowest position until ``min`` bytes are gone."""
    removed = 0
    for e in work.ledger_entries(ledger):
        if removed >= minimum:
            return
        removed += e.size
        _remove_where(work, [(e.ledger, e.entry)], "size")


def _evict_size(work: _Work, _op: EvictSize) -> list[tuple[Result, _Work]]:
    """The scheduled task: ``doEviction(caches, captured - (long)(max_size * watermark))`` (at 8ce67b97b3^).

    Nothing happens unless an insert scheduled it. Caches are ranked largest first; those whose
    running total stays below half the total size are selected; each frees
    ``(long)(toFree * (size / (double) selectedTotal))``. Caches of equal size rank in hash-map
    order, which nothing specifies: every choice among them is an allowed outcome.

    Micro-scenario: watermark 0.5, max 100, captured 100 -> free 50. Ledgers 1 (60) and 2 (40):
    total 100, consider 50, ledger 1 selected alone (0 < 50, then 60 >= 50); it frees 50 from its
    lowest positions, however new they are, while ledger 2's older entries stay.
    """
    if work.pending is None:
        return [(None, work)]
    to_free = work.pending - work.config.watermark_size
    work.pending = None
    sizes = work.ledger_sizes()
    if to_free <= 0 or not sizes:
        return [(None, work)]
    outcomes = []
    for selected in _selections(sizes):
        branch = copy.deepcopy(work)
        selected_total = sum(sizes[ledger] for ledger in selected)
        for ledger in selected:
            share = int(to_free * (sizes[ledger] / selected_total))
            if share != 0:
                _evict_lowest(branch, ledger, share)
        outcomes.append((None, branch))
    return outcomes


MAX_TIED_SELECTIONS = 256
"""The model enumerates at most this many rankings of equal-sized caches (see SPEC.md §5.3)."""


def _selections(sizes: dict[int, int]) -> list[tuple[int, ...]]:
    """Every set of caches the selection loop can pick, over all orders of equal-sized caches.

    Choosing ``needed`` of ``k`` tied caches has C(k, needed) outcomes, which explodes with many
    equal topics (49 of 98 is about 2.5e28); past :data:`MAX_TIED_SELECTIONS` the model refuses to
    enumerate them rather than pick one silently.
    """
    to_consider = int(sum(sizes.values()) * PERCENT_OF_SIZE_TO_CONSIDER)
    chosen: list[int] = []
    running = 0
    for size, group in itertools.groupby(sorted(sizes, key=lambda lg: -sizes[lg]), key=lambda lg: sizes[lg]):
        members = list(group)
        if running >= to_consider:
            break
        needed = -(-(to_consider - running) // size)  # ceil: members taken before the sum suffices
        if needed >= len(members):
            chosen += members
            running += size * len(members)
            continue
        if math.comb(len(members), needed) > MAX_TIED_SELECTIONS:
            raise SpecError(
                f"legacy size eviction: {len(members)} caches of {size} bytes tie and {needed} of them are "
                f"selected: {math.comb(len(members), needed)} allowed outcomes, more than the model enumerates "
                f"({MAX_TIED_SELECTIONS}); use fewer equally-sized ledgers"
            )
        return [tuple(chosen) + pick for pick in itertools.combinations(members, needed)]
    return [tuple(chosen)]


def _shared_by(_work: _Work, _ledger: int, _entry: int) -> None:
    """No read counts: a copy shares nothing."""


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
    EvictBefore: deterministic(_evict_before),
    RemoveRange: deterministic(_remove_range),
    EvictSize: _evict_size,
}

RULES = {**_CACHE_RULES, **ledger_rules(_CACHE_RULES, _shared_by, always_legacy=True)}
"""The cache's rules and the managed-ledger layer over them (``_ledger.py``)."""

_NO_COUNTS = Rule("5.3", "No queue, no read counts")
_TTL = Rule("5.3", "TTL pass", ("RangeEntryCacheImpl.invalidateEntriesBeforeTimestamp",))
CITATIONS = RuleTable(
    SPEC,
    "apache/pulsar before PR #24363, managed-ledger 4.0.8",
    {
        **ledger_layer(),
        "insert": Rule("5.3", "Insert", ("RangeEntryCacheManagerImpl.hasSpaceInCache", "RangeEntryCacheImpl.insert")),
        "get": Rule("5.3", "Reads", ("RangeCache.get",)),
        "get_range": Rule("5.3", "Reads", ("RangeEntryCacheImpl.doAsyncReadEntriesByPosition",)),
        "release": _NO_COUNTS,
        "replay_increment": _NO_COUNTS,
        "invalidate_before": Rule("3", "InvalidateBefore", ("invalidateEntries",)),
        "invalidate_ledger": Rule("3", "InvalidateLedger", ("invalidateAllEntries",)),
        "clear": Rule("3", "Clear", ("clear",)),
        "remove_range": Rule("3", "RemoveRange", ("RangeCache.removeRange",)),
        "evict_timestamp": _TTL,
        "evict_before": _TTL,
        "evict_size": Rule("5.3", "Size eviction", ("EntryCacheDefaultEvictionPolicy.doEviction",)),
    },
)
"""Which rule of SPEC.md §5.3 (and §3, §3.2) gives each operation's expectation, for a model divergence."""

__all__ = ["CITATIONS", "NAME", "State", "init", "observe", "step"]
