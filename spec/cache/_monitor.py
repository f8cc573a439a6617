"""The invariant predicates and the monitor that applies them to a candidate's history.

The monitor sees a candidate from outside: for each step, the operation, the candidate's result and
its observation afterwards. From that history alone it keeps what the predicates need: the order in
which entries entered the removal queue, which copy shares which handler, the cursor positions and
the requeues seen so far. Only ``CACHE-MODEL`` also runs the profile's model.

The clock must strictly increase from step to step (the conformance engine makes it so). Then a
requeue always changes an entry's timestamp, which is how the monitor sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ledgerspec.spec._errors import SpecError
from ledgerspec.spec.cache._catalogue import INVARIANTS, LEGACY, MASTER, PIP430, SEGMENTED, claimed
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation, describe_difference
from ledgerspec.spec.cache._ops import (
    Clear,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRemove,
    CursorSeek,
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
from ledgerspec.spec.cache._profiles import get_profile
from ledgerspec.spec.cache.segmented import geometry

Position = tuple[int, int]
EMPTY = Observation(entries=(), size=0, counters=Counters(), copies=())
FORCED = (InvalidateBefore, InvalidateLedger, Clear)


@dataclass(frozen=True)
class Violation:
    """An invariant that does not hold at a step, with what was seen."""

    invariant: str
    message: str


@dataclass
class StepView:
    """Everything a predicate may look at for one step. Context fields hold as of *before* the step."""

    profile: str
    config: CacheConfig
    op: Op
    result: Any
    before: Observation
    after: Observation
    enabled: bool
    entered: dict[Position, int]
    incarnation: dict[Position, int]
    copy_origin: dict[int, tuple[Position, int]]
    cursors: dict[tuple[int, str], int]
    requeues: dict[Position, tuple[int, bool]]
    project: Callable[[Observation], Observation] = field(default=lambda observation: observation)

    @property
    def now(self) -> int:
        return self.op.now

    def removed(self) -> list[CachedEntry]:
        """Entries cached before the step and not after it, oldest first in queue order."""
        after = self.after.by_position()
        gone = [e for e in self.before.entries if e.position not in after]
        return sorted(gone, key=lambda e: self.entered.get(e.position, -1))

    def kept(self) -> list[tuple[CachedEntry, CachedEntry]]:
        """(before, after) of entries cached on both sides of the step."""
        after = self.after.by_position()
        return [(e, after[e.position]) for e in self.before.entries if e.position in after]


Check = Callable[[StepView], Iterable[str]]
_CHECKS: dict[str, Check] = {}


def _check(invariant_id: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        assert invariant_id in INVARIANTS, invariant_id
        _CHECKS[invariant_id] = function
        return function

    return register


def _is_eviction(op: Op, profile: str) -> bool:
    if profile == SEGMENTED:
        return isinstance(op, Insert)
    return isinstance(op, EvictSize | EvictTimestamp)


def _protected_unexpired(entry: CachedEntry, view: StepView) -> bool:
    """pip430: an entry size eviction must keep: positive count, younger than thresholdMax."""
    return (entry.count or 0) > 0 and entry.timestamp is not None and entry.timestamp >= view.now - view.config.ttl_max


def _skipped(before: CachedEntry, after: CachedEntry, view: StepView) -> bool:
    """Whether an eviction step was allowed to pass over an entry that entered the queue earlier."""
    if view.profile == PIP430:
        return _protected_unexpired(before, view)
    if view.profile == MASTER:
        return after.timestamp == view.now
    return False


def _order_violations(view: StepView, what: str) -> Iterable[str]:
    removed = view.removed()
    if not removed:
        return
    newest_removed = max(removed, key=lambda e: view.entered.get(e.position, -1))
    limit = view.entered.get(newest_removed.position, -1)
    op = view.op
    reinserted = (op.ledger, op.entry) if isinstance(op, Insert) and view.result is True else None
    for before, after in view.kept():
        if before.position == reinserted:
            continue  # overwritten by this very insert: it entered again, at the tail (the ring)
        if view.entered.get(before.position, -1) < limit and not _skipped(before, after, view):
            yield (
                f"{what} removed {newest_removed.position} but kept {before.position}, which entered the "
                f"queue earlier (count {before.count}, timestamp {before.timestamp}) and may not be skipped"
            )


@_check("CACHE-FIFO")
def _fifo(view: StepView) -> Iterable[str]:
    op = view.op
    if isinstance(op, Insert) and view.result is True:
        entry = view.after.entry(op.ledger, op.entry)
        if entry is not None and entry.timestamp != op.now:
            yield f"inserted {entry.position} at now={op.now} but its timestamp is {entry.timestamp}"
    requeue_allowed = view.profile == MASTER and isinstance(op, EvictSize | EvictTimestamp)
    for before, after in view.kept():
        if before.timestamp != after.timestamp and not (requeue_allowed and after.timestamp == op.now):
            yield (
                f"{type(op).__name__} changed the timestamp of {before.position} from {before.timestamp} "
                f"to {after.timestamp}"
            )
    if isinstance(op, EvictTimestamp):
        yield from _order_violations(view, "timestamp pass")


@_check("CACHE-OLDEST-FIRST")
def _oldest_first(view: StepView) -> Iterable[str]:
    if isinstance(view.op, EvictSize) or (view.profile == SEGMENTED and isinstance(view.op, Insert)):
        yield from _order_violations(view, "size eviction")


@_check("CACHE-PROTECT-UNTIL-EXPIRED")
def _protect_until_expired(view: StepView) -> Iterable[str]:
    if not isinstance(view.op, EvictSize | EvictTimestamp):
        return
    for entry in view.removed():
        if _protected_unexpired(entry, view):
            yield (
                f"{type(view.op).__name__} removed {entry.position} with count {entry.count} and timestamp "
                f"{entry.timestamp}, younger than thresholdMax (now {view.now} - {view.config.ttl_max})"
            )


@_check("CACHE-EVICTED-FINAL")
def _evicted_final(view: StepView) -> Iterable[str]:
    before, after = view.before.copy_counts(), view.after.copy_counts()
    for copy, count in before.items():
        if count == EVICTED and copy in after and after[copy] != EVICTED:
            yield f"copy {copy} was EVICTED and now shows count {after[copy]}"
    if isinstance(view.op, FORCED):
        removed = {(e.position, view.incarnation.get(e.position)) for e in view.removed()}
        for copy, origin in view.copy_origin.items():
            if origin in removed and copy in after and after[copy] != EVICTED:
                yield f"{origin[0]} was removed by force but copy {copy} shows count {after[copy]}, not EVICTED"
    if isinstance(view.op, ReplayIncrement):
        expected = before.get(view.op.copy) != EVICTED
        if view.result is not expected:
            yield (
                f"incrementExpectedReadCount through copy {view.op.copy} (count {before.get(view.op.copy)}) "
                f"returned {view.result!r}, expected {expected}"
            )


@_check("CACHE-SIZE-ACCOUNTING")
def _size_accounting(view: StepView) -> Iterable[str]:
    after = view.after
    total = sum(e.size for e in after.entries)
    if after.size != total:
        yield f"reported size {after.size} but the cached entries add up to {total}"
    live = after.counters.inserted - after.counters.removed
    if live != len(after.entries):
        yield f"inserted - removed = {live} but {len(after.entries)} entries are cached"
    for name in Counters.__dataclass_fields__:  # in declared order, whatever built the counters
        value = getattr(view.before.counters, name)
        if getattr(after.counters, name) < value:
            yield f"counter {name} went down from {value} to {getattr(after.counters, name)}"


@_check("CACHE-WATERMARK")
def _watermark(view: StepView) -> Iterable[str]:
    if not isinstance(view.op, EvictSize):
        return
    trigger, watermark = view.config.trigger_size, view.config.watermark_size
    removed = view.removed()
    if view.before.size <= trigger:
        if removed:
            yield f"size {view.before.size} is not above the trigger {trigger}, yet {len(removed)} entries went"
        return
    if view.after.size > watermark:
        excused = view.profile == PIP430 and all(_protected_unexpired(e, view) for e in view.after.entries)
        if not excused:
            yield (
                f"size {view.before.size} was above the trigger {trigger}; "
                f"after eviction {view.after.size} > watermark {watermark}"
            )
    elif removed and view.after.size + max(e.size for e in removed) <= watermark:
        yield (
            f"evicted down to {view.after.size}, more than needed: the watermark {watermark} was reached "
            "before the last entry removed"
        )


@_check("CACHE-TTL")
def _ttl(view: StepView) -> Iterable[str]:
    if not isinstance(view.op, EvictTimestamp):
        return
    now, config = view.now, view.config

    def expired(entry: CachedEntry) -> bool:
        ts = entry.timestamp if entry.timestamp is not None else now
        if view.profile == PIP430:
            return ts < now - config.ttl_max or ((entry.count or 0) <= 0 and ts < now - config.ttl)
        return ts < now - config.ttl

    for entry in view.removed():
        if not expired(entry):
            yield (
                f"removed {entry.position} (timestamp {entry.timestamp}, count {entry.count}), "
                f"which has not expired at {now}"
            )
    for _, entry in view.kept():
        if expired(entry):
            yield f"left {entry.position} (timestamp {entry.timestamp}, count {entry.count}), expired at {now}"


def _read_positions(op: Op) -> list[Position]:
    if isinstance(op, Get):
        return [(op.ledger, op.entry)]
    if isinstance(op, GetRange):
        return [(op.ledger, entry) for entry in range(op.first, op.last + 1)]
    return []


def _read_results(view: StepView) -> list[Any]:
    if isinstance(view.op, Get):
        return [view.result]
    return list(view.result) if isinstance(view.result, tuple | list) else [view.result]


@_check("CACHE-NO-STALE-READ")
def _no_stale_read(view: StepView) -> Iterable[str]:
    op, before = view.op, view.before.by_position()
    positions = _read_positions(op)
    if positions:
        results = _read_results(view)
        if len(results) != len(positions):
            yield f"read of {len(positions)} positions returned {len(results)} results"
            return
        after_copies = view.after.copy_counts()
        # legacy reads a range whole from storage when any of it is missing (managed-ledger 4.0.8)
        from_storage = view.profile == LEGACY and isinstance(op, GetRange) and not set(positions) <= set(before)
        for position, copy in zip(positions, results, strict=True):
            if copy is not None and position not in before:
                yield f"read of {position} hit (copy {copy}) but it was not cached"
            elif copy is None and position in before and not from_storage:
                yield f"read of {position} missed but it was cached"
            elif copy is not None and after_copies.get(copy) != _after_count(view, position):
                yield f"copy {copy} of {position} shows count {after_copies.get(copy)}, not the entry's"
    if isinstance(op, FORCED):
        doomed = _doomed(op, before)
        after = view.after.by_position()
        for position in sorted(doomed & set(after)):
            yield f"{type(op).__name__} left {position} cached"
        for position in sorted(set(before) - doomed - set(after)):
            yield f"{type(op).__name__} also removed {position}"


def _after_count(view: StepView, position: Position) -> int | None:
    entry = view.after.by_position().get(position)
    return None if entry is None else entry.count


def _doomed(op: Op, cached: Iterable[Position]) -> set[Position]:
    if isinstance(op, InvalidateBefore):
        return {p for p in cached if p[0] == op.ledger and p[1] < op.entry}
    if isinstance(op, InvalidateLedger):
        return {p for p in cached if p[0] == op.ledger}
    return set(cached)


@_check("CACHE-BOUNDED-PROTECTION")
def _bounded_protection(view: StepView) -> Iterable[str]:
    if not isinstance(view.op, EvictSize | EvictTimestamp):
        return
    for before, after in view.kept():
        if before.timestamp == after.timestamp:
            continue
        count, accessed = view.requeues.get(before.position, (0, False))
        if not (accessed and view.config.extend_ttl) and count >= view.config.max_requeue:
            yield (
                f"{before.position} was requeued again without a read after {count} requeues "
                f"(max {view.config.max_requeue})"
            )


@_check("CACHE-CURSOR-COUNT")
def _cursor_count(view: StepView) -> Iterable[str]:
    op = view.op
    if isinstance(op, CursorCount):
        expected = count_at_or_before(view.cursors, op.ledger, op.cursor)
        if view.result != expected:
            yield (
                f"count of cursors at or before {op.cursor!r} on ledger {op.ledger} is {expected}, got {view.result!r}"
            )


def count_at_or_before(cursors: dict[tuple[int, str], int], ledger: int, cursor: str) -> int:
    """The expected answer of ``getNumberOfCursorsAtSamePositionOrBefore``."""
    position = cursors.get((ledger, cursor))
    if position is None:
        return 0
    return sum(1 for (lg, _), pos in cursors.items() if lg == ledger and pos <= position)


@_check("CACHE-READ-COUNT")
def _read_count(view: StepView) -> Iterable[str]:
    groups = _groups(view)
    for origin, (before_count, members) in groups.items():
        expected = _expected_count(view, origin, before_count)
        for member, count in members:
            if count != expected:
                yield (
                    f"{member} (handler of {origin[0]}) shows count {count} after {type(view.op).__name__}; "
                    f"expected {expected} (was {before_count})"
                )


def _groups(view: StepView) -> dict[tuple[Position, int], tuple[int | None, list[tuple[str, int | None]]]]:
    """Handlers seen before the step, with their count then and every member showing them after."""
    before_copies, after_copies = view.before.copy_counts(), view.after.copy_counts()
    after_entries = view.after.by_position()
    groups: dict[tuple[Position, int], tuple[int | None, list[tuple[str, int | None]]]] = {}
    for entry in view.before.entries:
        origin = (entry.position, view.incarnation.get(entry.position, -1))
        groups[origin] = (entry.count, [])
    for copy, origin in view.copy_origin.items():
        if copy in before_copies and origin not in groups:
            groups[origin] = (before_copies[copy], [])
    before_entries = view.before.by_position()
    live_copies: dict[tuple[Position, int], list[int]] = {}
    for copy, origin in view.copy_origin.items():
        if copy in after_copies:
            live_copies.setdefault(origin, []).append(copy)
    for origin, (_, members) in groups.items():
        position = origin[0]
        same = view.incarnation.get(position, -1) == origin[1]
        if position in after_entries and position in before_entries and same:
            members.append((f"entry {position}", after_entries[position].count))
        members.extend((f"copy {copy}", after_copies[copy]) for copy in live_copies.get(origin, ()))
    return groups


def _expected_count(view: StepView, origin: tuple[Position, int], count: int | None) -> int | None:
    if count is None:
        return None
    op, pip430 = view.op, view.profile == PIP430
    if pip430 and count == EVICTED:
        return EVICTED
    if isinstance(op, Release | ReplayIncrement) and view.copy_origin.get(op.copy) == origin:
        return count + (1 if isinstance(op, ReplayIncrement) else -1)
    current = view.incarnation.get(origin[0]) == origin[1]
    if isinstance(op, Insert) and pip430 and (op.ledger, op.entry) == origin[0] and current and not view.result:
        return count + op.expected_reads
    if current and origin[0] in {e.position for e in view.removed()}:
        if pip430:
            return EVICTED if isinstance(op, FORCED) else count
        return count - 1
    return count


@_check("CACHE-DUPLICATE-MERGE")
def _duplicate_merge(view: StepView) -> Iterable[str]:
    op = view.op
    if not isinstance(op, Insert):
        return
    before = view.before.entry(op.ledger, op.entry)
    if before is None:
        return
    after = view.after.entry(op.ledger, op.entry)
    if view.result is not False:
        yield f"insert of cached {before.position} returned {view.result!r}, expected False"
    if after is None or (after.size, after.timestamp) != (before.size, before.timestamp):
        yield f"insert of cached {before.position} changed it from {before} to {after}"
        return
    expected = before.count if before.count == EVICTED else (before.count or 0) + op.expected_reads
    if after.count != expected:
        yield (
            f"insert of cached {before.position} with {op.expected_reads} reads: "
            f"count {after.count}, expected {expected}"
        )


@_check("CACHE-DUPLICATE-REFUSED")
def _duplicate_refused(view: StepView) -> Iterable[str]:
    op = view.op
    if isinstance(op, Insert) and view.before.entry(op.ledger, op.entry) is not None:
        if view.result is not False:
            yield f"insert of cached {(op.ledger, op.entry)} returned {view.result!r}, expected False"
        for line in describe_difference(view.before, view.after):
            yield f"insert of cached {(op.ledger, op.entry)} changed {line}"


@_check("CACHE-INSERT-ACCEPTED")
def _insert_accepted(view: StepView) -> Iterable[str]:
    op = view.op
    if not isinstance(op, Insert) or not view.enabled or view.before.entry(op.ledger, op.entry) is not None:
        return
    if view.result is not True:
        yield f"insert of uncached {(op.ledger, op.entry)} returned {view.result!r} (size {view.before.size})"
        return
    count = op.expected_reads if view.profile == PIP430 or op.expected_reads > 0 else None
    alone = CachedEntry(ledger=op.ledger, entry=op.entry, size=op.size, count=count, timestamp=op.now)
    (expected,) = view.project(Observation(entries=(alone,), size=0, counters=Counters(), copies=())).entries
    after = view.after.by_position()
    if after.get(expected.position) != expected:
        yield f"inserted {expected.position}: expected {expected}, got {after.get(expected.position)}"
    changed = [
        position
        for position in sorted(set(view.before.by_position()) | set(after) - {expected.position})
        if view.before.by_position().get(position) != after.get(position)
    ]
    if changed:
        yield f"inserting {expected.position} also changed or removed {changed}"
    if view.after.size != view.before.size + op.size:
        yield f"size went from {view.before.size} to {view.after.size} on inserting {op.size} bytes"


@_check("CACHE-SEGMENT-RING")
def _segment_ring(view: StepView) -> Iterable[str]:
    op = view.op
    count, segment = geometry(view.config)
    if view.after.size > count * segment + 63:
        yield f"size {view.after.size} exceeds {count} segments of {segment} bytes"
    if isinstance(op, Insert):
        if op.size > segment:
            if view.result is not False or view.after.entries != view.before.entries:
                yield f"an entry of {op.size} bytes, larger than a segment ({segment}), was cached or evicted others"
        elif view.result is not True or view.after.entry(op.ledger, op.entry) is None:
            yield f"an entry of {op.size} bytes (segment {segment}) was not cached"
    elif view.removed():
        yield f"{type(op).__name__} removed {[e.position for e in view.removed()]}; only rotation may"


# --- the monitor -------------------------------------------------------------------------------


class Monitor:
    """Checks a candidate's history, step by step, against invariants of one profile."""

    def __init__(
        self,
        profile: str,
        config: CacheConfig,
        *,
        invariants: Iterable[str] | None = None,
        project: Callable[[Observation], Observation] | None = None,
    ) -> None:
        """Check ``invariants`` (default: all the profile claims).

        ``project`` is applied to the model's observations before they are compared with the
        candidate's, for candidates that observe less than everything (see conformance ``mask``).
        """
        self.profile = get_profile(profile)
        self.project = project or (lambda observation: observation)
        ids = [i.id for i in claimed(profile)] if invariants is None else list(invariants)
        for invariant_id in ids:
            if invariant_id not in INVARIANTS:
                raise SpecError(f"unknown invariant {invariant_id!r}; known: {', '.join(INVARIANTS)}")
            if not INVARIANTS[invariant_id].claimed_by(profile):
                raise SpecError(
                    f"profile {profile!r} does not claim {invariant_id}; its predicate has no meaning there"
                )
        self.invariants = ids
        self.config = config
        self.enabled = config.max_size > 0
        self.before = EMPTY
        self.last_now: int | None = None
        self.states = frozenset({self.profile.init(config)})
        self.entered: dict[Position, int] = {}
        self.incarnation: dict[Position, int] = {}
        self.copy_origin: dict[int, tuple[Position, int]] = {}
        self.cursors: dict[tuple[int, str], int] = {}
        self.requeues: dict[Position, tuple[int, bool]] = {}
        self._serial = 0

    def check(self, op: Op, result: Any, after: Observation) -> list[Violation]:
        """Record one step of the candidate and return the invariants it breaks."""
        result = tuple(result) if isinstance(result, list) else result  # a range read's copies: values, not container
        if self.last_now is not None and op.now <= self.last_now:
            raise SpecError(f"the monitor needs a strictly increasing clock: {op.describe()} after now={self.last_now}")
        self.last_now = op.now
        view = StepView(
            profile=self.profile.name,
            config=self.config,
            op=op,
            result=result,
            before=self.before,
            after=after,
            enabled=self.enabled,
            entered=self.entered,
            incarnation=self.incarnation,
            copy_origin=self.copy_origin,
            cursors=dict(self.cursors),
            requeues=self.requeues,
            project=self.project,
        )
        violations = []
        for invariant_id in self.invariants:
            if invariant_id == "CACHE-MODEL":
                violations += [Violation(invariant_id, m) for m in self._model(op, result, after)]
            else:
                violations += [Violation(invariant_id, m) for m in _CHECKS[invariant_id](view)]
        self._advance(view)
        return violations

    def _model(self, op: Op, result: Any, after: Observation) -> list[str]:
        if not self.states:
            return []
        outcomes = [o for state in self.states for o in self.profile.step(state, op)]
        if not outcomes:
            raise SpecError(f"{op.describe()} is not allowed by the {self.profile.name} model here")

        def seen(outcome: Any) -> Observation:
            return self.project(self.profile.observe(outcome.state))

        matching = frozenset(o.state for o in outcomes if o.result == result and seen(o) == after)
        if matching:
            self.states = matching
            return []
        best = min(outcomes, key=lambda o: (o.result != result, len(describe_difference(seen(o), after))))
        self.states = frozenset()
        lines = []
        if best.result != result:
            lines.append(f"result: expected {best.result!r}, candidate {result!r}")
        lines += describe_difference(seen(best), after)
        alternatives = "" if len(outcomes) == 1 else f" (closest of {len(outcomes)} allowed outcomes)"
        return [f"{type(op).__name__} differs from the {self.profile.name} model{alternatives}: " + "; ".join(lines)]

    def _next(self) -> int:
        self._serial += 1
        return self._serial

    def _advance(self, view: StepView) -> None:
        """Update the history context with what this step did."""
        op, after = view.op, view.after
        for entry in view.removed():
            self.entered.pop(entry.position, None)
            self.requeues.pop(entry.position, None)
        if isinstance(op, Insert) and view.result is True:
            position = (op.ledger, op.entry)
            self.entered[position] = self._next()
            self.incarnation[position] = self.incarnation.get(position, 0) + 1
            self.requeues[position] = (0, False)
        if isinstance(op, EvictSize | EvictTimestamp):
            # Entries requeued by one pass re-enter at the tail in an order the outside view cannot know:
            # a size pass may cycle the queue several times, and an entry with fewer requeues left goes
            # round fewer times. They share one serial: none counts as having entered before another.
            requeued = [b.position for b, a in view.kept() if b.timestamp != a.timestamp]
            serial = self._next() if requeued else 0
            for position in requeued:
                self.entered[position] = serial
                count, _ = self.requeues.get(position, (0, False))
                self.requeues[position] = (count + 1, False)
        for position, copy in zip(_read_positions(op), _read_results(view), strict=False):
            if copy is not None:
                self.copy_origin[copy] = (position, self.incarnation.get(position, 0))
                count, _ = self.requeues.get(position, (0, False))
                self.requeues[position] = (count, True)
        open_copies = after.copy_counts()
        self.copy_origin = {c: o for c, o in self.copy_origin.items() if c in open_copies}
        if isinstance(op, CursorAdd | CursorSeek):
            self.cursors[op.ledger, op.cursor] = op.entry
        elif isinstance(op, CursorRemove):
            self.cursors.pop((op.ledger, op.cursor), None)
        elif isinstance(op, Configure):
            self.config = self.config.replace(**op.changes())
        self.before = after


__all__ = ["Monitor", "StepView", "Violation", "count_at_or_before"]
