"""The local trace checker: one streaming pass, one replay per broker, memory bounded by live entries.

Batches are read in file order; each batch is split by broker (a stable sort keeps each broker's
rows in file order) and each broker's slice goes to its :class:`BrokerReplay`. Seq must increase
strictly, and time must not decrease, per broker in file order. Violations get their context (the
neighbouring events of the same broker) in a second pass, over the brokers that have violations only.
"""

from __future__ import annotations

import os
import re
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.cache._check import CheckResult, locate, select, trace_invariants, wanted_seqs
from ledgerspec.traces.cache._format import COLUMNS
from ledgerspec.traces.cache._io import TraceFile, open_trace
from ledgerspec.traces.cache._partitions import broker_counts, group_brokers, pack
from ledgerspec.traces.cache._replay import BrokerReplay, Finding, TraceStructureError, chunk_of
from ledgerspec.traces.cache._rows import check_batch, codes_in, describe_problem, order_problem
from ledgerspec.traces.cache.bulk._chunk import Chunk
from ledgerspec.traces.core._result import CONTEXT, KEEP_PER_INVARIANT, TraceViolation

PARALLEL_FROM = 500_000
"""Traces with at least this many events are checked by several processes (when there are cores)."""


Rows = Callable[[int, int | None], None]
"""A progress callback: (rows checked so far, rows in the trace, or None when unknown: JSON lines)."""


def check_local(
    path: str | Path, *, budget: float | None = None, workers: int | None = None, on_rows: Rows | None = None
) -> CheckResult:
    """Check one trace file; ``budget`` (seconds) turns an unfinished check into UNKNOWN.

    Brokers are independent (every check is per broker), so large Parquet traces are split by broker
    over ``workers`` processes (default: the CPU count), each replaying its own brokers; the results
    are merged exactly as one process would have produced them. The brokers are packed by their event
    counts (traces/cache/_partitions.py), so the processes finish together. A process reads only the row
    groups that may hold its brokers (:func:`plan_groups`), else the whole file.

    ``on_rows`` hears the rows checked so far after each batch (one process), or every quarter
    second from a counter the processes share (several).
    """
    started = time.perf_counter()
    trace = open_trace(path)
    result = CheckResult(path=str(trace.path), engine="local", profile=trace.header.profile)
    total = trace.num_rows() if trace.format == "parquet" else None
    if workers is None:
        big = total is not None and total >= PARALLEL_FROM
        workers = (os.cpu_count() or 1) if big else 1
    if workers <= 1:
        parts = [_check_part(str(path), 0, 1, budget, on_rows=None if on_rows is None else _told(on_rows, total))]
    else:
        brokers = group_brokers(trace)
        counts = None if brokers is None else broker_counts(trace, brokers)
        owners = None if counts is None else {b: i for i, bin_ in enumerate(pack(counts, workers)) for b in bin_}
        plans = [
            None if brokers is None or owners is None else plan_groups(brokers, i, workers, owners)
            for i in range(workers)
        ]
        shares = [(str(path), i, workers, budget, owners, plans[i]) for i in range(workers)]
        context = get_context("spawn")
        counter = context.Value("q", 0)
        with context.Pool(workers, initializer=_share_counter, initargs=(counter,)) as pool:
            parts = _gather(pool, shares, counter, on_rows, total)
            if any(part.stale for part in parts):  # a footer claimed one broker for a mixed group
                counter.value = 0
                parts = _gather(pool, [share[:-1] for share in shares], counter, on_rows, total)
    errors = [part.error for part in parts if part.error is not None]
    if errors:
        _, message = min(errors)
        raise TraceInputError(message)
    findings: list[Finding] = []
    for part in parts:
        findings += part.findings
        for invariant, count in part.counts.items():
            result.counts[invariant] = result.counts.get(invariant, 0) + count
        result.unknown += [reason for reason in part.unknown if reason not in result.unknown]
        result.brokers += part.brokers
    result.events = sum(part.events for part in parts)
    result.unknown.sort()
    chosen = select(findings, result.counts)
    result.violations = attach_context(trace, chosen)
    result.seconds = time.perf_counter() - started
    return result


