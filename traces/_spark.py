"""The PySpark trace checker: DataFrame operations around one stateful replay per broker.

``check_spark(path)`` gives the same :class:`CheckResult` as ``check_local(path)`` (verdict, events,
brokers, counts, violations with their context, ``unknown``) for every valid trace, and the same
:class:`TraceInputError` for an invalid one with one problem. A check is three Spark jobs at most:

1. Driver, no job: ``open_trace`` reads and checks the header and the schema from the Parquet footer
   (the same code and messages as the local checker); a JSON-lines trace (small by design) is read and
   validated in the driver and handed to Spark as an Arrow table with explicit row numbers.
2. One pass with one shuffle: rows are partitioned by broker (brokers packed by their event counts,
   traces/_partitions.py, or hashed by name without counts) and sorted by (broker, row), and
   nothing else happens in the JVM. ``mapInArrow`` then runs one :class:`BrokerReplay` per broker
   over the Arrow batches of its partition (the replay is stateful and cannot be a column
   expression), and checks the rows on the way, vectorized per batch: the row checks of
   traces/_rows.py (``suspect_rows``, then ``row_problem`` on the few suspects) and the seq and
   time order (the rows arrive in file order per broker). Both were SQL before (a CASE expression and a
   ``lag`` window) and cost the JVM more than they cost numpy. It emits findings, per-broker counts
   and summaries, and at most one error per broker: its first bad row.
3. Only if there are violations: the context of each reported violation, a ``collect_list`` window of
   +-CONTEXT rows over the brokers with violations (:func:`context_of`).

Partitions. Every invariant checked on traces is checked on the events of one broker in ``seq`` order
(``_check.PARTITIONS``): a broker has one removal queue, so size, watermark, queue order and TTL
checks are global to the broker and never split per ledger; entries, copies and their shared handlers
never leave their broker; the cursor count is per ledger, and a ledger belongs to one broker, so the
broker partition is also sound for it. Partitioning by broker (one key per broker, packed or hashed)
puts all of a broker's rows in one Spark partition; sorting by (broker, row) gives them in file
order, which is seq order once the seq check has passed. Nothing crosses brokers, so partitions are
independent: the result is the same for any number of partitions.

The session, the reading of the trace and the wording of failed jobs are in ``_spark_input.py``,
with what cluster use needs.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.traces._check import CONTEXT, KEEP_PER_INVARIANT, CheckResult, TraceViolation, select, trace_invariants
from ledgerspec.traces._errors import TraceError, TraceInputError
from ledgerspec.traces._format import COLUMNS
from ledgerspec.traces._io import TraceFile, open_trace
from ledgerspec.traces._partitions import broker_counts, placement
from ledgerspec.traces._replay import (
    BrokerReplay,
    Finding,
    TraceStructureError,
    cycle_collection_paused,
    python_columns,
)
from ledgerspec.traces._rows import describe_problem, order_problem, row_problem, row_values, suspect_rows
from ledgerspec.traces._spark_input import spark_failure, spark_session, trace_frame

if TYPE_CHECKING:
    from ledgerspec.spec.cache import CacheConfig
    from pyspark.sql import DataFrame, SparkSession

ROWS_PER_PARTITION = 250_000
"""Fewer replay partitions for small traces (each costs a task); at most ``spark.sql.shuffle.partitions``."""

OUTPUT = pa.schema(
    [
        pa.field("what", pa.string()),
        pa.field("broker", pa.string()),
        pa.field("invariant", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("row", pa.int64()),
        pa.field("message", pa.string()),
        pa.field("n", pa.int64()),
    ]
)
"""What the replay emits, one row per fact. ``what`` is ``finding`` (invariant, broker, seq, row,
message), ``count`` (invariant, broker, n violations), ``broker`` (broker, first row, n events, message:
the reason the broker's verdict is incomplete, or null), ``error`` (broker, row, message; invariant
``input``, ``structure`` or ``internal``) or ``time`` (invariant: what was timed, n: nanoseconds)."""
OUTPUT_DDL = ", ".join(f"{f.name} {'string' if f.type == pa.string() else 'long'}" for f in OUTPUT)


def _literal(text: str) -> str:
    """A Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


# --- the replay, inside mapInArrow ----------------------------------------------------------------


