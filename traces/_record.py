"""The recorder: wrap any adapter and write the trace of what it did.

A candidate cache behind an adapter shows only results and observations, so the recorder derives
the events from them: each operation's result, and the difference between the observations before
and after it (entries that appeared, left, changed timestamp or count; copies). Removals and
requeues of one operation are written in the order the entries entered the queue. This is the
outside view (the stash and markEvicted are not visible), which is all the trace checkers need; the
generator's instrumented reference writes the inside view.
"""

from __future__ import annotations

from typing import Any

from ledgerspec.conformance.adapters import CacheAdapter
from ledgerspec.spec.cache import (
    EVICTED,
    OPERATIONS,
    CacheConfig,
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
    Observation,
    Op,
    Release,
    ReplayIncrement,
)

PASSES: dict[type[Op], str] = {
    EvictSize: "size",
    EvictTimestamp: "ttl",
    InvalidateBefore: "invalidate",
    InvalidateLedger: "invalidate",
    Clear: "clear",
}


class RecordingAdapter:
    """An adapter that passes every operation through and reports the events it implies."""

    def __init__(self, inner: CacheAdapter, listener: Any) -> None:
        self.inner = inner
        self.info = inner.info
        self.listener = listener
        self.before: Observation | None = None
        self.entered: dict[tuple[int, int], int] = {}
        self.incarnation: dict[tuple[int, int], int] = {}
        self.origins: dict[int, tuple[tuple[int, int], int]] = {}
        """Open copy -> (position, incarnation) it was dispatched from."""
        self.serial = 0

    def start(self, config: CacheConfig) -> None:
        """A fresh cache; nothing is recorded until the first operation."""
        self.inner.start(config)
        self.before = self.inner.observe()
        self.entered.clear()
        self.incarnation.clear()
        self.origins.clear()

    def stop(self) -> None:
        """Stop the wrapped adapter."""
        self.inner.stop()

    def observe(self) -> Observation:
        """The wrapped adapter's observation (the last one is kept)."""
        return self.before if self.before is not None else self.inner.observe()

    def apply(self, op: Op) -> Any:
        """Run the operation and record its events."""
        before = self.before if self.before is not None else self.inner.observe()
        result = self.inner.apply(op)
        after = self.inner.observe()
        self._record(op, result, before, after)
        self.before = after
        return result

    # --- deriving events ------------------------------------------------------------------------------

    def _emit(self, kind: str, now: int, **fields: Any) -> None:
        self.listener(kind, now, fields)

    def _enter(self, position: tuple[int, int]) -> None:
        self.serial += 1
        self.entered[position] = self.serial

    def _record(self, op: Op, result: Any, before: Observation, after: Observation) -> None:
        now = op.now
        old, new = before.by_position(), after.by_position()
        if isinstance(op, Configure):
            for name, value in op.changes().items():
                self._emit("config", now, reason=name, value=float(value))
        elif isinstance(op, Insert):
            self._insert(op, result, old, new, before, after)
        elif isinstance(op, Get | GetRange):
            positions = (
                [(op.ledger, op.entry)]
                if isinstance(op, Get)
                else [(op.ledger, e) for e in range(op.first, op.last + 1)]
            )
            copies = [result] if isinstance(op, Get) else list(result)
            counts = after.copy_counts()
            # a range that was not all cached may be read whole from storage (legacy): say so
            whole = isinstance(op, GetRange) and not set(positions) <= set(old)
            for (ledger, entry), copy in zip(positions, copies, strict=True):
                if copy is None:
                    self._emit("miss", now, ledger=ledger, entry=entry, reason="range" if whole else None)
                else:
                    self._emit("hit", now, ledger=ledger, entry=entry, copy=copy, count=counts.get(copy))
                    self.origins[copy] = ((ledger, entry), self.incarnation.get((ledger, entry), 0))
        elif isinstance(op, Release):
            self._emit("release", now, copy=op.copy, count=self._shared_count(op.copy, before, after))
        elif isinstance(op, ReplayIncrement):
            flag = None if result is None else int(bool(result))
            self._emit("replay_increment", now, copy=op.copy, count=after.copy_counts().get(op.copy), result=flag)
        elif type(op) in PASSES:
            self._pass(op, before, after)
        elif isinstance(op, CursorAdd | CursorSeek):
            self._emit(op.kind, now, ledger=op.ledger, cursor=op.cursor, entry=op.entry)
        elif isinstance(op, CursorRemove):
            self._emit("cursor_remove", now, ledger=op.ledger, cursor=op.cursor)
        elif isinstance(op, CursorCount):
            self._emit("cursor_count", now, ledger=op.ledger, cursor=op.cursor, result=result)
        if type(op) not in PASSES:
            self._emit("size_sample", now, size=after.size)

    def _insert(
        self, op: Insert, result: Any, old: dict[Any, Any], new: dict[Any, Any], before: Observation, after: Observation
    ) -> None:
        position = (op.ledger, op.entry)
        gone = [p for p in old if p not in new]
        if gone and result is True and position in old:
            gone.append(position)  # overwritten in a rotating insert: it leaves and comes back newest
        if gone:  # a ring rotates inside an insert
            self._emit("pass_start", op.now, reason="size", size=before.size)
            self._removals(gone, old, after, "size", op.now)
            self._emit("pass_end", op.now, reason="size", size=after.size)
        if result is True:
            entry = new.get(position)
            count = entry.count if entry is not None else op.expected_reads
            stamp = entry.timestamp if entry is not None and entry.timestamp is not None else op.now
            self._emit("insert", op.now, ledger=op.ledger, entry=op.entry, size=op.size, count=count, timestamp=stamp)
            self._enter(position)
            self.incarnation[position] = self.incarnation.get(position, 0) + 1
        elif position in old and position in new and new[position].count != old[position].count:
            self._emit(
                "merge",
                op.now,
                ledger=op.ledger,
                entry=op.entry,
                count=new[position].count,
                value=float(op.expected_reads),
            )
        else:
            self._emit(
                "insert_refused", op.now, ledger=op.ledger, entry=op.entry, size=op.size, count=op.expected_reads
            )

    def _pass(self, op: Op, before: Observation, after: Observation) -> None:
        kind = PASSES[type(op)]
        old, new = before.by_position(), after.by_position()
        ledger = getattr(op, "ledger", None)
        entry = op.entry if isinstance(op, InvalidateBefore) else None
        value = None
        self._emit("pass_start", op.now, reason=kind, size=before.size, ledger=ledger, entry=entry, value=value)
        gone = [p for p in old if p not in new]
        requeued = [p for p in old if p in new and new[p].timestamp != old[p].timestamp]
        self._removals(gone, old, after, kind, op.now, before=before)
        for position in sorted(requeued, key=lambda p: self.entered.get(p, 0)):
            self._emit(
                "requeue",
                op.now,
                ledger=position[0],
                entry=position[1],
                timestamp=new[position].timestamp,
                count=new[position].count,
            )
            self._enter(position)
        self._emit("pass_end", op.now, reason=kind, size=after.size)

    def _removals(
        self,
        gone: list[Any],
        old: dict[Any, Any],
        after: Observation,
        reason: str,
        now: int,
        before: Observation | None = None,
    ) -> None:
        for position in sorted(gone, key=lambda p: self.entered.get(p, 0)):
            cached = old[position]
            count = self._handler_count_after(position, before, after)
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

    def _handler_count_after(self, position: Any, before: Observation | None, after: Observation) -> int | None:
        """The count a removed entry's handler keeps, seen through an open copy of it (else unknown)."""
        if before is None:
            return None
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