_COUNTER: Any = None
"""In a worker process: the rows counter all the processes of one check add to (None: not shared)."""


def _share_counter(counter: Any) -> None:
    """Pool initializer: the shared counter is handed to a process when it starts (how ``spawn`` shares one)."""
    global _COUNTER  # noqa: PLW0603 - one per worker process, set once
    _COUNTER = counter


def _told(on_rows: Rows, total: int | None) -> Callable[[int], None]:
    return lambda done: on_rows(done, total)


def _gather(
    pool: Any, shares: list[tuple[Any, ...]], counter: Any, on_rows: Rows | None, total: int | None
) -> list[_Part]:
    """The parts of ``shares`` run on ``pool``; meanwhile ``on_rows`` hears the shared counter."""
    pending = pool.starmap_async(_check_part, shares)
    while on_rows is not None and not pending.ready():
        on_rows(int(counter.value), total)
        pending.wait(0.25)
    parts: list[_Part] = pending.get()
    if on_rows is not None:
        on_rows(int(counter.value), total)
    return parts


@dataclass
class _Part:
    """What one process found for its share of the brokers."""

    events: int = 0
    """Rows checked by this process (every row is checked by one process)."""
    brokers: int = 0
    findings: list[Finding] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    error: tuple[int, str] | None = None
    """(row, message) of the first bad row this process saw."""
    stale: bool = False
    """A row group planned as one broker's holds others: redo without the plan."""


def _owned(name: str, index: int, workers: int, owners: dict[str, int] | None = None) -> bool:
    """Whether process ``index`` of ``workers`` replays broker ``name``: by ``owners``, else a stable hash."""
    if workers == 1:
        return True
    if owners is not None and name in owners:
        return owners[name] == index
    return zlib.crc32(name.encode()) % workers == index


def plan_groups(
    brokers: list[str | None], index: int, workers: int, owners: dict[str, int] | None
) -> dict[int, str | None]:
    """The Parquet row groups process ``index`` reads, each with its one broker, or None if it mixes brokers.

    ``brokers``: the one broker of each group (:func:`group_brokers`). The process reads its brokers'
    groups, and checks them; it reads every mixed group, and checks every ``workers``-th of them.
    So each row is checked by exactly one process, and each broker's rows are all read by its owner.
    """
    return {
        group: broker
        for group, broker in enumerate(brokers)
        if broker is None or _owned(broker, index, workers, owners)
    }


class _StalePlanError(Exception):
    """A row group does not hold only the broker its footer statistics gave (say, truncated statistics)."""


def _read_share(
    trace: TraceFile, index: int, workers: int, groups: dict[int, str | None] | None
) -> Iterator[tuple[int, pa.RecordBatch, bool]]:
    """(first row, batch, whether this process checks it) of what process ``index`` reads, checked as due."""
    if groups is None:
        batches = trace.batches(check=lambda n: n % workers == index, dictionaries=True)
        for number, (first_row, batch) in enumerate(batches):
            yield first_row, batch, number % workers == index
        return
    for group, first_row, batch in trace.row_groups(groups, dictionaries=True):
        broker = groups[group]
        checked = broker is not None or group % workers == index
        if checked:
            check_batch(batch, first_row, str(trace.path))
        if broker is not None and not pc.all(pc.equal(batch.column("broker"), broker)).as_py():
            raise _StalePlanError
        yield first_row, batch, checked