class PartitionReplay:
    """The replay of one Spark partition: its brokers one after another, each from its first row.

    Runs on the broker partition: rows arrive sorted by (broker, row), so a broker's rows are
    contiguous and in file order, and only one :class:`BrokerReplay` is alive at a time (memory is
    bounded by one broker's live entries). A broker is replayed up to its first bad row (a failed row
    check, a seq that does not go up, or a structure error raised by the replay); that row becomes its
    one ``error`` output, and the driver raises for the smallest such row over all brokers.
    """

    def __init__(self, profile: str, config: CacheConfig, invariants: set[str], keep: int) -> None:
        self.profile, self.config, self.invariants, self.keep = profile, config, invariants, keep
        self.out: dict[str, list[Any]] = {name: [] for name in OUTPUT.names}
        self.replay: BrokerReplay | None = None
        self.broker: str | None = None
        self.first_row = 0
        self.events = 0
        self.stopped = False
        self.started = False
        self.last: tuple[int, int] | None = None
        """The current broker's last (seq, time), for the order checks across batches."""
        self.timings = {"convert": 0, "replay": 0}

    def _emit(
        self,
        what: str,
        broker: str | None,
        *,
        invariant: str | None = None,
        seq: int | None = None,
        row: int | None = None,
        message: str | None = None,
        n: int | None = None,
    ) -> None:
        for name, value in zip(OUTPUT.names, (what, broker, invariant, seq, row, message, n), strict=True):
            self.out[name].append(value)

    def take(self) -> pa.RecordBatch | None:
        """The rows emitted since the last take, as one batch (None if there are none)."""
        if not self.out["what"]:
            return None
        batch = pa.RecordBatch.from_pydict(self.out, schema=OUTPUT)
        self.out = {name: [] for name in OUTPUT.names}
        return batch

    def _start(self, broker: str | None, first_row: int) -> None:
        self._finish()
        self.broker, self.first_row, self.events, self.stopped = broker, first_row, 0, False
        self.last = None
        self.started = True
        self.replay = None
        if broker is not None:
            self.replay = BrokerReplay(broker, self.profile, self.config, self.invariants, keep=self.keep)

    def _finish(self) -> None:
        """Emit the current broker's findings, counts and summary (nothing after an error: the check fails)."""
        replay = self.replay
        if not self.started or self.stopped or replay is None:
            return
        for f in replay.findings:
            self._emit("finding", f.broker, invariant=f.invariant, seq=f.seq, row=f.row, message=f.message)
        for invariant, count in replay.counts.items():
            self._emit("count", self.broker, invariant=invariant, n=count)
        self._emit("broker", self.broker, row=self.first_row, message=replay.finish(), n=self.events)

    def _stop(self, kind: str, row: int, message: str, seq: int | None = None) -> None:
        self._emit("error", self.broker, invariant=kind, seq=seq, row=row, message=message)
        self.stopped = True

    def feed(self, batch: pa.RecordBatch) -> None:
        """Replay one Arrow batch (columns of the trace and ``row``), checking its rows on the way.

        Row checks: :func:`suspect_rows` over the batch, :func:`row_problem` on each suspect. The order
        checks, vectorized: a row whose seq is not above, or whose time is below, the previous row of
        its broker (the row before it in the batch, or the broker's last row of the previous batch)
        has the problem :func:`order_problem` names, unless a row check fails on it first.
        """
        runs = pc.run_end_encode(batch.column("broker"))
        rows = batch.column("row")
        suspects = suspect_rows(batch)
        seqs = batch.column("seq").fill_null(0).to_numpy()
        times = batch.column("time").fill_null(0).to_numpy()
        # down[i]: row i's seq does not go up, or its time goes down, from row i - 1 (a broker's first
        # row in the batch is compared with the broker's last row below instead).
        down = np.flatnonzero((seqs[1:] <= seqs[:-1]) | (times[1:] < times[:-1])) + 1
        start = 0
        for broker, end in zip(runs.values.to_pylist(), runs.run_ends.to_pylist(), strict=True):
            if not self.started or broker != self.broker:
                self._start(broker, rows[start].as_py())
            if not self.stopped:
                first_problem = next((i for i in suspects if start <= i < end and self._problem(batch, i)), end)
                previous = self.last
                first_down = end
                if order_problem(int(seqs[start]), int(times[start]), previous) is not None:
                    first_down = start
                else:
                    after = int(np.searchsorted(down, start, side="right"))
                    if after < len(down) and down[after] < end:
                        first_down = int(down[after])
                first_bad = min(first_problem, first_down)
                if first_bad > start:
                    self._replay(batch.slice(start, first_bad - start))
                if first_bad < end and not self.stopped:
                    values = row_values(batch, first_bad)
                    code = row_problem(values)
                    if code is None:
                        if first_bad > start:
                            previous = (int(seqs[first_bad - 1]), int(times[first_bad - 1]))
                        assert previous is not None, "an order problem needs a previous row"
                        values["prev"], values["prev_time"] = previous
                        code = order_problem(values["seq"], values["time"], previous)
                        assert code is not None
                    self._stop("input", values["row"], describe_problem(code, values), values["seq"])
                elif not self.stopped:
                    self.last = (int(seqs[end - 1]), int(times[end - 1]))
            start = end

    @staticmethod
    def _problem(batch: pa.RecordBatch, index: int) -> bool:
        return row_problem(row_values(batch, index)) is not None

    def _replay(self, rows: pa.RecordBatch) -> None:
        assert self.replay is not None, "a null broker is always a bad row"
        clock = time.perf_counter_ns()
        columns = python_columns(rows)
        numbers = rows.column("row").to_numpy().tolist()
        converted = time.perf_counter_ns()
        self.timings["convert"] += converted - clock
        try:
            self.replay.feed(columns, numbers)
        except TraceStructureError as error:
            self._stop("structure", error.row, str(error), error.seq)
        except Exception as error:  # noqa: BLE001 - reported as a row, never as a worker traceback
            self._stop("internal", numbers[0], f"{type(error).__name__}: {error}")
        self.events += len(numbers)
        self.timings["replay"] += time.perf_counter_ns() - converted

    def close(self) -> None:
        """End of the partition: the last broker's summary and this partition's timings."""
        self._finish()
        self.started = False
        for what, nanos in self.timings.items():
            self._emit("time", None, invariant=what, n=nanos)


