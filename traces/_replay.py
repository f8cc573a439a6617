"""The stateful replay of one broker's events: the invariant checks both trace checkers share.

A broker has one removal queue, so everything about size, watermark and queue order is checked on
the broker's events in ``seq`` order; that is the partition of every check here (see FORMAT.md,
"Partitions"). The local checker feeds each broker's events through a :class:`BrokerReplay`; the
Spark checker runs the same class inside ``mapInArrow``, per broker. Same code, same order, same
verdicts.

The replay keeps only what is live: cached entries, open copies and their handlers, the queue order,
cursors. Memory is bounded by the live entries, not by the length of the trace. Each event costs
O(1) amortized. A size or TTL pass end costs O(1), except where pip430's exemptions make it look past
the queue's head; an invalidate or clear pass end scans the live entries. The live entries are kept
in queue order (an ordered dict: an insert adds at the end, a requeue moves to the end), which also
gives the oldest timestamp while timestamps enter in order, as they do in a sequential cache; a
trace whose timestamps enter out of order (racing inserters: apache/pulsar#24623 takes the timestamp
before the offer) switches the replay to heaps for exactness.

The hot loop (``feed``) handles the frequent kinds inline; the rest have one method each.
"""

from __future__ import annotations

import gc
import heapq
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.spec.cache import EVICTED, CacheConfig
from ledgerspec.spec.cache.segmented import geometry
from ledgerspec.traces._format import INT_COLUMNS, KINDS

NULL = -(2**63)
"""Stand-in for a null integer in the replay's columns (Arrow nulls are filled with it)."""
NEVER = 2**64
"""Above every timestamp (an int64)."""

(
    CONFIG,
    INSERT,
    REFUSED,
    MERGE,
    HIT,
    MISS,
    RELEASE,
    REPLAY,
    MARK_EVICTED,
    REMOVE,
    REQUEUE,
    STASH,
    PASS_START,
    PASS_END,
    SIZE_SAMPLE,
    CURSOR_ADD,
    CURSOR_REMOVE,
    CURSOR_SEEK,
    CURSOR_COUNT,
) = range(19)
assert [k.code for k in KINDS.values()] == list(range(19)), "kind codes must match traces/_format.py"

PASS_NAMES = ("size", "ttl", "invalidate", "clear")
SIZE_PASS, TTL_PASS, INVALIDATE_PASS, CLEAR_PASS = range(4)
_INT_CONFIG = {"max_size", "ttl", "ttl_max", "max_requeue"}
_WIDE = 1 << 127
_KIND_NAMES = pa.array(list(KINDS))
_NO_PASS = object()
"""Equal to no reason: the inline removal path is off (no pass open, or not pulsar-master)."""


def position(key: int) -> tuple[int, int]:
    """(ledger, entry) of a replay key (see :func:`python_columns`)."""
    if key >= _WIDE:
        key ^= _WIDE
        return key >> 64, key & ((1 << 64) - 1)
    return key >> 32, key & 0xFFFFFFFF


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cycle collector while replaying; reference counting still frees everything.

    The replay makes no reference cycles (entries, handlers and heap items hold ints and each other
    one way only; tests/slow/test_trace_replay_cycles.py checks it), so the collector finds nothing,
    yet its scans of the live entries and the batch's columns cost a good share of a local check
    (BENCHMARKS.md).
    Process-wide, so the collector is turned back on only if it was on before, and it runs once after.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
            gc.collect()


LAZY_COLUMNS = ("ledger", "entry", "value", "result")
"""Columns the inline paths of :meth:`BrokerReplay.feed` never read: converted when a rare event does."""


class Columns(dict[str, list[Any]]):
    """A batch's columns as Python lists (see :func:`python_columns`); :data:`LAZY_COLUMNS` on first use.

    Turning Arrow into Python objects is a large share of the replay's cost (BENCHMARKS.md); the lazy
    columns are read by rare events only, so most batches never pay for them.
    """

    def __init__(self, batch: pa.RecordBatch) -> None:
        super().__init__()
        self.batch = batch

    def __missing__(self, name: str) -> list[Any]:
        if name not in LAZY_COLUMNS:
            raise KeyError(name)
        column = self.batch.column(name)
        values = _object_list(column) if name == "value" else _int_list(column)
        self[name] = values
        return values


def _int_list(column: pa.Array) -> list[int]:
    """Integers with nulls as :data:`NULL`."""
    if column.null_count * 10 < len(column) * 9:
        return column.fill_null(NULL).to_numpy().tolist()  # type: ignore[no-any-return]
    # Mostly null (e.g. ``result``): make Python ints for the few values only.
    values = np.full(len(column), NULL, dtype=object)
    values[pc.indices_nonzero(pc.is_valid(column)).to_numpy()] = column.drop_null().to_numpy()
    return values.tolist()  # type: ignore[no-any-return]


