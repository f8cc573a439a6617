"""Balanced broker partitions for the Spark checker: each broker whole in one partition, big ones first.

Hashing broker names into n partitions leaves some empty and stacks several brokers in others (16
brokers went into 11 of 32), so on a few cores the last, stacked tasks ran alone. Knowing the events per
broker, the brokers are packed into bins, largest first, each into the lightest bin (LPT), and the bins
numbered heaviest first, since Spark starts tasks in partition order. Spark places a row by
``pmod(hash(key), n)``, so each bin gets a ``bigint`` key that hashes to its number, found with one tiny
job. Soundness does not depend on any of this: a broker has one key, so its rows stay in one partition;
without counts (JSON lines, a footer pyarrow cannot read) the checker hashes the broker name as before.
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from ledgerspec.traces.cache._io import TraceFile

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MAX_BROKERS = 10_000
"""Above this many brokers the placement map would bloat the plan; hash partitioning is balanced enough."""


def group_brokers(trace: TraceFile) -> list[str | None] | None:
    """The one broker of each row group of a Parquet trace, by its footer statistics (min = max, no nulls).

    None for a group that mixes brokers (or whose statistics do not say); None for the whole trace if it
    is not Parquet or its footer cannot be read. A writer may truncate long statistics, so a reader of a
    group must confirm it holds only that broker (``_local`` does) before relying on it to skip groups.
    """
    if trace.format != "parquet":
        return None
    try:
        metadata = pq.read_metadata(trace.path)
        index = metadata.schema.to_arrow_schema().get_field_index("broker")
        brokers: list[str | None] = []
        for group in range(metadata.num_row_groups):
            stats = metadata.row_group(group).column(index).statistics
            one = stats is not None and stats.has_min_max and stats.min == stats.max and stats.null_count == 0
            brokers.append(str(stats.min) if one else None)
    except (OSError, pa.ArrowException):
        return None  # the read reports a broken file the usual way
    return brokers


def broker_counts(trace: TraceFile, brokers: list[str | None] | None = None) -> dict[str, int] | None:
    """Events per broker of a Parquet trace, or None if they cannot be had cheaply.

    From the footer for row groups of one broker (``brokers``, else read by :func:`group_brokers`),
    reading only the broker column of the row groups that mix brokers.
    """
    brokers = group_brokers(trace) if brokers is None else brokers
    if brokers is None:
        return None
    try:
        file = pq.ParquetFile(trace.path, read_dictionary=["broker"])
        counts: Counter[str] = Counter()
        for group, broker in enumerate(brokers):
            if broker is not None:
                counts[broker] += file.metadata.row_group(group).num_rows
                continue
            column = file.read_row_group(group, columns=["broker"]).column(0).combine_chunks()
            for item in pc.value_counts(column).to_pylist():
                if item["values"] is not None:
                    counts[str(item["values"])] += item["counts"]
    except (OSError, pa.ArrowException):
        return None  # the Spark read reports a broken file the usual way
    return dict(counts) if 0 < len(counts) <= MAX_BROKERS else None


def pack(counts: dict[str, int], partitions: int) -> list[list[str]]:
    """Brokers in ``partitions`` bins, largest first into the lightest bin; bins heaviest first."""
    heap = [(0, index) for index in range(partitions)]
    bins: list[list[str]] = [[] for _ in range(partitions)]
    loads = [0] * partitions
    for broker, events in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        load, index = heapq.heappop(heap)
        bins[index].append(broker)
        loads[index] = load + events
        heapq.heappush(heap, (loads[index], index))
    order = sorted(range(partitions), key=lambda index: (-loads[index], index))
    return [bins[index] for index in order if bins[index]]


def partition_keys(spark: SparkSession, partitions: int) -> list[int] | None:
    """For each partition number p, a bigint whose Spark hash puts it in partition p (None if one is missing)."""
    rows = (
        spark.range(0, 64 * partitions)
        .selectExpr("id", f"pmod(hash(id), {partitions}) AS p")
        .groupBy("p")
        .min("id")
        .collect()
    )
    keys = {row[0]: row[1] for row in rows}
    return [keys[p] for p in range(partitions)] if len(keys) == partitions else None


def placement(spark: SparkSession, counts: dict[str, int], partitions: int) -> dict[str, int] | None:
    """A partitioning key per broker that balances the brokers over ``partitions`` partitions."""
    bins = pack(counts, partitions)
    keys = partition_keys(spark, len(bins))
    if keys is None:
        return None
    return {broker: keys[number] for number, brokers in enumerate(bins) for broker in brokers}
