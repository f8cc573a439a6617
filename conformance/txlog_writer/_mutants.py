"""Mutants of the reference transaction-log writer (txlog-writer system): plausible bugs of a batching
writer, each named by what it breaks. The suite must kill every one.
"""

from __future__ import annotations

from ledgerspec.conformance.systems import ReferenceMutant
from ledgerspec.conformance.txlog_writer import TxlogAdapter
from ledgerspec.reference.txlog_writer import BatchedPosition, BufferedWriter
from ledgerspec.reference.txlog_writer._writer import Callback


class TimerNotRearmed(BufferedWriter):
    """The sweep is set again only after it flushed something (the older form, 01768dadd): once it
    fires on an empty batch, records wait forever. Breaks TXLOG-DELAY.
    """

    def _fired(self) -> None:
        if self.records:
            self._flush("max_delay")
            if self.state == "OPEN":
                self._arm()


class SizeCheckedBeforeAdding(BufferedWriter):
    """The byte threshold is tested before the record is counted, so a batch goes one record over."""

    def add(self, record: int, size: int, callback: Callback) -> None:
        if self.state == "OPEN" and self.batching and size < self.config.max_size and self.records:
            if self.bytes >= self.config.max_size:
                self._flush("max_size")
            self.records.append((record, size, self.timer.now, callback))
            self.bytes += size
            if len(self.records) >= self.config.max_records:
                self._flush("max_records")
            return
        super().add(record, size, callback)


class FailureReversed(BufferedWriter):
    """A failed entry fails its records last first."""

    def _write(self, batch: list[tuple[int, int, int, Callback]], *, batched: bool, trigger: str | None) -> None:
        super()._write(batch, batched=batched, trigger=trigger)
        entry = self.ledger.written[-1]
        done = entry.on_done

        def reversed_on_failure(ok: bool) -> None:
            if ok:
                done(ok)
            else:
                for _, _, _, callback in reversed(batch):
                    callback.failed("write failed")

        entry.on_done = reversed_on_failure


class IndexFromOne(BufferedWriter):
    """Batch indexes counted from 1."""

    def _write(self, batch: list[tuple[int, int, int, Callback]], *, batched: bool, trigger: str | None) -> None:
        shifted: list[tuple[int, int, int, Callback]] = (
            [(r, s, t, _Shifted(c)) for r, s, t, c in batch] if batched else batch
        )
        super()._write(shifted, batched=batched, trigger=trigger)


class _Shifted:
    def __init__(self, callback: Callback) -> None:
        self.callback = callback

    def complete(self, position: BatchedPosition) -> None:
        index = None if position.batch_index is None else position.batch_index + 1
        self.callback.complete(BatchedPosition(position.entry, position.batch_size, index))

    def failed(self, reason: str) -> None:
        self.callback.failed(reason)


class CloseDropsBuffered(BufferedWriter):
    """Close forgets the buffered records instead of failing them: their callbacks never run."""

    def close(self) -> None:
        self.records = []
        super().close()


class TriggerCountedTwice(BufferedWriter):
    """A flush counts its trigger twice."""

    def _flush(self, trigger: str) -> None:
        self.metrics[trigger] = self.metrics.get(trigger, 0) + 1
        super()._flush(trigger)


class SizeWinsOverCount(BufferedWriter):
    """The size threshold is tested first: a flush that reaches both is counted as max_size."""

    def add(self, record: int, size: int, callback: Callback) -> None:
        both = (
            self.state == "OPEN"
            and self.batching
            and size < self.config.max_size
            and len(self.records) + 1 >= self.config.max_records
            and self.bytes + size >= self.config.max_size
        )
        if not both:
            super().add(record, size, callback)
            return
        self.records.append((record, size, self.timer.now, callback))
        self.bytes += size
        self._flush("max_size")


class LargeRecordBatched(BufferedWriter):
    """pulsar-master without the large-record rule: a large record joins the batch."""

    def add(self, record: int, size: int, callback: Callback) -> None:
        profile = self.profile
        self.profile = "pip160-like"
        try:
            super().add(record, size, callback)
        finally:
            self.profile = profile


class LargeBeforeBatch(BufferedWriter):
    """The large record is written before the batch buffered ahead of it."""

    def add(self, record: int, size: int, callback: Callback) -> None:
        if self.state == "OPEN" and self.batching and size >= self.config.max_size and self.records:
            self._write([(record, size, self.timer.now, callback)], batched=False, trigger=None)
            self._flush("large_data")
            return
        super().add(record, size, callback)


class BatchOfOnePlain(BufferedWriter):
    """A batch of one record is written as a plain record (no prefix, no batch position)."""

    def _flush(self, trigger: str) -> None:
        if len(self.records) == 1:
            batch, self.records, self.bytes = self.records, [], 0
            for name, value in (
                (trigger, 1),
                ("records", 1),
                ("bytes", batch[0][1]),
                ("delay", self.timer.now - batch[0][2]),
            ):
                self.metrics[name] = self.metrics.get(name, 0) + value
            self._write(batch, batched=False, trigger=trigger)
            return
        super()._flush(trigger)


class FailureSpills(BufferedWriter):
    """A failed entry also fails the next outstanding one."""

    def _write(self, batch: list[tuple[int, int, int, Callback]], *, batched: bool, trigger: str | None) -> None:
        super()._write(batch, batched=batched, trigger=trigger)
        entry = self.ledger.written[-1]
        done = entry.on_done

        def spill(ok: bool) -> None:
            done(ok)
            if not ok and self.ledger.pending:
                self.ledger.pending.popleft().on_done(False)

        entry.on_done = spill


class DelayFromNewest(BufferedWriter):
    """The oldest-record delay metric is measured from the newest record of the batch."""

    def _flush(self, trigger: str) -> None:
        newest = self.records[-1][2]
        oldest = self.records[0][2]
        super()._flush(trigger)
        self.metrics["delay"] -= newest - oldest


class SweepInsteadOfDeadline(BufferedWriter):
    """pip160 with the code's periodic sweep instead of each batch's deadline."""

    sweeps = True


class ClosedStillWritesUnbatched(BufferedWriter):
    """With batching off, a closed writer still writes each record (the state is checked on the batched
    path only). Breaks TXLOG-CLOSE; the search sent no ``close`` with batching off until it was added.
    """

    def add(self, record: int, size: int, callback: Callback) -> None:
        if self.state != "OPEN" and not self.batching:
            self._write([(record, size, self.timer.now, callback)], batched=False, trigger=None)
            return
        super().add(record, size, callback)


class TxlogMutant(ReferenceMutant):
    """A named mutant of one profile's reference writer."""

    reference = TxlogAdapter
    slot = "writer_class"

    @property
    def writer_class(self) -> type:
        """The mutant class the adapter builds."""
        return self.replacement


TXLOG_MUTANTS: tuple[TxlogMutant, ...] = (
    *TxlogMutant.each("pulsar-master", TimerNotRearmed, SizeCheckedBeforeAdding, FailureReversed, IndexFromOne),
    *TxlogMutant.each("pulsar-master", CloseDropsBuffered, TriggerCountedTwice, SizeWinsOverCount),
    *TxlogMutant.each("pulsar-master", LargeRecordBatched, LargeBeforeBatch, BatchOfOnePlain, FailureSpills),
    *TxlogMutant.each("pulsar-master", DelayFromNewest),
    *TxlogMutant.each("pip160", SweepInsteadOfDeadline, CloseDropsBuffered),
    *TxlogMutant.each("pulsar-master", ClosedStillWritesUnbatched),
)
"""Named ``<profile>-<class in kebab case>``, in the order the kill matrix lists them."""