def _object_list(column: pa.Array) -> list[Any]:
    return column.to_pylist() if column.null_count < len(column) else [None] * len(column)


def python_columns(batch: pa.RecordBatch) -> Columns:
    """The columns the replay reads, as Python lists: integers with nulls as :data:`NULL`, kinds as codes.

    ``key`` packs (ledger, entry) into one int: ``ledger << 32 | entry`` when the ledger is below 2**31
    and the entry below 2**32 (vectorized), otherwise a tagged wide int; both forms are unique and a
    position always gets the same key, whatever batch it is in. :data:`LAZY_COLUMNS` are converted
    when first read.
    """
    columns = Columns(batch)
    for name in INT_COLUMNS:
        if name not in LAZY_COLUMNS:
            columns[name] = _int_list(batch.column(name))
    columns["kind"] = pc.index_in(batch.column("kind"), value_set=_KIND_NAMES).to_numpy().tolist()
    for name in ("reason", "cursor"):
        columns[name] = _object_list(batch.column(name))
    ledger = batch.column("ledger").fill_null(-1).to_numpy()
    entry = batch.column("entry").fill_null(-1).to_numpy()
    narrow = (ledger >= 0) & (ledger < 2**31) & (entry >= 0) & (entry < 2**32)
    keys = np.where(narrow, (ledger << 32) | np.where(narrow, entry, 0), -1).tolist()
    if not narrow.all():
        for i in np.flatnonzero(~narrow).tolist():
            lg, en = int(ledger[i]), int(entry[i])
            keys[i] = NULL if lg < 0 or en < 0 else _WIDE | (lg << 64) | en
    columns["key"] = keys
    return columns


@dataclass(frozen=True)
class Finding:
    """A violation found by the replay: which invariant, where (broker, seq, row) and why."""

    invariant: str
    broker: str
    seq: int
    row: int
    message: str


class TraceStructureError(Exception):
    """The events of a broker do not form a well-bracketed trace (e.g. a removal outside a pass)."""

    def __init__(self, broker: str, seq: int, row: int, message: str) -> None:
        super().__init__(f"row {row}: broker {broker!r}, seq {seq}: {message}")
        self.broker, self.seq, self.row = broker, seq, row


class _Entry:
    """A live cached entry. ``handler`` is [count, key of the entry it was made for], or None."""

    __slots__ = ("accessed", "enter", "handler", "requeues", "size", "ts")

    def __init__(self, size: int, ts: int, handler: list[Any] | None, enter: int) -> None:
        self.size, self.ts, self.handler, self.enter = size, ts, handler, enter
        self.accessed = False
        self.requeues = 0


