"""Profile ``segmented``: one broker-wide ring of segments, as BookKeeper's ``ReadCache``.

Sequential model of ``ReadCache`` (apache/bookkeeper, ``bookkeeper-server/src/main/java/org/apache/
bookkeeper/bookie/storage/ldb/ReadCache.java`` at 9590a97f67), the design PIP-174 (apache/pulsar#15954,
never merged) borrowed. Eviction is whole-segment rotation; lookups go from the newest segment to the
oldest; an entry larger than a segment is not cached; there are no TTLs, read counts or per-ledger
invalidation.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.spec._rules import Rule, RuleTable
from ledgerspec.spec.cache._base import (
    COMMON_RULES,
    Base,
    Outcome,
    Work,
    apply_configure,
    deterministic,
    require,
    run_step,
)
from ledgerspec.spec.cache._citations import SPEC
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._kernels import align64
from ledgerspec.spec.cache._observation import CachedEntry, Observation
from ledgerspec.spec.cache._ops import (
    Clear,
    Configure,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    Op,
    Release,
    ReplayIncrement,
)

NAME = "segmented"

Index = tuple[tuple[int, int, int, int], ...]
"""One segment's index: (ledger, entry, offset, length), sorted by position."""


@dataclass(frozen=True)
class State:
    """Segment geometry is fixed at start; ``offset`` is ``currentSegmentOffset``."""

    base: Base
    segment_count: int
    segment_size: int
    segments: tuple[Index, ...]
    current: int = 0
    offset: int = 0


