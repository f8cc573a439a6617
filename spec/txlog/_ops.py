"""Configuration and operations of the txlog-writer system (PIP-160's ``TxnLogBufferedWriter``).

Frozen, keyword-only records; SPEC.md §2 gives each one's Pulsar counterpart and its result. Time is
virtual: ``Tick`` advances it, and nothing else does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from ledgerspec.spec._errors import ConfigError, OperationError


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
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"config: unknown field(s) {unknown} (known: {', '.join(sorted(known))})")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class WriterOp:
    """Base of all operations."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.kind, **vars(self)}

    def describe(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{type(self).__name__}({shown})"


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
    kind = data.get("op")
    cls = OPERATIONS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise OperationError(f"unknown txlog-writer operation {kind!r} (known: {', '.join(OPERATIONS)})")
    names = {f.name for f in dataclasses.fields(cls)}
    args = {k: v for k, v in data.items() if k != "op"}
    for key, value in args.items():
        if key not in names:
            raise OperationError(f"{kind}: unknown field {key!r}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise OperationError(f"{kind}.{key}: want an integer >= 0, got {value!r}")
    try:
        return cls(**args)
    except TypeError as error:
        raise OperationError(f"{kind}: {error}") from error
