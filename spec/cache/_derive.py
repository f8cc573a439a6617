"""Events from observed steps: what a candidate did, derived from its results and observations.

A candidate seen from outside shows only each operation's result and its observation afterwards, so
the events are derived from them: the result, and the difference between the observations before and
after (entries that appeared, left, changed timestamp or count; copies). The conformance monitor
derives the events of every step and checks them with the same replay as recorded traces, and the
trace recorder (traces/cache/_record.py) writes them. This is the outside view: a stash and a mark before
removal are not visible, several requeues of one entry in one pass look like one, and their order is
not known (the replay ties them, ``invariants/_facts.py``).

Fields come from the observation where it shows them (an inserted entry's count and timestamp, the
size of the entry a hit answers), from the operation otherwise (an insert's size: a candidate that
caches another size shows it later). An insert also carries, in ``value``, the expected reads it
asked for. A size pass inside an insert (a ring's rotation, or an insert that evicts) names the
inserted position in ``ledger`` and ``entry``; its ``pass_end`` shows the size before the insert
less what the pass removed, since the size in between is not observed.

A requeue shows as a changed timestamp (or a higher ``requeues``, where the candidate shows it): the
clock must strictly increase from step to step, or an entry requeued in the tick it entered the queue
would look untouched, and a later removal would look like one of an entry never requeued.
"""

from __future__ import annotations

from typing import Any

from ledgerspec.spec._errors import SpecError
from ledgerspec.spec.cache import _ops as ops
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.spec.cache._ledger import bookkeeper_reads
from ledgerspec.spec.cache._observation import CachedEntry, Observation

Event = dict[str, Any]
Position = tuple[int, int]

PASSES: dict[type[ops.Op], str] = {
    ops.EvictSize: "size",
    ops.EvictTimestamp: "ttl",
    ops.InvalidateBefore: "invalidate",
    ops.InvalidateLedger: "invalidate",
    ops.Clear: "clear",
    ops.EvictBytes: "bytes",
    ops.EvictBefore: "cutoff",
    ops.RemoveRange: "range",
}