def _check_part(
    path: str,
    index: int,
    workers: int,
    budget: float | None,
    owners: dict[str, int] | None = None,
    groups: dict[int, str | None] | None = None,
    *,
    on_rows: Callable[[int], None] | None = None,
) -> _Part:
    """Replay the brokers of process ``index`` of ``workers``, reading ``groups`` if given (:func:`plan_groups`).

    After each batch, the rows checked so far go to ``on_rows`` (one process) or the shared counter (a pool's).
    """
    started = time.perf_counter()
    trace = open_trace(path)
    part = _Part()
    replays = Replays(trace)
    stopped = False
    try:
        for first_row, batch, checked in _read_share(trace, index, workers, groups):
            if budget is not None and time.perf_counter() - started > budget:
                part.unknown.append(f"stopped after {part.events} events: the budget of {budget:g} s ran out")
                stopped = True
                break
            part.events += batch.num_rows if checked else 0
            _replay_share(replays, batch, first_row, checked=checked, share=(index, workers, owners))
            _rows_done(batch.num_rows if checked else 0, part.events, on_rows)
    except TraceInputError as error:
        part.error = (_row_of(str(error)), str(error))
    except TraceStructureError as error:
        part.error = (error.row, f"{trace.path}: {error}")
    except _StalePlanError:
        part.stale = True
        return part
    if part.error is None:
        for replay in replays.by_broker.values():
            part.findings += replay.findings
            for invariant, count in replay.counts.items():
                part.counts[invariant] = part.counts.get(invariant, 0) + count
            reason = None if stopped else replay.finish()  # stopped by the budget, no broker's events ended
            if reason:
                part.unknown.append(reason)
    part.brokers = len(replays.by_broker)
    return part


_Share = tuple[int, int, dict[str, int] | None]
"""(process index, processes, broker owners): which brokers of a batch a process replays."""


def _replay_share(replays: Replays, batch: pa.RecordBatch, first_row: int, *, checked: bool, share: _Share) -> None:
    """Replay this process's brokers of a batch.

    A batch another process checks may hold a bad row that fails the replay here: that process
    reports it, and so does this one, with the same error.
    """
    try:
        replays.feed(split_by_broker(batch, first_row, *share))
    except Exception:
        if not checked:
            check_batch(batch, first_row, str(replays.trace.path))
        raise


def _rows_done(added: int, done: int, on_rows: Callable[[int], None] | None) -> None:
    """``added`` rows checked by this process, ``done`` in all: told to ``on_rows``, else to the shared counter."""
    if on_rows is not None:
        on_rows(done)
    elif _COUNTER is not None:
        with _COUNTER.get_lock():
            _COUNTER.value += added


class Replays:
    """The replays of one process's brokers, each made when its broker first shows, and their last seq."""

    def __init__(self, trace: TraceFile) -> None:
        self.trace = trace
        self.invariants = set(trace_invariants(trace.header.profile))
        self.by_broker: dict[str, BrokerReplay] = {}
        self.last: dict[str, tuple[int, int]] = {}
        """Each broker's last (seq, time), for the order checks across batches."""

    def feed(self, parts: Iterable[tuple[str, Chunk]]) -> None:
        """Check the seq and time order of each broker's slice of a batch and replay it (:func:`split_by_broker`)."""
        trace = self.trace
        for broker, chunk in parts:
            replay = self.by_broker.get(broker)
            if replay is None:
                replay = self.by_broker[broker] = BrokerReplay(
                    broker, trace.header.profile, trace.config, self.invariants, keep=KEEP_PER_INVARIANT
                )
            check_order(chunk, broker, self.last, str(trace.path))
            replay.feed(chunk)


def _row_of(message: str) -> int:
    match = re.search(r": row (\d+):", message)
    return int(match.group(1)) if match else -1


def split_by_broker(
    batch: pa.RecordBatch, first_row: int, index: int = 0, workers: int = 1, owners: dict[str, int] | None = None
) -> Iterator[tuple[str, Chunk]]:
    """(broker, its events as a chunk) per broker of the batch, brokers in name order, rows in file order.

    Only the brokers of process ``index`` of ``workers`` (:func:`_owned`). Row numbers count from
    ``first_row``. One stable sort of the rows by the broker's rank among the batch's names (an int,
    from a dictionary encoding), one ``take`` of the owned rows, one conversion, and a view per broker.
    """
    names, codes = _broker_codes(batch.column("broker"))
    counts = np.bincount(codes, minlength=len(names) + 1)
    if len(names) == 1 and counts[0] == batch.num_rows:  # one broker (a Parquet row group per broker)
        if _owned(names[0], index, workers, owners):
            yield names[0], chunk_of(batch, np.arange(first_row, first_row + batch.num_rows, dtype=np.int64))
        return
    ranked = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names) + 1, np.int64)
    rank[ranked] = np.arange(len(names))
    rank[len(names)] = len(names)
    rows_rank = rank[codes]
    owned = [i for i in ranked if counts[i] and _owned(names[i], index, workers, owners)]
    if not owned:
        return
    if len(owned) < len(names) or counts[len(names)]:
        keep = np.zeros(len(names) + 1, bool)
        keep[owned] = True
        selected = np.flatnonzero(keep[codes])
        order = selected[np.argsort(rows_rank[selected], kind="stable")]
    else:
        order = np.argsort(rows_rank, kind="stable")
    chunk = chunk_of(batch.take(pa.array(order)), order.astype(np.int64) + first_row)
    ends = np.cumsum(np.bincount(rows_rank[order], minlength=len(names) + 1)[rank[owned]]).tolist()
    start = 0
    for i, end in zip(owned, ends, strict=True):
        yield names[i], chunk.part(start, end)
        start = end