def geometry(config: CacheConfig) -> tuple[int, int]:
    """``segmentsCount = max(2, maxCacheSize / maxSegmentSize)``, ``segmentSize = maxCacheSize / segmentsCount``."""
    count = max(2, config.max_size // config.segment_size_max)
    return count, config.max_size // count


class _Work(Work):
    def __init__(self, state: State) -> None:
        super().__init__(state.base)
        self.segment_count = state.segment_count
        self.segment_size = state.segment_size
        self.segments: list[dict[tuple[int, int], tuple[int, int]]] = [
            {(lg, en): (off, length) for lg, en, off, length in index} for index in state.segments
        ]
        self.current = state.current
        self.offset = state.offset

    def newest_first(self) -> list[dict[tuple[int, int], tuple[int, int]]]:
        """Segments from the current one back to the oldest: ``(current + n - i) % n``."""
        n = self.segment_count
        return [self.segments[(self.current + n - i) % n] for i in range(n)]


def _freeze(work: _Work) -> State:
    return State(
        base=work.base(),
        segment_count=work.segment_count,
        segment_size=work.segment_size,
        segments=tuple(
            tuple(sorted((lg, en, off, length) for (lg, en), (off, length) in index.items())) for index in work.segments
        ),
        current=work.current,
        offset=work.offset,
    )


def init(config: CacheConfig) -> State:
    """Empty segments; writing starts in segment 0 at offset 0."""
    count, size = geometry(config)
    return State(base=Base(config=config), segment_count=count, segment_size=size, segments=((),) * count)


def step(state: State, op: Op) -> frozenset[Outcome[State]]:
    """The allowed outcomes of ``op`` (deterministic in this profile: zero or one)."""
    return run_step(state, op, RULES, _Work, _freeze)


def observe(state: State) -> Observation:
    """Visible entries (newest segment wins) and ``ReadCache.size()``.

    ``size()`` counts the current segment's offset plus a full segment for every other segment whose index is not empty
    (BookKeeper ReadCache at 9590a97f67), so it includes alignment padding and is not a sum of entry sizes.
    """
    work = _Work(state)
    visible: dict[tuple[int, int], int] = {}
    for index in work.newest_first():
        for position, (_, length) in index.items():
            visible.setdefault(position, length)
    entries = tuple(
        CachedEntry(ledger=lg, entry=en, size=length, count=None, timestamp=None)
        for (lg, en), length in sorted(visible.items())
    )
    others = sum(1 for i, index in enumerate(work.segments) if i != work.current and index)
    return Observation(
        entries=entries,
        size=work.offset + others * work.segment_size,
        counters=state.base.counters,
        copies=tuple((copy_id, None) for copy_id, _ in state.base.copies),
    )


def _configure(work: _Work, op: Configure) -> None:
    """The ring cannot be resized: changing the size is not allowed; other fields have no effect."""
    require(op.max_size is None or op.max_size == work.config.max_size)
    apply_configure(work, op)


def _insert(work: _Work, op: Insert) -> bool:
    """``ReadCache.put`` (BookKeeper ReadCache at 9590a97f67), sequentially: fast path if it fits, else rotate.

    The fast path reserves ``align64(size)``; when the entry does not fit, the slow path reserves
    ``size`` again, which in a sequential run never fits either, and rotates: the next segment's
    index is cleared (its entries are evicted together) and the entry goes at offset 0, with the
    offset set to ``align64(size)``. A repeated key overwrites within a segment and the newest
    segment wins across segments.

    Micro-scenario: segment 128; put 100 -> offset 0, reserved 128; put 10 -> 128 + 10 > 128,
    rotate to segment 1, offset 64; 100 stays readable in segment 0 until the ring comes round.
    """
    require(op.valid())
    if op.size > work.segment_size:
        return False
    aligned = align64(op.size)
    offset = work.offset
    work.offset += aligned
    if offset + op.size > work.segment_size:
        offset = work.offset
        work.offset += op.size
        if offset + op.size > work.segment_size:
            work.current = (work.current + 1) % work.segment_count
            work.offset = aligned
            work.count("removed_size", len(work.segments[work.current]))
            work.segments[work.current] = {}
            offset = 0
    work.segments[work.current][op.ledger, op.entry] = (offset, op.size)
    work.count("inserted")
    return True


def _read_one(work: _Work, ledger: int, entry: int) -> int | None:
    for index in work.newest_first():
        if (ledger, entry) in index:
            work.count("hits")
            return work.make_copy(None)
    work.count("misses")
    return None


def _get(work: _Work, op: Get) -> int | None:
    return _read_one(work, op.ledger, op.entry)


def _get_range(work: _Work, op: GetRange) -> tuple[int | None, ...]:
    """Per entry, as ``ReadCache`` does (PR #15955's all-or-nothing range read is not modelled)."""
    require(op.first <= op.last)
    return tuple(_read_one(work, op.ledger, entry) for entry in range(op.first, op.last + 1))


def _release(work: _Work, op: Release) -> None:
    work.copy_handler(op.copy)
    del work.copies[op.copy]


def _replay_increment(work: _Work, op: ReplayIncrement) -> None:
    work.copy_handler(op.copy)


def _nothing(_work: _Work, _op: Op) -> None:
    """Per-ledger invalidation, clear and TTL/size passes do nothing: rotation is the only eviction."""


RULES = {
    **COMMON_RULES,
    Configure: deterministic(_configure),
    Insert: deterministic(_insert),
    Get: deterministic(_get),
    GetRange: deterministic(_get_range),
    Release: deterministic(_release),
    ReplayIncrement: deterministic(_replay_increment),
    InvalidateBefore: deterministic(_nothing),
    InvalidateLedger: deterministic(_nothing),
    Clear: deterministic(_nothing),
    EvictTimestamp: deterministic(_nothing),
    EvictSize: deterministic(_nothing),
}

_NOTHING = Rule("5.4", "do nothing")
_NO_COUNTS = Rule("5.4", "no read counts")
_CONTAINER = Rule("3", "The cursor container")
CITATIONS = RuleTable(
    SPEC,
    "apache/bookkeeper ReadCache.java at 9590a97f67",
    {
        "configure": Rule("3", "Configure"),
        "cursor_add": _CONTAINER,
        "cursor_remove": _CONTAINER,
        "cursor_seek": _CONTAINER,
        "cursor_count": _CONTAINER,
        "insert": Rule("5.4", "Insert", ("ReadCache.put",)),
        "get": Rule("5.4", "Reads", ("ReadCache.get",)),
        "get_range": Rule("5.4", "Reads", ("ReadCache.get",)),
        "release": _NO_COUNTS,
        "replay_increment": _NO_COUNTS,
        "invalidate_before": _NOTHING,
        "invalidate_ledger": _NOTHING,
        "clear": _NOTHING,
        "evict_timestamp": _NOTHING,
        "evict_size": _NOTHING,
        "*/size": Rule("5.4", "Size", ("ReadCache.size",)),
    },
)
"""Which rule of SPEC.md §5.4 gives each operation's expectation, for a model divergence."""

__all__ = ["CITATIONS", "NAME", "State", "geometry", "init", "observe", "step"]
