"""Configuration and operations of the txlog-writer system (PIP-160's ``TxnLogBufferedWriter``).

Frozen, keyword-only records; SPEC.md §2 gives each one's Pulsar counterpart and its result. Time is
virtual: ``Tick`` advances it, and nothing else does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from ledgerspec.spec._errors import ConfigError
from ledgerspec.spec._records import Operation, config_from_dict, operation_from_dict


@dataclass(frozen=True, kw_only=True)
class WriterConfig:
    """``TxnLogBufferedWriterConfig`` (defaults in Pulsar: 512 records, 4 MiB, 1 ms, disabled)."""

    batch_enabled: bool = True
    """``batchEnabled``; in effect only with ``max_records > 1``."""
    max_records: int = 4
    """``batchedWriteMaxRecords``."""
    max_size: int = 64
    """``batchedWriteMaxSize`` in bytes: a record of this size or more is written alone."""
    max_delay: int = 5
    """``batchedWriteMaxDelayInMillis``, in ticks of the virtual clock."""

    def __post_init__(self) -> None:
        for name in ("max_records", "max_size", "max_delay"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"config field {name!r}: want an integer > 0, got {value!r}")
        if not isinstance(self.batch_enabled, bool):
            raise ConfigError(f"config field 'batch_enabled': want true or false, got {self.batch_enabled!r}")

    @property
    def batching(self) -> bool:
        """Batching in effect: requested and more than one record per batch."""
        return self.batch_enabled and self.max_records > 1

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WriterConfig:
        """From JSON; an unknown key names itself."""
        return config_from_dict(cls, data)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class WriterOp(Operation):
    """Base of all operations."""


@dataclass(frozen=True, kw_only=True)
class Add(WriterOp):
    """``asyncAddData`` of a record whose serialized size is ``size`` bytes (records are numbered 1, 2, ...)."""

    kind: ClassVar[str] = "add"
    size: int


@dataclass(frozen=True, kw_only=True)
class Tick(WriterOp):
    """The virtual clock moves ``by`` ticks; timers due meanwhile fire, in time order."""

    kind: ClassVar[str] = "tick"
    by: int = 1


@dataclass(frozen=True, kw_only=True)
class Complete(WriterOp):
    """The managed ledger confirms the oldest outstanding entry."""

    kind: ClassVar[str] = "complete"


@dataclass(frozen=True, kw_only=True)
class Fail(WriterOp):
    """The managed ledger fails the oldest outstanding entry."""

    kind: ClassVar[str] = "fail"


@dataclass(frozen=True, kw_only=True)
class Close(WriterOp):
    """``close()``."""

    kind: ClassVar[str] = "close"


@dataclass(frozen=True, kw_only=True)
class Metrics(WriterOp):
    """Read the metrics.

    The count of each flush trigger, and the records, bytes and oldest-record delays summed over the
    flushed batches (the histograms' ``_count`` and ``_sum``).
    """

    kind: ClassVar[str] = "metrics"


OPERATIONS: dict[str, type[WriterOp]] = {op.kind: op for op in (Add, Tick, Complete, Fail, Close, Metrics)}


def op_from_dict(data: dict[str, Any]) -> WriterOp:
    """An operation from its plain form; a bad kind or field names itself."""
    op = operation_from_dict(data, dict(OPERATIONS), "txlog-writer")
    assert isinstance(op, WriterOp)
    return op
