"""The PySpark trace checker: DataFrame operations around one stateful replay per broker.

``check_spark(path)`` gives the same :class:`CheckResult` as ``check_local(path)`` (verdict, events,
brokers, counts, violations with their context, ``unknown``) for every valid trace, and the same
:class:`TraceInputError` for an invalid one with one problem. A check is three Spark jobs at most:

1. Driver, no job: ``open_trace`` reads and checks the header and the schema from the Parquet footer
   (the same code and messages as the local checker); a JSON-lines trace (small by design) is read and
   validated in the driver and handed to Spark as an Arrow table with explicit row numbers.
2. One pass with one shuffle: rows are partitioned by broker (brokers packed by their event counts,
   traces/cache/_partitions.py, or hashed by name without counts) and sorted by (broker, row), and
   nothing else happens in the JVM. ``mapInArrow`` then runs one replay per broker (traces/cache/_spark_replay.py)
   over the Arrow batches of its partition (the replay is stateful and cannot be a column
   expression), and checks the rows on the way, vectorized per batch: the row checks of
   traces/cache/_rows.py (``suspect_rows``, then ``row_problem`` on the few suspects) and the seq and
   time order (the rows arrive in file order per broker). Both were SQL before (a CASE expression and a
   ``lag`` window) and cost the JVM more than they cost numpy. It emits findings, per-broker counts
   and summaries, and at most one error per broker: its first bad row.
3. Only if there are violations: the context of each reported violation (and the event of its first
   divergence), a ``collect_list`` window of +-CONTEXT rows over the brokers with violations (:func:`context_of`).

Partitions. Every invariant checked on traces is checked on the events of one broker in ``seq`` order
(``_check.PARTITIONS``): a broker has one removal queue, so size, watermark, queue order and TTL
checks are global to the broker and never split per ledger; entries, copies and their shared handlers
never leave their broker; the cursor count is per ledger, and a ledger belongs to one broker, so the
broker partition is also sound for it. Partitioning by broker (one key per broker, packed or hashed)
puts all of a broker's rows in one Spark partition; sorting by (broker, row) gives them in file
order, which is seq order once the seq check has passed. Nothing crosses brokers, so partitions are
independent: the result is the same for any number of partitions.

The session, the reading of the trace and the wording of failed jobs are in ``traces/core/_spark.py``,
with what cluster use needs.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import pyarrow as pa
from ledgerspec.traces._errors import TraceError, TraceInputError
from ledgerspec.traces.cache._check import CheckResult, locate, select, trace_invariants, wanted_seqs
from ledgerspec.traces.cache._format import COLUMNS, SCHEMA
from ledgerspec.traces.cache._io import TraceFile, find_unreadable, open_trace
from ledgerspec.traces.cache._partitions import broker_counts, placement
from ledgerspec.traces.cache._replay import Finding
from ledgerspec.traces.cache._spark_replay import OUTPUT_DDL, replay_function
from ledgerspec.traces.core._result import CONTEXT, KEEP_PER_INVARIANT, TraceViolation
from ledgerspec.traces.core._spark import jvm_log, parquet_frame, spark_session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROWS_PER_PARTITION = 250_000
"""Fewer replay partitions for small traces (each costs a task); at most ``spark.sql.shuffle.partitions``."""


def _literal(text: str) -> str:
    """A Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"




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
            result.violations = locate(trace, [TraceViolation.of(f, {}, {}) for f in chosen])
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
    (traces/cache/_partitions.py); without, by the hash of their name. The row checks and the seq order are
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
    result.unknown += sorted({r.message for r in summaries if r.message})  # every broker's, as the local checker
    for r in rows:
        if r.what == "count":
            result.counts[r.invariant] = result.counts.get(r.invariant, 0) + r.n
        elif r.what == "time":
            run.seconds[f"worker_{r.invariant}"] = run.seconds.get(f"worker_{r.invariant}", 0.0) + r.n / 1e9
    findings = [
        Finding(r.invariant, r.broker, r.seq, r.row, r.message, _first(r.first_seq, r.first_row))
        for r in rows
        if r.what == "finding"
    ]
    return select(findings, result.counts)


def _first(seq: int | None, row: int | None) -> tuple[int, int] | None:
    """A finding's first divergence from its output row (null: the finding's own event)."""
    return None if seq is None or row is None else (seq, row)


def context_of(events: DataFrame, findings: list[Finding], clock: _Budget, trace: TraceFile) -> list[TraceViolation]:
    """Each finding with its event and the CONTEXT events of its broker before and after it.

    Runs on the broker partition, over the brokers with violations only: a window of +-CONTEXT rows
    in file order (the broker's sequence) collects the violating seqs near each row, so each kept row
    knows which violations it surrounds. Sound because context is defined within one broker.
    """
    if not findings:
        return []
    from pyspark.sql import functions as F  # noqa: N812, PLC0415 - pyspark only where Spark runs

    targets = wanted_seqs(findings)
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
    return locate(trace, [TraceViolation.of(f, events_of, context) for f in findings])


def spark_failure(error: Exception, trace: TraceFile) -> TraceError:
    """A failed Spark job as a trace error: one line, no Java or worker traceback.

    A failure on a Parquet trace is located by reading the file with pyarrow: the local checker's
    error (row group, rows, reason) if pyarrow fails too, whatever Spark said (a corrupt dictionary
    index is an ``ArrayIndexOutOfBoundsException`` to Spark); else, for a read failure, Spark's first line.
    """
    text = str(error)
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    if trace.format == "parquet":
        located = find_unreadable(trace)
        if located is not None:
            return located
        if any(mark in text for mark in ("FAILED_READ_FILE", "ParquetDecodingException", "CANNOT_READ_FILE_FOOTER")):
            return TraceInputError(f"{trace.path}: the Parquet data cannot be read (truncated or corrupt?): {first}")
    return TraceError(f"{trace.path}: the Spark job failed: {first} (the JVM's log: {jvm_log()})")


def trace_frame(spark: SparkSession, trace: TraceFile) -> tuple[DataFrame, int]:
    """The trace's rows with their row number in the trace (``row``), columns in schema order; the row count.

    Parquet: ``open_trace`` has checked each footer's schema with ``_io.check_schema`` (the local
    checker's code and messages), so Spark reads with that schema, all columns nullable: no schema
    inference job, and no null check optimized away. The row number is ``_metadata.row_index`` (the
    row's index in its file, whatever the splits), plus, in a dataset, the rows of the part files
    before its file. JSON lines: read and validated in the driver (small traces by design), numbered
    there.
    """
    if trace.format == "parquet":
        return parquet_frame(spark, trace.files, trace.file_rows(), SCHEMA), trace.num_rows()
    batches = [batch for _, batch in trace.batches()]
    table = pa.Table.from_batches(batches)
    table = table.append_column("row", pa.array(range(table.num_rows), pa.int64()))
    return spark.createDataFrame(table), table.num_rows