def replay_function(profile: str, config: CacheConfig, invariants: set[str], keep: int) -> Any:
    """The ``mapInArrow`` function: a :class:`PartitionReplay` over the partition's batches."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        started = time.perf_counter_ns()
        partition = PartitionReplay(profile, config, invariants, keep)
        # Paused across the yields too: PySpark's worker closes this iterator in a ``finally``, which
        # turns the collector back on even when a task stops early.
        with cycle_collection_paused():
            for batch in batches:
                partition.feed(batch)
                out = partition.take()
                if out is not None:
                    yield out
        partition.timings["partition"] = time.perf_counter_ns() - started
        partition.close()
        out = partition.take()
        if out is not None:
            yield out

    return run


# --- the checker -------------------------------------------------------------------------------------


class _OutOfTimeError(Exception):
    """The budget ran out and the job was cancelled."""


class _Budget:
    """Cancels this check's Spark jobs (by job tag) once ``seconds`` have passed since ``started``.

    A timer thread keeps cancelling every half second until the check ends, so a job that starts just
    after the deadline is cancelled too. Only jobs with this check's tag are touched, never other jobs
    of a shared session.
    """

    def __init__(self, spark: SparkSession, seconds: float | None, started: float) -> None:
        self.context = spark.sparkContext
        self.seconds, self.started = seconds, started
        self.tag = f"ledgerspec-check-{uuid.uuid4().hex}"
        self.expired = threading.Event()
        self.done = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self.context.addJobTag(self.tag)
        if self.seconds is not None:
            self.thread = threading.Thread(target=self._watch, name="ledgerspec-budget", daemon=True)
            self.thread.start()
        return self

    def _watch(self) -> None:
        assert self.seconds is not None
        if self.done.wait(max(0.0, self.started + self.seconds - time.perf_counter())):
            return
        self.expired.set()
        while True:
            with contextlib.suppress(Exception):
                self.context.cancelJobsWithTag(self.tag)
            if self.done.wait(0.5):
                return

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()
        with contextlib.suppress(Exception):
            self.context.removeJobTag(self.tag)

    def check(self) -> None:
        """Raise :class:`_OutOfTimeError` if the deadline has passed (call before and after each job)."""
        if self.expired.is_set() or (self.seconds is not None and time.perf_counter() - self.started > self.seconds):
            self.expired.set()
            raise _OutOfTimeError

    def run(self, action: Any, trace: TraceFile) -> Any:
        """Run a Spark action: a cancellation by the budget is :class:`_OutOfTimeError`, a failure a trace error."""
        self.check()
        try:
            value = action()
        except TraceError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure of the job: a cancellation or a trace error
            if self.expired.is_set():
                raise _OutOfTimeError from None
            raise spark_failure(error, trace) from None
        self.check()
        return value


@dataclass
class SparkRun:
    """What one Spark check did, for the benchmark: the result and where the time went."""

    result: CheckResult
    seconds: dict[str, float] = field(default_factory=dict)
    """Driver phases (wall clock) and worker time summed over partitions (``worker_*``)."""
    partitions: int = 0


def check_spark(
    path: str | Path, *, master: str | None = None, budget: float | None = None, spark: SparkSession | None = None
) -> CheckResult:
    """Check one trace with Spark; ``budget`` (seconds) cancels the jobs and returns UNKNOWN, never OK.

    ``spark`` is an existing session (``master`` is then ignored); otherwise :func:`spark_session`
    gets or creates one, which stays open for later checks.
    """
    return run_spark(path, master=master, budget=budget, spark=spark).result


def run_spark(
    path: str | Path, *, master: str | None = None, budget: float | None = None, spark: SparkSession | None = None
) -> SparkRun:
    """:func:`check_spark`, with the timings of its phases."""
    started = time.perf_counter()
    trace = open_trace(path)
    if trace.format == "parquet" and trace.num_rows() == 0:
        raise TraceInputError(f"{trace.path}: the trace has no events")
    profile = trace.header.profile
    result = CheckResult(path=str(trace.path), engine="spark", profile=profile)
    run = SparkRun(result=result)
    session = spark if spark is not None else spark_session(master)
    run.seconds["session"] = time.perf_counter() - started
    with _Budget(session, budget, started) as clock:
        try:
            events, rows_in_file = clock.run(lambda: trace_frame(session, trace), trace)
            counts = broker_counts(trace)
            staged, run.partitions = replay_frame(events, session, rows_in_file, counts)
            replay = replay_function(profile, trace.config, set(trace_invariants(profile)), KEEP_PER_INVARIANT)
            mark = time.perf_counter()
            rows = clock.run(lambda: staged.mapInArrow(replay, OUTPUT_DDL).collect(), trace)
            run.seconds["replay"] = time.perf_counter() - mark
        except _OutOfTimeError:
            result.unknown.append(_out_of_time(budget, started, "before the replay finished"))
            result.seconds = time.perf_counter() - started
            return run
        chosen = _aggregate(rows, trace, result, run)
        try:
            mark = time.perf_counter()
            result.violations = context_of(events, chosen, clock, trace)
            run.seconds["context"] = time.perf_counter() - mark
        except _OutOfTimeError:
            result.violations = [TraceViolation.of(f, {}, {}) for f in chosen]
            result.unknown.append(_out_of_time(budget, started, "before the context of the violations was read"))
    result.seconds = time.perf_counter() - started
    return run


def _out_of_time(budget: float | None, started: float, what: str) -> str:
    return (
        f"stopped after {time.perf_counter() - started:.1f} s, {what}: the budget of {budget:g} s ran out "
        "(the Spark jobs were cancelled)"
    )


def replay_frame(
    events: DataFrame, spark: SparkSession, rows: int, counts: dict[str, int] | None = None
) -> tuple[DataFrame, int]:
    """The rows, partitioned by broker and sorted by (broker, row): one exchange and one sort.

    With the events per broker (``counts``), the brokers are placed in balanced partitions
    (traces/_partitions.py); without, by the hash of their name. The row checks and the seq order are
    checked in the replay task (:meth:`PartitionReplay.feed`).
    """
    from pyspark.sql import functions as F  # noqa: N812, PLC0415 - pyspark only where Spark runs

    most = int(spark.conf.get("spark.sql.shuffle.partitions") or "8")
    partitions = max(1, min(most, -(-rows // ROWS_PER_PARTITION)))
    keys = placement(spark, counts, partitions) if counts else None
    if keys is None:
        return events.repartition(partitions, "broker").sortWithinPartitions("broker", "row"), partitions
    pairs = [(F.lit(broker), F.lit(key).cast("bigint")) for broker, key in keys.items()]
    mapping = F.create_map(*[part for pair in pairs for part in pair])
    partitions = len(set(keys.values()))
    staged = (
        events.withColumn("_partition", mapping[F.col("broker")])
        .repartition(partitions, "_partition")
        .sortWithinPartitions("broker", "row")
        .drop("_partition")
    )
    return staged, partitions


def _aggregate(rows: list[Any], trace: TraceFile, result: CheckResult, run: SparkRun) -> list[Finding]:
    """The replay's output into the result: first error, counts, brokers, unknown; the findings to report."""
    errors = [r for r in rows if r.what == "error"]
    if errors:
        first = min(errors, key=lambda r: (r.row, r.message))
        if first.invariant == "internal":
            raise TraceError(
                f"{trace.path}: the replay of broker {first.broker!r} failed at row {first.row}: {first.message}"
            )
        raise TraceInputError(f"{trace.path}: {first.message}")
    summaries = sorted((r for r in rows if r.what == "broker"), key=lambda r: r.row)
    result.events = sum(r.n for r in summaries)
    if result.events == 0:
        raise TraceInputError(f"{trace.path}: the trace has no events")
    result.brokers = len(summaries)
    reason = next((r.message for r in summaries if r.message), None)
    if reason:
        result.unknown.append(reason)
    for r in rows:
        if r.what == "count":
            result.counts[r.invariant] = result.counts.get(r.invariant, 0) + r.n
        elif r.what == "time":
            run.seconds[f"worker_{r.invariant}"] = run.seconds.get(f"worker_{r.invariant}", 0.0) + r.n / 1e9
    findings = [Finding(r.invariant, r.broker, r.seq, r.row, r.message) for r in rows if r.what == "finding"]
    return select(findings, result.counts)


