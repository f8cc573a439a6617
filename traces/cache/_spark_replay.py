"""What the Spark checker runs in its Python workers: one replay per broker over Arrow batches.

``mapInArrow`` hands each partition's rows, sorted by (broker, row), to :func:`replay_function`; a
:class:`PartitionReplay` replays the brokers one after another with the spec's replay
(``traces/cache/_replay.py``), checks the rows on the way, and emits rows of :data:`OUTPUT` for the driver
(traces/cache/_spark.py) to aggregate.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.traces.cache._replay import BrokerReplay, TraceStructureError, chunk_of
from ledgerspec.traces.cache._rows import describe_problem, order_problem, row_problem, row_values, suspect_rows

if TYPE_CHECKING:
    from ledgerspec.spec.cache import CacheConfig

OUTPUT = pa.schema(
    [
        pa.field("what", pa.string()),
        pa.field("broker", pa.string()),
        pa.field("invariant", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("row", pa.int64()),
        pa.field("message", pa.string()),
        pa.field("n", pa.int64()),
        pa.field("first_seq", pa.int64()),
        pa.field("first_row", pa.int64()),
    ]
)
"""What the replay emits, one row per fact. ``what`` is ``finding`` (invariant, broker, seq, row,
message; first_seq and first_row: its first divergence, if earlier), ``count`` (invariant, broker, n
violations), ``broker`` (broker, first row, n events, message: the reason the broker's verdict is
incomplete, or null), ``error`` (broker, row, message; invariant
``input``, ``structure`` or ``internal``) or ``time`` (invariant: what was timed, n: nanoseconds)."""
OUTPUT_DDL = ", ".join(f"{f.name} {'string' if f.type == pa.string() else 'long'}" for f in OUTPUT)


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
        first: tuple[int, int] | None = None,
    ) -> None:
        firsts = (None, None) if first is None else first
        values = (what, broker, invariant, seq, row, message, n, *firsts)
        for name, value in zip(OUTPUT.names, values, strict=True):
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
            self._emit(
                "finding", f.broker, invariant=f.invariant, seq=f.seq, row=f.row, message=f.message, first=f.first
            )
        for invariant, count in replay.counts.items():
            self._emit("count", self.broker, invariant=invariant, n=count)
        self._emit("broker", self.broker, row=self.first_row, message=replay.finish(), n=self.events)

    def _stop(self, kind: str, row: int, message: str, seq: int | None = None) -> None:
        self._emit("error", self.broker, invariant=kind, seq=seq, row=row, message=message)
        self.stopped = True

    def feed(self, batch: pa.RecordBatch) -> None:  # noqa: C901 - the row and order checks of a batch, vectorized, before its replay
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
        chunk = chunk_of(rows)
        converted = time.perf_counter_ns()
        self.timings["convert"] += converted - clock
        try:
            self.replay.feed(chunk)
        except TraceStructureError as error:
            self._stop("structure", error.row, str(error), error.seq)
        except Exception as error:  # noqa: BLE001 - reported as a row, never as a worker traceback
            self._stop("internal", int(chunk.row[0]), f"{type(error).__name__}: {error}")
        self.events += len(chunk)
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