class Derivation:
    """Derives the events of each step of one candidate, in order; keeps what the derivation needs."""

    def __init__(self) -> None:
        self.entered: dict[Position, int] = {}
        """The order in which cached entries last entered the queue, as far as it is seen."""
        self.incarnation: dict[Position, int] = {}
        self.origins: dict[int, tuple[Position, int]] = {}
        """Open copy -> (position, incarnation) it was dispatched from."""
        self.serial = 0
        self.cursors: dict[tuple[int, str], int] = {}
        """Active cursors and their read positions, as the cursor operations moved them."""
        self.appended: dict[int, int] = {}
        """Per ledger, the entry after its last append."""
        self.reopens: set[tuple[int, int]] = set()
        """(ledger, entry): where a reopen started a BookKeeper ledger (the entry after a close)."""
        self._events: list[Event] = []
        self._now: int | None = None

    def step(self, op: ops.Op, result: Any, before: Observation, after: Observation) -> list[Event]:  # noqa: C901, PLR0912 - one branch per operation kind: the event each emits
        """The events of one step (each a dict with ``kind``, ``time`` and its fields)."""
        self._events = []
        now = op.now
        if self._now is not None and now <= self._now:
            raise SpecError(f"the derivation needs a strictly increasing clock: {op.describe()} after now={self._now}")
        self._now = now
        if isinstance(op, ops.Configure):
            for name, value in op.changes().items():
                self._emit("config", now, reason=name, value=float(value))
        elif isinstance(op, ops.Insert):
            self._insert(op, result, before, after)
        elif isinstance(op, ops.Get | ops.GetRange):
            self._read(op, result, before, after)
        elif isinstance(op, ops.Release):
            self._emit("release", now, copy=op.copy, count=self._shared_count(op.copy, before, after))
        elif isinstance(op, ops.ReplayIncrement):
            flag = None if result is None else int(bool(result))
            self._emit("replay_increment", now, copy=op.copy, count=after.copy_counts().get(op.copy), result=flag)
        elif type(op) in PASSES:
            self._pass(op, before, after)
        elif isinstance(op, ops.CursorAdd | ops.CursorSeek):
            self._emit(op.kind, now, ledger=op.ledger, cursor=op.cursor, entry=op.entry)
            self.cursors[op.ledger, op.cursor] = op.entry
            self._cursor_invalidation(op.ledger, op.cursor, now, before, after)
        elif isinstance(op, ops.CursorRemove):
            self._emit("cursor_remove", now, ledger=op.ledger, cursor=op.cursor)
            self.cursors.pop((op.ledger, op.cursor), None)
            self._cursor_invalidation(op.ledger, op.cursor, now, before, after)
        elif isinstance(op, ops.Append):
            self._append(op, result, before, after)
            self.appended[op.ledger] = op.entry + 1
        elif isinstance(op, ops.CursorRead):
            self._cursor_read(op, result, before, after)
        elif isinstance(op, ops.LedgerClose):
            self._emit("ledger_close", now, ledger=op.ledger)
            if op.ledger in self.appended:
                self.reopens.add((op.ledger, self.appended[op.ledger]))
            self._forced(op.ledger, None, now, before, after)
            for ledger, name in sorted(key for key in self.cursors if key[0] == op.ledger):
                self._emit("cursor_remove", now, ledger=ledger, cursor=name)
                del self.cursors[ledger, name]
        elif isinstance(op, ops.CursorCount):
            self._emit("cursor_count", now, ledger=op.ledger, cursor=op.cursor, result=result)
        if type(op) not in PASSES:
            self._restamped(op, before, after)
            self._emit("size_sample", now, size=after.size)
        return self._events

    # --- deriving ---------------------------------------------------------------------------------------

    def _emit(self, kind: str, now: int, **fields: Any) -> None:
        self._events.append({"kind": kind, "time": now, **{k: v for k, v in fields.items() if v is not None}})

    def _enter(self, position: Position) -> None:
        self.serial += 1
        self.entered[position] = self.serial

    def _insert(
        self, op: ops.Insert, result: Any, before: Observation, after: Observation, *, asked: bool = True
    ) -> None:
        """An insert's events; ``asked`` False: its count was not asked for (an append), so no ``value`` claims one."""
        old, new = before.by_position(), after.by_position()
        position = (op.ledger, op.entry)
        gone = [p for p in old if p not in new]
        if gone:  # a ring's rotation (or an insert that evicts, which the checks judge)
            self._emit("pass_start", op.now, reason="size", size=before.size, ledger=op.ledger, entry=op.entry)
            self._removals(gone, old, after, "size", op.now)
            left = before.size - sum(old[p].size for p in gone)
            self._emit("pass_end", op.now, reason="size", size=left, ledger=op.ledger, entry=op.entry)
        entry = new.get(position)
        value = None if op.expected_reads is None else float(op.expected_reads)  # None: no handler asked for
        if result is True:  # the size it was asked to cache; a different one shows in later events
            size = op.size
            count = entry.count if entry is not None else op.expected_reads
            stamp = entry.timestamp if entry is not None and entry.timestamp is not None else op.now
            self._emit(
                "insert",
                op.now,
                ledger=op.ledger,
                entry=op.entry,
                size=size,
                count=count,
                timestamp=stamp,
                value=value if asked else None,
            )
            self._enter(position)
            self.incarnation[position] = self.incarnation.get(position, 0) + 1
        elif position in old and entry is not None and entry.count != old[position].count:
            self._emit("merge", op.now, ledger=op.ledger, entry=op.entry, count=entry.count, value=value)
        else:
            self._emit(
                "insert_refused", op.now, ledger=op.ledger, entry=op.entry, size=op.size, count=op.expected_reads
            )

    def _read(self, op: ops.Get | ops.GetRange, result: Any, before: Observation, after: Observation) -> None:
        if isinstance(op, ops.Get):
            positions, copies = [(op.ledger, op.entry)], [result]
        else:
            positions = [(op.ledger, e) for e in range(op.first, op.last + 1)]
            copies = list(result) if isinstance(result, tuple | list) else [result]
        counts, cached = after.copy_counts(), after.by_position()
        # a range that was not all cached may be read whole from storage (legacy): its misses say so
        whole = isinstance(op, ops.GetRange) and not set(positions) <= set(before.by_position())
        for (ledger, entry), copy in zip(positions, copies, strict=False):
            if copy is None:
                self._emit("miss", op.now, ledger=ledger, entry=entry, reason="range" if whole else None)
            else:
                found = cached.get((ledger, entry))
                size = None if found is None else found.size
                self._emit("hit", op.now, ledger=ledger, entry=entry, copy=copy, count=counts.get(copy), size=size)
                self.origins[copy] = ((ledger, entry), self.incarnation.get((ledger, entry), 0))

    # --- the managed-ledger layer: its operations as the cache events they cause ---------------------

    def _append(self, op: ops.Append, result: Any, before: Observation, after: Observation) -> None:
        """The append, then what it did: an insert, a merge into a cached duplicate, a refusal, or nothing.

        Nothing: not offered to the cache (no active cursor).
        """
        self._emit("append", op.now, ledger=op.ledger, entry=op.entry, size=op.size)
        position, old = (op.ledger, op.entry), before.by_position()
        offered = any(ledger == op.ledger for ledger, _ in self.cursors)
        if result is True or (position in old and offered):
            entry = after.by_position().get(position)
            merged = None if entry is None or position not in old else entry.count
            was = old[position].count if position in old else None
            grown = None if merged is None or was is None else merged - was
            self._insert(
                ops.Insert(now=op.now, ledger=op.ledger, entry=op.entry, size=op.size, expected_reads=grown),
                result,
                before,
                after,
                asked=False,
            )
        elif offered:
            self._emit("insert_refused", op.now, ledger=op.ledger, entry=op.entry, size=op.size)

    def _cursor_read(self, op: ops.CursorRead, result: Any, before: Observation, after: Observation) -> None:
        """Each BookKeeper ledger's read (``bookkeeper_reads``): its start, hits, misses, storage reads and move.

        An entry read from storage and cached is an insert, then the reader's copy as a hit. After the
        last part, what the moves invalidated.
        """
        start = self.cursors.get((op.ledger, op.cursor), op.last)
        copies = list(result) if isinstance(result, tuple | list) else [None] * (op.last + 1 - start)
        old, new = before.by_position(), after.by_position()
        parts = bookkeeper_reads(self.reopens, op.ledger, start, op.last)
        cached = sorted(p for p in new if p not in old)
        for number, (first, last) in enumerate(parts):
            self._emit("cursor_read", op.now, ledger=op.ledger, cursor=op.cursor, entry=first)
            positions = [(op.ledger, entry) for entry in range(first, last + 1)]
            whole = not set(positions) <= set(old)
            stored = []
            for position, copy in zip(positions, copies[first - start : last + 1 - start], strict=False):
                if copy is not None and position in old:
                    self._hit(position, copy, old[position], op.now)
                else:
                    self._emit("miss", op.now, ledger=op.ledger, entry=position[1], reason="range" if whole else None)
                    if copy is not None:
                        stored.append((position, copy))
            inserted = [p for p in cached if p in positions] if number < len(parts) - 1 else cached  # the rest, last
            cached = [p for p in cached if p not in inserted]
            for position in inserted:
                self._inserted(position, new[position], op.now)
            for position, copy in stored:
                self._hit(position, copy, new.get(position), op.now)
            self._emit("cursor_seek", op.now, ledger=op.ledger, cursor=op.cursor, entry=last + 1)
            self.cursors[op.ledger, op.cursor] = last + 1
        self._cursor_invalidation(op.ledger, op.cursor, op.now, before, after, grown=after.size - before.size)

    def _inserted(self, position: Position, entry: CachedEntry, now: int) -> None:
        """An entry read from storage and cached: its insert, stamped with the read's time if it has none."""
        stamp = entry.timestamp if entry.timestamp is not None else now
        self._emit(
            "insert", now, ledger=position[0], entry=position[1], size=entry.size, count=entry.count, timestamp=stamp
        )
        self._enter(position)
        self.incarnation[position] = self.incarnation.get(position, 0) + 1

    def _hit(self, position: Position, copy: int, entry: CachedEntry | None, now: int) -> None:
        """A copy dispatched from ``entry`` as it was when read (an invalidation later in the step may change it)."""
        count, size = (None, None) if entry is None else (entry.count, entry.size)
        self._emit("hit", now, ledger=position[0], entry=position[1], copy=copy, count=count, size=size)
        self.origins[copy] = (position, self.incarnation.get(position, 0))

    def _cursor_invalidation(
        self, ledger: int, cursor: str, now: int, before: Observation, after: Observation, *, grown: int = 0
    ) -> None:
        """Entries of the ledger a cursor's move or departure removed: invalidation below the slowest cursor.

        The bound is the slowest active cursor after the step; with none left, the whole ledger (clear).
        The pass names the cursor that made it.
        """
        positions = [position for (lg, _), position in self.cursors.items() if lg == ledger]
        self._forced(ledger, min(positions) if positions else None, now, before, after, grown=grown, cursor=cursor)

    def _forced(
        self,
        ledger: int,
        bound: int | None,
        now: int,
        before: Observation,
        after: Observation,
        *,
        grown: int = 0,
        cursor: str | None = None,
    ) -> None:
        """A forced removal of the ledger below ``bound`` (None: all of it), if the step removed anything."""
        old, new = before.by_position(), after.by_position()
        gone = [p for p in old if p not in new]
        if not gone:
            return
        removed = sum(old[p].size for p in gone)
        start = after.size + removed if grown else before.size
        self._emit("pass_start", now, reason="invalidate", size=start, ledger=ledger, entry=bound, cursor=cursor)
        self._removals(gone, old, after, "invalidate", now)
        self._emit("pass_end", now, reason="invalidate", size=after.size)

    def _pass(self, op: ops.Op, before: Observation, after: Observation) -> None:
        kind = PASSES[type(op)]
        old, new = before.by_position(), after.by_position()
        ledger = getattr(op, "ledger", None)
        entry = op.entry if isinstance(op, ops.InvalidateBefore) else None
        value = _target(op)
        if isinstance(op, ops.RemoveRange):
            entry = op.last + 1 if op.inclusive else op.last
        self._emit("pass_start", op.now, reason=kind, size=before.size, ledger=ledger, entry=entry, value=value)
        gone = [p for p in old if p not in new]
        self._removals(gone, old, after, kind, op.now)
        requeued = [p for p in old if p in new and _requeued(old[p], new[p])]
        for position in sorted(requeued, key=lambda p: self.entered.get(p, 0)):
            self._requeue(position, new[position], op.now)
        self._emit("pass_end", op.now, reason=kind, size=after.size)

    def _requeue(self, position: Position, entry: CachedEntry, now: int) -> None:
        self._emit("requeue", now, ledger=position[0], entry=position[1], timestamp=entry.timestamp, count=entry.count)
        self._enter(position)

    def _restamped(self, op: ops.Op, before: Observation, after: Observation) -> None:
        """A timestamp that changed outside a pass: a requeue no pass did (the checks judge it)."""
        old, new = before.by_position(), after.by_position()
        inserted = (op.ledger, op.entry) if isinstance(op, ops.Insert) else None
        for position in sorted(p for p in old if p in new and p != inserted):
            if _requeued(old[position], new[position]):
                self._requeue(position, new[position], op.now)

    def _removals(
        self, gone: list[Position], old: dict[Position, CachedEntry], after: Observation, reason: str, now: int
    ) -> None:
        for position in sorted(gone, key=lambda p: self.entered.get(p, 0)):
            cached = old[position]
            count = self._handler_count_after(position, after)
            if count == EVICTED:
                self._emit("mark_evicted", now, ledger=position[0], entry=position[1])
            self._emit(
                "remove",
                now,
                ledger=position[0],
                entry=position[1],
                size=cached.size,
                timestamp=cached.timestamp,
                count=count,
                reason=reason,
            )
            self.entered.pop(position, None)

    def _handler_count_after(self, position: Position, after: Observation) -> int | None:
        """The count a removed entry's handler keeps, seen through an open copy of it (else unknown)."""
        origin = (position, self.incarnation.get(position, 0))
        counts = after.copy_counts()
        for copy, where in self.origins.items():
            if where == origin and copy in counts:
                return counts[copy]
        return None

    def _shared_count(self, copy: int, before: Observation, after: Observation) -> int | None:
        """After a release, the handler is visible through the entry or another copy of it, if any."""
        origin = self.origins.pop(copy, None)
        if origin is None:
            return None
        position, incarnation = origin
        entry = after.by_position().get(position)
        if entry is not None and position in before.by_position() and self.incarnation.get(position) == incarnation:
            return entry.count
        counts = after.copy_counts()
        for other, where in self.origins.items():
            if where == origin and other in counts:
                return counts[other]
        return None


def _target(op: ops.Op) -> float | None:
    """The target an operation gives its pass: bytes to free, the cutoff, a range's first entry."""
    if isinstance(op, ops.EvictBytes):
        return float(op.bytes)
    if isinstance(op, ops.EvictBefore):
        return float(op.cutoff)
    if isinstance(op, ops.RemoveRange):
        return float(op.first)
    return None


def _requeued(old: CachedEntry, new: CachedEntry) -> bool:
    """Whether an entry seen before and after a step was requeued in it."""
    more = old.requeues is not None and new.requeues is not None and new.requeues > old.requeues
    return new.timestamp != old.timestamp or more


__all__ = ["PASSES", "Derivation", "Event"]
