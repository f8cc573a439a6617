"""The Spark engine of the system traces: the histories replayed by Spark's Python workers.

The driver has read and row-checked the rows (``_io``; system histories are small, and its input
errors are the local engine's). The executors read the rows again themselves from a Parquet trace (a
file or a dataset directory, as the cache's Spark path does: ``traces/core/_spark.parquet_frame``); a
JSON-lines trace's rows go from the driver. Spark repartitions them by broker, sorts each partition by
broker and row, and ``mapInArrow`` runs the same replay (``_replay.replay_history``) over each
broker's rows, handing back findings and input errors as rows. The driver makes the report as the
local engine does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from ledgerspec.traces.lockstep._io import COLUMNS, SYSTEM_SCHEMA
from ledgerspec.traces.lockstep._replay import Plan, SysFinding, by_broker, replay_history

if TYPE_CHECKING:
    from ledgerspec.traces.lockstep._io import SystemTrace
    from pyspark.sql import SparkSession

FINDINGS = "broker string, seq long, row long, invariant string, message string, unjudged boolean"


def _replay_partition(plan: Plan) -> Any:
    def replay(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = [{k: v for k, v in event.items() if v is not None} for batch in batches for event in batch.to_pylist()]
        found = [f for history in by_broker(rows).values() for f in replay_history(plan, history)]
        yield pa.RecordBatch.from_pylist(
            [f.__dict__ for f in found],
            schema=pa.schema(
                [
                    ("broker", pa.string()),
                    ("seq", pa.int64()),
                    ("row", pa.int64()),
                    ("invariant", pa.string()),
                    ("message", pa.string()),
                    ("unjudged", pa.bool_()),
                ]
            ),
        )

    return replay


def replay_spark(trace: SystemTrace, plan: Plan, spark: SparkSession | None) -> list[SysFinding]:
    """Every broker's replay, run by Spark; the findings, in no particular order."""
    from ledgerspec.traces.core._spark import parquet_frame, spark_session  # noqa: PLC0415 - pyspark only here

    if spark is None:
        spark = spark_session()
    if trace.files:
        frame = parquet_frame(spark, trace.files, trace.file_rows, SYSTEM_SCHEMA)
    else:
        table = pa.Table.from_pylist(
            [{c: r.get(c) for c in (*COLUMNS, "row")} for r in trace.rows],
            schema=SYSTEM_SCHEMA.append(pa.field("row", pa.int64())),
        )
        frame = spark.createDataFrame(table)
    frame = frame.repartition("broker").sortWithinPartitions("broker", "row")
    found = frame.mapInArrow(_replay_partition(plan), FINDINGS).collect()
    return [SysFinding(r.broker, r.seq, r.row, r.invariant, r.message, r.unjudged) for r in found]


__all__ = ["replay_spark"]