class BrokerReplay:
    """Replays one broker's events and collects the violations of the chosen invariants."""

    def __init__(
        self, broker: str, profile: str, config: CacheConfig, invariants: set[str], *, keep: int = 100
    ) -> None:
        self.broker = broker
        self.keep = keep
        self.counts: dict[str, int] = {}
        self.config = config
        self.check = invariants
        self.pip430 = profile == "pip430"
        self.master = profile == "pulsar-master"
        self.segmented = profile == "segmented"
        self.legacy = profile == "legacy"
        self.enabled = config.max_size > 0
        self.segment_count, self.segment_size = geometry(config)
        self.live: OrderedDict[int, _Entry] = OrderedDict()
        """The live entries by key, in queue order (the order they last entered the queue)."""
        self.copies: dict[int, list[Any] | None] = {}
        self.cursors: dict[tuple[int, str], int] = {}
        self.by_ts: list[tuple[int, int, int]] | None = None
        """A heap of (timestamp, enter, key), only once timestamps have entered out of order."""
        self.latest_ts = NULL
        """The newest timestamp entered, while they enter in order; :data:`NEVER` once :attr:`by_ts` is on."""
        self.unprotected: list[tuple[int, int, int]] = []
        self.unprotected_live = 0
        self.total = 0
        self.enter = 0
        self.findings: list[Finding] = []
        self.pass_kind: int | None = None
        self.pass_now = 0
        self.pass_before = 0
        self.pass_ledger = NULL
        self.pass_entry = NULL
        self.pass_removed: list[tuple[int, int, int]] = []

    # --- helpers ----------------------------------------------------------------------------------

    def _find(self, invariant: str, seq: int, row: int, message: str) -> None:
        """Count every violation; keep the first ``keep`` of each invariant."""
        if invariant in self.check:
            count = self.counts.get(invariant, 0) + 1
            self.counts[invariant] = count
            if count <= self.keep:
                self.findings.append(Finding(invariant, self.broker, seq, row, message))

    @staticmethod
    def _protected(entry: _Entry) -> bool:
        handler = entry.handler
        return handler is not None and handler[0] > 0

    def _track_protection(self, key: int, entry: _Entry, was_protected: bool) -> None:
        """Keep the count of unprotected live entries, and their heap, in step with a count change."""
        now_protected = self._protected(entry)
        if was_protected and not now_protected:
            self.unprotected_live += 1
            if self.pip430:  # the heap is read by pip430's checks only
                heapq.heappush(self.unprotected, (entry.ts, entry.enter, key))
        elif now_protected and not was_protected:
            self.unprotected_live -= 1

    def _enqueue(self, key: int, entry: _Entry) -> None:
        """The entry enters the queue at the tail (insert or requeue), with its timestamp."""
        self.enter += 1
        entry.enter = self.enter
        self.live.move_to_end(key)
        ts = entry.ts
        if self.by_ts is not None:
            heapq.heappush(self.by_ts, (ts, self.enter, key))
        elif ts >= self.latest_ts:
            self.latest_ts = ts
        else:
            self.by_ts = [(e.ts, e.enter, k) for k, e in self.live.items()]
            self.latest_ts = NEVER  # the inline paths of feed test only ``now >= latest_ts``
            heapq.heapify(self.by_ts)
        if self.pip430 and not self._protected(entry):
            heapq.heappush(self.unprotected, (ts, self.enter, key))

    def _oldest_ts(self) -> int | None:
        """The smallest timestamp of a live entry."""
        if self.by_ts is None:
            first = self._first_in_queue()
            return None if first is None else self.live[first[1]].ts
        heap, live = self.by_ts, self.live
        while heap:
            ts, enter, key = heap[0]
            entry = live.get(key)
            if entry is not None and entry.enter == enter:
                return ts
            heapq.heappop(heap)
        return None

    def _first_unprotected(self) -> tuple[int, int, int] | None:
        """(timestamp, enter, key) of the oldest live unprotected entry (pip430)."""
        heap, live = self.unprotected, self.live
        while heap:
            _, enter, key = heap[0]
            entry = live.get(key)
            if entry is not None and entry.enter == enter and not self._protected(entry):
                return heap[0]
            heapq.heappop(heap)
        return None

    def _first_in_queue(self) -> tuple[int, int] | None:
        """(enter, key) of the live entry at the head of the queue."""
        for key, entry in self.live.items():
            return entry.enter, key
        return None

    def _in_range(self, key: int) -> bool:
        if self.pass_kind == CLEAR_PASS:
            return True
        ledger, entry = position(key)
        return ledger == self.pass_ledger and (self.pass_entry == NULL or entry < self.pass_entry)

    def _narrow_range(self) -> tuple[int, int]:
        """``[low, high)``: the narrow keys in the range of the open invalidate pass.

        A narrow key of the pass's ledger L is in ``[L << 32, (L << 32) + limit)``; no narrow key of
        another ledger and no wide key is (wide keys are at least ``_WIDE``, far above any such bound).
        Empty if the ledger has no narrow keys.
        """
        ledger, limit = self.pass_ledger, self.pass_entry
        if not 0 <= ledger < 2**31:
            return 0, 0
        low = ledger << 32
        return low, low + (1 << 32 if limit == NULL or limit > 1 << 32 else max(limit, 0))

    def _left_in_range(self) -> list[int]:
        """The live keys in the range of the open invalidate or clear pass (what :meth:`_in_range` accepts)."""
        if self.pass_kind == CLEAR_PASS:
            return list(self.live)
        low, high = self._narrow_range()
        in_range = self._in_range
        return [k for k in self.live if low <= k < high or (k >= _WIDE and in_range(k))]

    def _expired(self, entry: _Entry, now: int) -> bool:
        config = self.config
        if self.pip430:
            return entry.ts < now - config.ttl_max or (not self._protected(entry) and entry.ts < now - config.ttl)
        return entry.ts < now - config.ttl

    def _drop(self, key: int, entry: _Entry, protected: bool) -> None:
        """Forget a live entry; ``protected`` is its protection before any count change on the way out."""
        del self.live[key]
        self.total -= entry.size
        if not protected:
            self.unprotected_live -= 1

    # --- the loop -----------------------------------------------------------------------------------

    def _fast_state(self) -> tuple[int, bool, int, bool, object, bool, int, int, list[tuple[int, int, int]]]:
        """What the inline paths of :meth:`feed` read, as locals, refreshed after every rare event.

        Only rare events change the configuration or open and close passes. ``low``/``high``: a
        narrow key in ``[low, high)`` is in the range of the open pass (every key for a clear pass;
        for an invalidate pass see :meth:`_narrow_range`); other keys go to :meth:`_remove`, which
        tests the range in full.
        """
        config, kind = self.config, self.pass_kind
        evicting = self.master and kind in (TTL_PASS, SIZE_PASS)
        removing = self.master and kind is not None
        reason = None if kind is None else PASS_NAMES[kind]
        low, high = 0, 1 << 64
        if kind == INVALIDATE_PASS:
            low, high = self._narrow_range()
        return (
            config.max_requeue,
            config.extend_ttl,
            config.ttl,
            evicting,
            reason if removing else _NO_PASS,
            kind == TTL_PASS,
            low,
            high,
            self.pass_removed,
        )

    def feed(self, columns: Columns, rows: Sequence[int], start: int = 0, stop: int | None = None) -> None:
        """Replay events given as :func:`python_columns`; ``rows`` are their row numbers in the input.

        Only the events at ``start:stop`` (default: all), so the columns of a batch can be shared by
        its brokers without copying them.

        The commonest kinds of a sequential cache (requeue, insert, remove in an eviction pass, cursor
        seek, hit, release, miss) are inlined when the event passes every check; anything else, or any
        event that may be a violation, goes to the kind's method, which checks it from scratch (the
        inline paths change nothing before they know the event is clean).
        """
        kinds, keys, seqs, times = columns["kind"], columns["key"], columns["seq"], columns["time"]
        sizes, counts, stamps, copies_col = columns["size"], columns["count"], columns["timestamp"], columns["copy"]
        reasons, cursor_names = columns["reason"], columns["cursor"]
        live, copies, cursors, move_to_end = self.live, self.copies, self.cursors, self.live.move_to_end
        master, pip430 = self.master, self.pip430
        plain_insert = not (pip430 or self.segmented)
        max_requeue, extend_ttl, ttl, evicting, pass_reason, ttl_pass, low, high, removed = self._fast_state()
        for i in range(start, len(kinds) if stop is None else stop):
            kind = kinds[i]
            if kind == REQUEUE:
                entry = live.get(keys[i])
                now = times[i]
                if (
                    entry is not None
                    and evicting
                    and stamps[i] == now
                    and (entry.requeues < max_requeue or (entry.accessed and extend_ttl))
                    and now >= self.latest_ts
                ):
                    entry.ts = now
                    entry.accessed = False
                    entry.requeues += 1
                    self.latest_ts = now
                    enter = self.enter + 1
                    self.enter = enter
                    entry.enter = enter
                    move_to_end(keys[i])
                else:
                    self._requeue(keys[i], seqs[i], now, rows[i], stamps[i])
            elif kind == INSERT:
                key = keys[i]
                ts = stamps[i]
                if plain_insert and ts == times[i] and key not in live:
                    count = counts[i]
                    size = sizes[i]
                    entry = _Entry(size, ts, [count, key] if master and count > 0 else None, 0)
                    live[key] = entry
                    self.total += size
                    if entry.handler is None:
                        self.unprotected_live += 1
                    if ts >= self.latest_ts:
                        self.latest_ts = ts
                        enter = self.enter + 1
                        self.enter = enter
                        entry.enter = enter
                    else:
                        self._enqueue(key, entry)
                else:
                    self._insert(key, seqs[i], times[i], rows[i], sizes[i], counts[i], ts)
            elif kind == REMOVE:
                key = keys[i]
                entry = live.get(key)
                if (
                    entry is not None
                    and reasons[i] == pass_reason
                    and sizes[i] == entry.size
                    and low <= key < high
                    and (not ttl_pass or entry.ts < times[i] - ttl)
                ):
                    # pulsar-master, inside a pass of the event's reason: the checks of _remove that
                    # apply (for every pass, the handler shows one read less; for invalidate, the range).
                    handler = entry.handler
                    if handler is None:
                        protected = False
                    else:
                        before = handler[0]
                        count = counts[i]
                        if count != NULL and count != before - 1:
                            self._remove(key, seqs[i], times[i], rows[i], sizes[i], count, reasons[i])
                            continue
                        protected = before > 0
                        handler[0] = before - 1
                    removed.append((entry.enter, key, entry.size))
                    del live[key]
                    self.total -= entry.size
                    if not protected:
                        self.unprotected_live -= 1
                else:
                    self._remove(key, seqs[i], times[i], rows[i], sizes[i], counts[i], reasons[i])
            elif kind == CURSOR_SEEK:
                ledger, entry_id = position(keys[i])  # never null: a cursor event has both ledger and entry
                cursors[ledger, cursor_names[i]] = entry_id
            elif kind == HIT:
                entry = live.get(keys[i])
                if entry is None:
                    self._find("CACHE-NO-STALE-READ", seqs[i], rows[i], f"hit on {position(keys[i])}, not cached")
                    copies[copies_col[i]] = None
                    continue
                handler = entry.handler
                if handler is not None and counts[i] != NULL and counts[i] != handler[0]:
                    self._find(
                        "CACHE-NO-STALE-READ",
                        seqs[i],
                        rows[i],
                        f"copy {copies_col[i]} shows count {counts[i]}, the entry has {handler[0]}",
                    )
                copies[copies_col[i]] = handler
                entry.accessed = True
            elif kind == RELEASE:
                copy = copies_col[i]
                handler = copies.pop(copy, 0)  # type: ignore[arg-type]  # 0: no such copy
                if handler is None:
                    if counts[i] != NULL and (master or pip430):
                        self._find(
                            "CACHE-READ-COUNT",
                            seqs[i],
                            rows[i],
                            f"copy {copy} has no handler but its release shows count {counts[i]}",
                        )
                elif handler == 0 or not master or handler[0] < 1 or counts[i] not in (NULL, handler[0] - 1):
                    self._release(seqs[i], rows[i], copy, counts[i], handler)
                elif handler[0] > 1:
                    handler[0] -= 1
                else:
                    # The last read: the count drops to 0 and a live entry it guards loses its protection.
                    handler[0] = 0
                    entry = live.get(handler[1])
                    if entry is not None and entry.handler is handler:
                        self.unprotected_live += 1
            elif kind == MISS:
                # legacy reads a range whole from storage when any of it is missing: `reason` says so
                if keys[i] in live and not (self.legacy and reasons[i] == "range"):
                    self._find("CACHE-NO-STALE-READ", seqs[i], rows[i], f"miss on {position(keys[i])}, which is cached")
            else:
                self._rare(kind, columns, i, rows[i])
                max_requeue, extend_ttl, ttl, evicting, pass_reason, ttl_pass, low, high, removed = self._fast_state()

    def _rare(self, kind: int, columns: Columns, i: int, row: int) -> None:
        seq, now, key = columns["seq"][i], columns["time"][i], columns["key"][i]
        if kind == STASH:
            self._stash(key, seq, now, row)
        elif kind == PASS_START:
            self._pass_start(
                seq, now, row, columns["reason"][i], columns["size"][i], columns["ledger"][i], columns["entry"][i]
            )
        elif kind == PASS_END:
            self._pass_end(seq, row, columns["reason"][i], columns["size"][i])
        elif kind == SIZE_SAMPLE:
            self._sample(seq, row, columns["size"][i])
        elif kind == REFUSED:
            self._refused(key, seq, row, columns["size"][i])
        elif kind == MERGE:
            self._merge(key, seq, row, columns["count"][i], columns["value"][i])
        elif kind == REPLAY:
            self._replay(seq, row, columns["copy"][i], columns["count"][i], columns["result"][i])
        elif kind == MARK_EVICTED:
            self._mark_evicted(key, seq, row)
        elif kind == CONFIG:
            self._configure(columns["reason"][i], columns["value"][i])
        else:
            self._cursor(
                kind, seq, row, columns["ledger"][i], columns["cursor"][i], columns["entry"][i], columns["result"][i]
            )

    # --- one method per event kind ------------------------------------------------------------------

    def _insert(self, key: int, seq: int, now: int, row: int, size: int, count: int, ts: int) -> None:
        old = self.live.get(key)
        if old is not None:
            if self.pip430:
                self._find("CACHE-DUPLICATE-MERGE", seq, row, "a cached position was inserted again, not merged")
            elif not self.segmented:
                self._find("CACHE-DUPLICATE-REFUSED", seq, row, "a cached position was inserted again")
            self._drop(key, old, self._protected(old))
        if ts != now and (self.pip430 or self.master):
            self._find("CACHE-FIFO", seq, row, f"inserted with timestamp {ts} at time {now}")
        if self.segmented and size > self.segment_size:
            self._find(
                "CACHE-SEGMENT-RING", seq, row, f"cached an entry of {size} bytes, segments hold {self.segment_size}"
            )
        if self.pip430:
            handler: list[Any] | None = [0 if count == NULL else count, key]
        elif self.master and count != NULL and count > 0:
            handler = [count, key]
        else:
            handler = None
        entry = _Entry(size, ts, handler, 0)
        self.live[key] = entry
        self.total += size
        if not self._protected(entry):
            self.unprotected_live += 1
        self._enqueue(key, entry)

    def _refused(self, key: int, seq: int, row: int, size: int) -> None:
        cached = self.live.get(key)
        if cached is None and self.enabled and (self.pip430 or self.master):
            self._find("CACHE-INSERT-ACCEPTED", seq, row, f"refused an uncached position (cache size {self.total})")
        if cached is not None and self.pip430 and (cached.handler is None or cached.handler[0] != EVICTED):
            self._find("CACHE-DUPLICATE-MERGE", seq, row, "refused a duplicate instead of merging its count")
        if self.segmented and size <= self.segment_size:
            self._find(
                "CACHE-SEGMENT-RING", seq, row, f"refused an entry of {size} bytes (segments hold {self.segment_size})"
            )

    def _merge(self, key: int, seq: int, row: int, count: int, added: float) -> None:
        entry = self.live.get(key)
        if entry is None or entry.handler is None:
            self._find(
                "CACHE-READ-COUNT", seq, row, "merged a count into an entry that is not cached or has no handler"
            )
            return
        if not self.pip430:
            self._find("CACHE-DUPLICATE-REFUSED", seq, row, "a duplicate insert changed the cached entry's count")
        expected = entry.handler[0] if entry.handler[0] == EVICTED else entry.handler[0] + int(added)
        if count != expected:
            self._find(
                "CACHE-DUPLICATE-MERGE", seq, row, f"merging {int(added)} reads gave count {count}, expected {expected}"
            )
        was = self._protected(entry)
        entry.handler[0] = count
        self._track_protection(key, entry, was)

    def _release(self, seq: int, row: int, copy: int, count: int, handler: Any) -> None:
        if handler == 0:
            self._find("CACHE-READ-COUNT", seq, row, f"release of copy {copy}, which is not open")
            return
        before = handler[0]
        expected = before if self.pip430 and before == EVICTED else before - 1
        self._set_count(handler, expected, seq, row, count, f"release of copy {copy}")
        if self.pip430 and before == EVICTED and count not in (NULL, EVICTED):
            self._find("CACHE-EVICTED-FINAL", seq, row, f"copy {copy} was EVICTED and its release shows {count}")

    def _replay(self, seq: int, row: int, copy: int, count: int, result: int) -> None:
        if copy not in self.copies:
            self._find("CACHE-READ-COUNT", seq, row, f"replay increment through copy {copy}, which is not open")
            return
        handler = self.copies[copy]
        if handler is None:
            return
        before = handler[0]
        evicted = self.pip430 and before == EVICTED
        if self.pip430 and result != NULL and bool(result) == evicted:
            self._find(
                "CACHE-EVICTED-FINAL", seq, row, f"incrementExpectedReadCount returned {bool(result)} on count {before}"
            )
        self._set_count(handler, before if evicted else before + 1, seq, row, count, f"replay through copy {copy}")

    def _set_count(self, handler: list[Any], expected: int, seq: int, row: int, shown: int, what: str) -> None:
        """Apply a count change to a shared handler, checking the count the event shows."""
        if shown not in (NULL, expected):
            self._find("CACHE-READ-COUNT", seq, row, f"{what}: count {shown}, expected {expected}")
        key = handler[1]
        entry = self.live.get(key)
        if entry is not None and entry.handler is handler:
            was = self._protected(entry)
            handler[0] = expected
            self._track_protection(key, entry, was)
        else:
            handler[0] = expected

    def _mark_evicted(self, key: int, seq: int, row: int) -> None:
        entry = self.live.get(key)
        if self.pass_kind not in (INVALIDATE_PASS, CLEAR_PASS) or entry is None:
            self._find("CACHE-EVICTED-FINAL", seq, row, "markEvicted outside a forced removal of a cached entry")
            return
        if entry.handler is not None:
            was = self._protected(entry)
            entry.handler[0] = EVICTED
            self._track_protection(key, entry, was)

    def _remove(self, key: int, seq: int, now: int, row: int, size: int, count: int, reason: str) -> None:
        if self.pass_kind is None or PASS_NAMES[self.pass_kind] != reason:
            where = "outside a pass" if self.pass_kind is None else f"inside a {PASS_NAMES[self.pass_kind]} pass"
            raise TraceStructureError(self.broker, seq, row, f"remove with reason {reason!r} {where}")
        entry = self.live.get(key)
        if entry is None:
            self._find("CACHE-SIZE-ACCOUNTING", seq, row, f"removed {position(key)}, which is not cached")
            return
        if size != entry.size:
            self._find("CACHE-SIZE-ACCOUNTING", seq, row, f"removed {size} bytes, the entry has {entry.size}")
        handler = entry.handler
        before = None if handler is None else handler[0]
        protected = self._protected(entry)
        forced = self.pass_kind >= INVALIDATE_PASS
        if self.pip430 and not forced and protected and entry.ts >= now - self.config.ttl_max:
            self._find(
                "CACHE-PROTECT-UNTIL-EXPIRED",
                seq,
                row,
                f"removed {position(key)} with count {before}, timestamp {entry.ts}, younger than thresholdMax",
            )
        if self.pass_kind == TTL_PASS and not self._expired(entry, now):
            self._find(
                "CACHE-TTL",
                seq,
                row,
                f"removed {position(key)} (timestamp {entry.ts}, count {before}), not expired at {now}",
            )
        if forced and not self._in_range(key):
            self._find("CACHE-NO-STALE-READ", seq, row, f"removed {position(key)}, outside the invalidated range")
        if handler is not None:
            expected = handler[0] - 1 if self.master else EVICTED if forced else handler[0]
            if count not in (NULL, expected):
                invariant = "CACHE-EVICTED-FINAL" if self.pip430 and forced else "CACHE-READ-COUNT"
                self._find(invariant, seq, row, f"the removed entry's handler shows {count}, expected {expected}")
            handler[0] = expected
        self.pass_removed.append((entry.enter, key, entry.size))
        self._drop(key, entry, protected)

    def _requeue(self, key: int, seq: int, now: int, row: int, ts: int) -> None:
        entry = self.live.get(key)
        if entry is None:
            self._find("CACHE-FIFO", seq, row, f"requeued {position(key)}, which is not cached")
            return
        if not self.master or self.pass_kind not in (SIZE_PASS, TTL_PASS) or ts != now:
            self._find(
                "CACHE-FIFO", seq, row, f"a requeue of {position(key)} to timestamp {ts} at {now} is not allowed"
            )
        config = self.config
        if entry.requeues >= config.max_requeue and not (entry.accessed and config.extend_ttl):
            self._find(
                "CACHE-BOUNDED-PROTECTION",
                seq,
                row,
                f"requeued {position(key)} without a read after {entry.requeues} requeues (max {config.max_requeue})",
            )
        entry.ts = ts
        entry.accessed = False
        entry.requeues += 1
        self._enqueue(key, entry)

    def _stash(self, key: int, seq: int, now: int, row: int) -> None:
        entry = self.live.get(key)
        if not self.pip430 or entry is None or self.pass_kind not in (SIZE_PASS, TTL_PASS):
            self._find("CACHE-FIFO", seq, row, "a stash is allowed only in a pip430 eviction pass")
        elif not self._protected(entry) or entry.ts < now - self.config.ttl_max:
            self._find("CACHE-FIFO", seq, row, f"stashed {position(key)}, which is not protected and unexpired")

    def _pass_start(self, seq: int, now: int, row: int, reason: str, size: int, ledger: int, entry: int) -> None:
        if self.pass_kind is not None:
            raise TraceStructureError(self.broker, seq, row, f"a {reason} pass starts inside another pass")
        self.pass_kind = PASS_NAMES.index(reason)
        self.pass_now, self.pass_before = now, size
        self.pass_ledger, self.pass_entry = ledger, entry
        self.pass_removed = []
        if self.pass_kind == INVALIDATE_PASS and ledger == NULL:
            raise TraceStructureError(self.broker, seq, row, "an invalidate pass needs the ledger")
        self._sample(seq, row, size)

    def _pass_end(self, seq: int, row: int, reason: str, size: int) -> None:
        kind = self.pass_kind
        if kind is None or PASS_NAMES[kind] != reason:
            raise TraceStructureError(self.broker, seq, row, f"a {reason} pass ends, but none of that kind is open")
        self._sample(seq, row, size)
        removed = self.pass_removed
        if kind == SIZE_PASS:
            if not self.segmented:
                self._watermark(seq, row, removed, size)
            self._order("CACHE-OLDEST-FIRST", seq, row, removed)
        elif kind == TTL_PASS:
            self._survivors(seq, row)
            self._order("CACHE-FIFO", seq, row, removed)
        elif "CACHE-NO-STALE-READ" in self.check:
            left = self._left_in_range()
            if left:
                self._find(
                    "CACHE-NO-STALE-READ",
                    seq,
                    row,
                    f"{len(left)} entries of the range are still cached, e.g. {position(min(left))}",
                )
        self.pass_kind = None

    def _watermark(self, seq: int, row: int, removed: list[Any], after: int) -> None:
        config = self.config
        trigger, watermark = config.trigger_size, config.watermark_size
        if self.pass_before <= trigger:
            if removed:
                self._find(
                    "CACHE-WATERMARK",
                    seq,
                    row,
                    f"size {self.pass_before} is not above the trigger {trigger}, yet {len(removed)} entries went",
                )
            return
        if after > watermark:
            oldest = self._oldest_ts()
            excused = (
                self.pip430
                and self.unprotected_live == 0
                and (oldest is None or oldest >= self.pass_now - config.ttl_max)
            )
            if not excused:
                self._find("CACHE-WATERMARK", seq, row, f"after eviction {after} > watermark {watermark}")
        elif removed and after + max(r[2] for r in removed) <= watermark:
            self._find("CACHE-WATERMARK", seq, row, f"evicted down to {after}, more than needed ({watermark})")

    def _survivors(self, seq: int, row: int) -> None:
        """No expired entry is left after a TTL pass."""
        now, config = self.pass_now, self.config
        if not (self.pip430 or self.master):
            return
        oldest = self._oldest_ts()
        limit = config.ttl_max if self.pip430 else config.ttl
        if oldest is not None and oldest < now - limit:
            self._find("CACHE-TTL", seq, row, f"left an entry with timestamp {oldest}, expired at {now}")
        if self.pip430:
            first = self._first_unprotected()
            if first is not None and first[0] < now - config.ttl:
                self._find(
                    "CACHE-TTL",
                    seq,
                    row,
                    f"left {position(first[2])} (timestamp {first[0]}, not protected), expired at {now}",
                )

    def _order(self, invariant: str, seq: int, row: int, removed: list[Any]) -> None:
        """Nothing that entered the queue before the newest removed entry is left, unless exempt."""
        if not removed or invariant not in self.check:
            return
        newest = max(r[0] for r in removed)
        first = self._first_in_queue()
        if first is None or first[0] >= newest:
            return
        if not self.pip430:
            self._find(invariant, seq, row, f"removed an entry that entered after {position(first[1])}, which is kept")
            return
        # pip430 skips (stashes) protected entries younger than thresholdMax: look for a kept entry
        # that is not, among those older than the newest removed one.
        unprotected = self._first_unprotected()
        if unprotected is not None and unprotected[1] < newest:
            self._find(
                invariant, seq, row, f"kept {position(unprotected[2])}, older than a removed entry and not protected"
            )
            return
        limit = self.pass_now - self.config.ttl_max
        if self.by_ts is None:
            if self.live[first[1]].ts < limit:
                self._find(
                    invariant, seq, row, f"kept {position(first[1])}, older than a removed entry and past thresholdMax"
                )
            return
        for key, found in self.live.items():
            if found.enter >= newest:
                return
            if found.ts < limit:
                self._find(
                    invariant, seq, row, f"kept {position(key)}, older than a removed entry and past thresholdMax"
                )
                return

    def _sample(self, seq: int, row: int, size: int) -> None:
        if self.segmented:
            bound = self.segment_count * self.segment_size + 63
            if size > bound:
                self._find("CACHE-SEGMENT-RING", seq, row, f"size {size} exceeds {bound}")
        elif size != self.total:
            self._find(
                "CACHE-SIZE-ACCOUNTING", seq, row, f"reported size {size}, cached entries add up to {self.total}"
            )

    def _configure(self, field: str, value: float) -> None:
        if field == "extend_ttl":
            self.config = self.config.replace(extend_ttl=bool(value))
        elif field in _INT_CONFIG:
            self.config = self.config.replace(**{field: int(value)})
        else:
            self.config = self.config.replace(**{field: value})

    def _cursor(self, kind: int, seq: int, row: int, ledger: int, name: str, entry: int, result: int) -> None:
        cursors = self.cursors
        if kind == CURSOR_ADD:
            cursors[ledger, name] = entry
        elif kind == CURSOR_REMOVE:
            cursors.pop((ledger, name), None)
        else:
            where = cursors.get((ledger, name))
            expected = (
                0 if where is None else sum(1 for (lg, _), pos in cursors.items() if lg == ledger and pos <= where)
            )
            if result != expected:
                self._find("CACHE-CURSOR-COUNT", seq, row, f"count at or before {name!r} is {expected}, got {result}")

    def finish(self) -> str | None:
        """End of the broker's events: a reason the verdict cannot be complete, or None."""
        if self.pass_kind is not None:
            return f"broker {self.broker!r}: the trace ends inside a {PASS_NAMES[self.pass_kind]} pass"
        return None
