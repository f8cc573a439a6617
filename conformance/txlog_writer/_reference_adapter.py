"""The in-process adapter of the reference writer: the spec's operations in, the spec's events out."""

from __future__ import annotations

from typing import Any

from ledgerspec.reference.txlog_writer import BatchedPosition, BufferedWriter, ManagedLedger, ManualTimer
from ledgerspec.spec.txlog_writer import Add, Close, Complete, Fail, Metrics, Tick, WriterConfig, WriterOp

EVENT_NAMES = ("max_records", "max_size", "max_delay", "large_data", "records", "bytes", "delay")


class _Recorded:
    """A record's callback, which writes its completion into the step's events."""

    def __init__(self, record: int, adapter: TxlogAdapter) -> None:
        self.record, self.adapter = record, adapter

    def complete(self, position: BatchedPosition) -> None:
        self.adapter.events.append(["done", self.record, position.entry, position.batch_size, position.batch_index])

    def failed(self, reason: str) -> None:  # noqa: ARG002 - the reason is not part of the contract
        self.adapter.events.append(["failed", self.record])


class TxlogAdapter:
    """One writer, its ledger and its timer; ``writer_class`` lets a mutant stand in."""

    writer_class: type[BufferedWriter] = BufferedWriter

    def __init__(self, profile: str) -> None:
        self.profile = profile

    def start(self, config: WriterConfig) -> None:
        self.events: list[list[Any]] = []
        self.ledger, self.timer, self.records = ManagedLedger(), ManualTimer(), 0
        self.writer = self.writer_class(self.profile, config, self.ledger, self.timer, self._flushed)

    def _flushed(self, entry: int, records: list[int], batched: bool, trigger: str | None) -> None:
        self.events.append(["write", entry, records, batched, trigger])

    def apply(self, op: WriterOp) -> Any:
        self.events = []
        if isinstance(op, Metrics):
            return {name: self.writer.metrics.get(name, 0) for name in EVENT_NAMES}
        if isinstance(op, Add):
            self.records += 1
            self.writer.add(self.records, op.size, _Recorded(self.records, self))
        elif isinstance(op, Tick):
            self.timer.advance(op.by)
        elif isinstance(op, Complete | Fail):
            self.ledger.finish_oldest(ok=isinstance(op, Complete))
        elif isinstance(op, Close):
            self.writer.close()
        return self.events

    def stop(self) -> None:
        """Nothing to release."""