def _broker_codes(column: pa.Array) -> tuple[list[str], np.ndarray]:
    """The batch's distinct broker names and each row's code among them (``len(names)``: a null broker).

    Rows with a null broker (only in a batch another process checks, and reports) are owned by nobody.
    A dictionary column may repeat a name in its dictionary or hold unused ones: codes are by name.
    """
    values = column.dictionary if pa.types.is_dictionary(column.type) else column
    names: list[str] = pc.unique(values.drop_null()).to_pylist()
    codes = codes_in(column, pa.array(names, pa.string()))
    codes[codes < 0] = len(names)
    return names, codes


def check_order(chunk: Chunk, broker: str, last: dict[str, tuple[int, int]], where: str) -> None:
    """Per broker in file order, seq strictly increases and time never decreases.

    ``last`` holds each broker's last (seq, time) across batches, and is updated.
    """
    seqs, times = chunk.seq, chunk.time
    if not len(seqs):
        return
    previous = last.get(broker)
    first_ok = previous is None or (seqs[0] > previous[0] and times[0] >= previous[1])
    if first_ok and not (seqs[1:] <= seqs[:-1]).any() and not (times[1:] < times[:-1]).any():
        last[broker] = (int(seqs[-1]), int(times[-1]))  # in order (vectorized); otherwise find the first bad row
        return
    for seq, time_, row in zip(seqs.tolist(), times.tolist(), chunk.row.tolist(), strict=True):
        code = order_problem(seq, time_, previous)
        if code is not None:
            assert previous is not None
            values = {"row": row, "seq": seq, "time": time_, "prev": previous[0], "prev_time": previous[1]}
            raise TraceInputError(f"{where}: {describe_problem(code, {**values, 'broker': broker})}")
        previous = (seq, time_)


def attach_context(trace: TraceFile, findings: list[Finding]) -> list[TraceViolation]:
    """Second pass: the violating event and the events of its broker just before and after it.

    Also the event of each first divergence (``Finding.first``), and, in JSON lines, each one's file line.
    """
    if not findings:
        return []
    wanted = wanted_seqs(findings)
    history: dict[str, list[dict[str, Any]]] = {broker: [] for broker in wanted}
    events: dict[tuple[str, int], dict[str, Any]] = {}
    around: dict[tuple[str, int], list[dict[str, Any]]] = {}
    waiting: dict[str, list[tuple[int, int]]] = {broker: [] for broker in wanted}
    for _, batch in trace.batches():
        mask = pc.is_in(batch.column("broker"), value_set=pa.array(sorted(wanted)))
        if not pc.any(mask).as_py():
            continue
        for row in batch.filter(mask).to_pylist():
            broker, seq = row["broker"], row["seq"]
            event = {c: row[c] for c in COLUMNS if row[c] is not None}
            for index, (violation_seq, remaining) in enumerate(waiting[broker]):
                around[broker, violation_seq].append(event)
                waiting[broker][index] = (violation_seq, remaining - 1)
            waiting[broker] = [(s, r) for s, r in waiting[broker] if r > 0]
            if seq in wanted[broker]:
                events[broker, seq] = event
                around[broker, seq] = list(history[broker][-CONTEXT:])
                waiting[broker].append((seq, CONTEXT))
            history[broker] = [*history[broker][-(CONTEXT - 1) :], event] if CONTEXT > 1 else [event]
    return locate(trace, [TraceViolation.of(f, events, around) for f in findings])
