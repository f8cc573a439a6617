"""A reference ``TxnLogBufferedWriter`` over a managed ledger and a timer that the driver controls.

``pulsar-master`` follows apache/pulsar ``TxnLogBufferedWriter.java`` at d2beb06e21: records are
buffered on the write thread; a record of ``max_size`` bytes or more flushes the batch
(``large_data``) and is written alone, unbatched; after each append the count, then the size
threshold is checked; a one-shot timer sweeps every ``max_delay`` and sets itself again after every
firing. ``pip160`` follows the PIP text (apache/pulsar issue #15370): the first record of a batch sets
its deadline, and the size threshold only triggers a flush. Entries start with the 4-byte prefix
``0E 01 00 01`` (magic, version) when batched.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from typing import Protocol

from ledgerspec.reference.txlog_writer._entry import encode, record_payload


class Settings(Protocol):
    """What the writer reads of its configuration (the spec's ``WriterConfig`` has these fields)."""

    @property
    def batch_enabled(self) -> bool: ...
    @property
    def max_records(self) -> int: ...
    @property
    def max_size(self) -> int: ...
    @property
    def max_delay(self) -> int: ...


@dataclass(frozen=True)
class BatchedPosition:
    """``TxnBatchedPositionImpl``: a position with the batch's size and the record's index."""

    entry: int
    batch_size: int | None = None
    batch_index: int | None = None


class Callback(Protocol):
    def complete(self, position: BatchedPosition) -> None: ...
    def failed(self, reason: str) -> None: ...


class ManualTimer:
    """A Netty ``Timer`` whose clock the driver moves."""

    def __init__(self) -> None:
        self.now = 0
        self._tasks: list[tuple[int, int, Callable[[], None]]] = []
        self._ids = count()
        self.cancelled: set[int] = set()

    def schedule(self, delay: int, task: Callable[[], None]) -> int:
        handle = next(self._ids)
        heapq.heappush(self._tasks, (self.now + delay, handle, task))
        return handle

    def cancel(self, handle: int) -> None:
        self.cancelled.add(handle)

    def advance(self, by: int) -> None:
        end = self.now + by
        while self._tasks and self._tasks[0][0] <= end:
            when, handle, task = heapq.heappop(self._tasks)
            self.now = when
            if handle not in self.cancelled:
                task()
        self.now = end


@dataclass
class Entry:
    """What the managed ledger was asked to add, and who is told when it completes."""

    id: int
    data: bytes
    on_done: Callable[[bool], None]


@dataclass
class ManagedLedger:
    """``asyncAddEntry`` whose completions the driver decides, oldest first."""

    pending: deque[Entry] = field(default_factory=deque)
    written: list[Entry] = field(default_factory=list)

    def add(self, data: bytes, on_done: Callable[[bool], None]) -> int:
        entry = Entry(len(self.written), data, on_done)
        self.written.append(entry)
        self.pending.append(entry)
        return entry.id

    def finish_oldest(self, *, ok: bool) -> None:
        if self.pending:
            self.pending.popleft().on_done(ok)


class BufferedWriter:
    """The writer; ``on_flush(entry, records, batched, trigger)`` reports each entry handed to the ledger."""

    def __init__(
        self,
        profile: str,
        config: Settings,
        ledger: ManagedLedger,
        timer: ManualTimer,
        on_flush: Callable[[int, list[int], bool, str | None], None],
    ) -> None:
        self.profile, self.config, self.ledger, self.timer, self.on_flush = profile, config, ledger, timer, on_flush
        self.batching = config.batch_enabled and config.max_records > 1
        self.state = "OPEN"
        self.records: list[tuple[int, int, int, Callback]] = []
        """The batch: (record, size, added at, callback)."""
        self.bytes = 0
        self.metrics: dict[str, int] = {}
        self.timeout: int | None = None
        if self.batching and self.sweeps:
            self._arm()

    # --- the timer ------------------------------------------------------------------------------

    def _arm(self) -> None:
        self.timeout = self.timer.schedule(self.config.max_delay, self._fired)

    def _fired(self) -> None:
        if self.records:
            self._flush("max_delay")
        if self.sweeps and self.state == "OPEN":
            self._arm()  # set again after every firing, never fixed-rate (apache/pulsar #16679)

    @property
    def sweeps(self) -> bool:
        """pulsar-master's timer sweeps every ``max_delay``; pip160's batch has a deadline of its own."""
        return self.profile == "pulsar-master"

    # --- adding -----------------------------------------------------------------------------------

    def add(self, record: int, size: int, callback: Callback) -> None:
        """``asyncAddData``."""
        if self.state != "OPEN":
            callback.failed("closed")
            return
        if not self.batching:
            self._write([(record, size, self.timer.now, callback)], batched=False, trigger=None)
            return
        if size >= self.config.max_size and self.profile == "pulsar-master":
            if self.records:
                self._flush("large_data")
            self._write([(record, size, self.timer.now, callback)], batched=False, trigger=None)
            return
        if not self.records and not self.sweeps:
            self.timeout = self.timer.schedule(self.config.max_delay, self._fired)
        self.records.append((record, size, self.timer.now, callback))
        self.bytes += size
        if len(self.records) >= self.config.max_records:
            self._flush("max_records")
        elif self.bytes >= self.config.max_size:
            self._flush("max_size")

    def _flush(self, trigger: str) -> None:
        batch, self.records, size = self.records, [], self.bytes
        self.bytes = 0
        if not self.sweeps and self.timeout is not None:
            self.timer.cancel(self.timeout)
            self.timeout = None
        for name, value in (
            (trigger, 1),
            ("records", len(batch)),
            ("bytes", size),
            ("delay", self.timer.now - batch[0][2]),
        ):
            self.metrics[name] = self.metrics.get(name, 0) + value
        self._write(batch, batched=True, trigger=trigger)

    def _write(self, batch: list[tuple[int, int, int, Callback]], *, batched: bool, trigger: str | None) -> None:
        data = encode([record_payload(record, size) for record, size, _, _ in batch], batched=batched)
        callbacks = [callback for _, _, _, callback in batch]

        def done(ok: bool) -> None:
            for index, callback in enumerate(callbacks):
                if not ok:
                    callback.failed("write failed")
                elif batched:
                    callback.complete(BatchedPosition(entry, len(callbacks), index))
                else:
                    callback.complete(BatchedPosition(entry))

        entry = self.ledger.add(data, done)
        self.on_flush(entry, [record for record, _, _, _ in batch], batched, trigger)

    def close(self) -> None:
        """Fail what is buffered, cancel the timer; written entries complete as the ledger says."""
        if self.state != "OPEN":
            return
        self.state = "CLOSED"
        batch, self.records, self.bytes = self.records, [], 0
        for _, _, _, callback in batch:
            callback.failed("Transaction log buffered write has closed")
        if self.timeout is not None:
            self.timer.cancel(self.timeout)
            self.timeout = None
