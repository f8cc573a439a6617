"""The local trace checker: one streaming pass, one replay per broker, memory bounded by live entries.

Batches are read in file order; each batch is split by broker (a stable sort keeps each broker's
rows in file order) and each broker's slice goes to its :class:`BrokerReplay`. Seq must increase
strictly per broker in file order. Violations get their context (the neighbouring events of the same
broker) in a second pass, over the brokers that have violations only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ledgerspec.traces._check import CONTEXT, KEEP_PER_INVARIANT, CheckResult, TraceViolation, select, trace_invariants
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces._format import COLUMNS
from ledgerspec.traces._io import TraceFile, open_trace
from ledgerspec.traces._replay import BrokerReplay, Finding, TraceStructureError, python_columns


def check_local(path: str | Path, *, budget: float | None = None) -> CheckResult:
    """Check one trace file; ``budget`` (seconds) turns an unfinished check into UNKNOWN."""
    started = time.perf_counter()
    trace = open_trace(path)
    profile = trace.header.profile
    invariants = set(trace_invariants(profile))
    result = CheckResult(path=str(trace.path), engine="local", profile=profile)
    replays: dict[str, BrokerReplay] = {}
    last_seq: dict[str, int] = {}
    try:
        for first_row, batch in trace.batches():
            if budget is not None and time.perf_counter() - started > budget:
                result.unknown.append(f"stopped after {result.events} events: the budget of {budget:g} s ran out")
                break
            result.events += batch.num_rows
            for broker, rows, columns in split_by_broker(batch, first_row):
                replay = replays.get(broker)
                if replay is None:
                    replay = replays[broker] = BrokerReplay(broker, profile, trace.config, invariants, keep=KEEP_PER_INVARIANT)
                check_seq(columns["seq"], rows, broker, last_seq, str(trace.path))
                replay.feed(columns, rows)
    except TraceStructureError as error:
        raise TraceInputError(f"{trace.path}: {error}") from None
    result.brokers = len(replays)
    findings: list[Finding] = []
    for replay in replays.values():
        findings += replay.findings
        for invariant, count in replay.counts.items():
            result.counts[invariant] = result.counts.get(invariant, 0) + count
        reason = replay.finish()
        if reason and not result.unknown:
            result.unknown.append(reason)
    chosen = select(findings, result.counts)
    result.violations = attach_context(trace, chosen)
    result.seconds = time.perf_counter() - started
    return result


def split_by_broker(batch: pa.RecordBatch, first_row: int) -> Iterator[tuple[str, list[int], dict[str, list[Any]]]]:
    """(broker, row numbers, Python columns) per broker, each in file order."""
    order = pc.sort_indices(batch, sort_keys=[("broker", "ascending")])
    taken = batch.take(order)
    rows = pc.add(order, first_row).to_numpy().tolist()
    columns = python_columns(taken)
    runs = pc.run_end_encode(taken.column("broker"))
    start = 0
    for broker, end in zip(runs.values.to_pylist(), runs.run_ends.to_pylist(), strict=True):
        if start == 0 and end == len(rows):
            yield broker, rows, columns
        else:
            yield broker, rows[start:end], {name: values[start:end] for name, values in columns.items()}
        start = end


def check_seq(seqs: list[int], rows: list[int], broker: str, last_seq: dict[str, int], where: str) -> None:
    """Seq strictly increases per broker, in file order."""
    previous = last_seq.get(broker)
    for seq, row in zip(seqs, rows, strict=True):
        if previous is not None and seq <= previous:
            what = "repeats" if seq == previous else "goes back from"
            raise TraceInputError(f"{where}: row {row}: field 'seq': {seq} {what} {previous} for broker {broker!r}")
        previous = seq
    if previous is not None:
        last_seq[broker] = previous


def attach_context(trace: TraceFile, findings: list[Finding]) -> list[TraceViolation]:
    """Second pass: the violating event and the events of its broker just before and after it."""
    if not findings:
        return []
    wanted: dict[str, set[int]] = {}
    for finding in findings:
        wanted.setdefault(finding.broker, set()).add(finding.seq)
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
            history[broker] = [*history[broker][-(CONTEXT - 1):], event] if CONTEXT > 1 else [event]
    return [
        TraceViolation(
            invariant=f.invariant,
            broker=f.broker,
            seq=f.seq,
            row=f.row,
            message=f.message,
            event=events.get((f.broker, f.seq), {}),
            context=around.get((f.broker, f.seq), []),
        )
        for f in findings
    ]