def context_of(events: DataFrame, findings: list[Finding], clock: _Budget, trace: TraceFile) -> list[TraceViolation]:
    """Each finding with its event and the CONTEXT events of its broker before and after it.

    Runs on the broker partition, over the brokers with violations only: a window of +-CONTEXT rows
    in file order (the broker's sequence) collects the violating seqs near each row, so each kept row
    knows which violations it surrounds. Sound because context is defined within one broker.
    """
    if not findings:
        return []
    from pyspark.sql import functions as F  # noqa: N812, PLC0415 - pyspark only where Spark runs

    targets: dict[str, set[int]] = {}
    for f in findings:
        targets.setdefault(f.broker, set()).add(f.seq)
    target = " ".join(
        f"WHEN broker = {_literal(broker)} AND seq IN ({', '.join(map(str, sorted(seqs)))}) THEN seq"
        for broker, seqs in sorted(targets.items())
    )
    near = (
        "collect_list(target) OVER (PARTITION BY broker ORDER BY row "
        f"ROWS BETWEEN {CONTEXT} PRECEDING AND {CONTEXT} FOLLOWING)"
    )
    rows = clock.run(
        lambda: (
            events.where(F.col("broker").isin(sorted(targets)))
            .withColumn("target", F.expr(f"CASE {target} END"))
            .withColumn("near", F.expr(near))
            .where(F.size("near") > 0)
            .select(*COLUMNS, "row", F.explode("near").alias("target"))
            .collect()
        ),
        trace,
    )
    around: dict[tuple[str, int], list[Any]] = {}
    for r in rows:
        around.setdefault((r.broker, r.target), []).append(r)
    events_of: dict[tuple[str, int], dict[str, Any]] = {}
    context: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for key, near_rows in around.items():
        near_rows.sort(key=lambda r: r.row)
        at = next(i for i, r in enumerate(near_rows) if r.seq == key[1])
        as_events = [{c: r[c] for c in COLUMNS if r[c] is not None} for r in near_rows]
        events_of[key] = as_events[at]
        context[key] = as_events[:at] + as_events[at + 1 :]
    return [TraceViolation.of(f, events_of, context) for f in findings]