class AdapterCache:
    """The reference cache's method names over an adapter, recording through :class:`RecordingAdapter`.

    It lets the workload generator drive any candidate: each call becomes one operation.
    """

    def __init__(self, adapter: CacheAdapter, config: CacheConfig) -> None:
        self.recording = RecordingAdapter(adapter, None)
        self.recording.start(config)
        self.cursors: dict[int, int] = {}

    def listen(self, listener: Any) -> None:
        """Where the derived events go."""
        self.recording.listener = listener

    def reported_size(self) -> int:
        """The candidate's reported size."""
        return self.recording.observe().size

    def active_cursors(self, ledger: int) -> int:
        """Active cursors of a ledger, as the driver added and removed them."""
        return self.cursors.get(ledger, 0)

    def __getattr__(self, name: str) -> Any:
        if name not in OPERATIONS:
            raise AttributeError(name)
        kind = OPERATIONS[name]

        def call(**fields: Any) -> Any:
            if name in ("cursor_add", "cursor_remove"):
                delta = 1 if name == "cursor_add" else -1
                self.cursors[fields["ledger"]] = self.cursors.get(fields["ledger"], 0) + delta
            return self.recording.apply(kind(**fields))

        return call


def record_trace(
    factory: Any,
    out: str,
    *,
    workload: str = "mixed",
    events: int = 20_000,
    seed: int = 0,
    topics: int = 4,
    profile: str | None = None,
    config: CacheConfig | None = None,
) -> int:
    """Drive a candidate with the generator's workload and write the trace of what it did."""
    from ledgerspec.traces._format import Header  # noqa: PLC0415 - keep the module light
    from ledgerspec.traces._generate import DEFAULT_CONFIG, Broker, run_broker  # noqa: PLC0415
    from ledgerspec.traces._io import TraceWriter  # noqa: PLC0415

    config = config or DEFAULT_CONFIG
    adapter = factory()
    profile = profile or adapter.info.profiles[0]
    try:
        cache = AdapterCache(adapter, config)
        broker = Broker(adapter.info.name, cache, config, workload, list(range(1, topics + 1)), seed)
        header = Header(profile=profile, config=config.to_dict(), description=f"recorded from {adapter.info.name}")
        with TraceWriter(out, header) as writer:
            return run_broker(broker, events, writer.write_columns)
    finally:
        adapter.stop()
