"""Configuration and operations of the cursor-state system.

Acknowledgements, persists, the cursor ledger's completions, faults and recovery. Frozen, keyword-only records;
SPEC.md §2 gives each one's Pulsar counterpart and its result.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from ledgerspec.spec._errors import ConfigError, OperationError
from ledgerspec.spec._records import Operation, config_from_dict, operation_from_dict
from ledgerspec.spec.cursor_state._format import CODECS

MAX_BATCH = 4_096
"""The largest ``batch_size``. The model and the references hold each partly acknowledged batch as the set of
its unacknowledged indexes (the cursor's ``BitSetRecyclable`` holds a bit each), about 0.4 MB per batch at
this size: a batch of 10^9 exhausted memory at its first ``AckIndex``, and 65,536 took gigabytes over a few
hundred batches. Pulsar's producers batch at most ``batchingMaxMessages`` messages, 1,000 by default
(pulsar-client ``ProducerConfigurationData``)."""


@dataclass(frozen=True, kw_only=True)
class CursorConfig:
    """The settings that change what is written and recovered (Pulsar names in SPEC.md §1)."""

    chunk_size: int = 48
    """``maxPositionChunkSize`` (pip381): a state of this many bytes or more is chunked."""
    max_entry_size: int = 160
    """BookKeeper's largest entry (``nettyMaxFrameSizeBytes``): a bigger add fails."""
    max_ranges: int = 6
    """``maxUnackedRangesToPersist``."""
    long_array: bool = True
    """pulsar-master: ``persistIndividualAckAsLongArray`` (true in 4.2.x). pip381 always writes field 6:
    its flag ``persistentUnackedRangesWithMultipleEntriesEnabled`` turns on chunks and field 6 at once."""
    compression: str = "none"
    """``cursorInfoCompressionType`` of the cursor ledger (pip381 only): ``none`` or ``zlib``."""
    batch_size: int = 4
    """Messages per batch entry (``AckIndex``), at most :data:`MAX_BATCH`."""

    def __post_init__(self) -> None:
        for name in ("chunk_size", "max_entry_size", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"config field {name!r}: want an integer > 0, got {value!r}")
        if self.batch_size > MAX_BATCH:
            raise ConfigError(
                f"config field 'batch_size': want at most {MAX_BATCH} (the model holds every unacknowledged"
                f" index of a batch), got {self.batch_size!r}"
            )
        if not isinstance(self.max_ranges, int) or isinstance(self.max_ranges, bool) or self.max_ranges < 0:
            raise ConfigError(f"config field 'max_ranges': want an integer >= 0, got {self.max_ranges!r}")
        if self.compression not in CODECS:
            raise ConfigError(f"config field 'compression': want one of {', '.join(CODECS)}, got {self.compression!r}")
        if not isinstance(self.long_array, bool):
            raise ConfigError(f"config field 'long_array': want true or false, got {self.long_array!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CursorConfig:
        """From JSON; an unknown key names itself."""
        return config_from_dict(cls, data)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


MAX_ENTRY = 2**31 - 2
"""The largest entry id an ``Ack``, ``AckIndex`` or ``MarkDelete`` may name (``Integer.MAX_VALUE - 1``).

The cursor keeps its individually acknowledged entries in pulsar-common's ``OpenLongPairRangeSet`` (a
``RoaringBitSet`` per ledger, ``RangeSetWrapper`` with ``unackedRangesOpenCacheSetEnabled``, true by default),
which casts each entry id to ``int``: ``addOpenClosed`` sets ``[(int) lower, (int) upper + 1)`` and
``remove`` (under ``removeAtMost``) clears the same. 2^31 - 2 is the last id whose ``(int) id + 1`` does not
overflow; past it the bitset throws, and past 2^32 the cast wraps to another entry's bit (SPEC.md §2).
"""


@dataclass(frozen=True, kw_only=True)
class CursorOp(Operation):
    """Base of all operations."""

    capability: ClassVar[str | None] = None
    """The capability an adapter claims to be sent this operation; None: every adapter must take it."""

    def __post_init__(self) -> None:
        entry = getattr(self, "entry", None)
        if isinstance(entry, int) and entry > MAX_ENTRY:
            raise OperationError(
                f"field 'entry': {entry} is past {MAX_ENTRY} (Integer.MAX_VALUE - 1), the largest entry id a "
                "Pulsar cursor can acknowledge: OpenLongPairRangeSet.addOpenClosed and removeAtMost cast it to "
                "int for a bitset (apache/pulsar v4.2.4 and v4.0.8, pulsar-common), which throws past it or "
                "sets another entry's bit"
            )


@dataclass(frozen=True, kw_only=True)
class Ack(CursorOp):
    """``asyncDelete`` of one entry; result none."""

    kind: ClassVar[str] = "ack"
    ledger: int
    entry: int


@dataclass(frozen=True, kw_only=True)
class AckIndex(CursorOp):
    """A batch-index acknowledgement (``deletionAtBatchIndexLevelEnabled``); result none."""

    kind: ClassVar[str] = "ack_index"
    capability: ClassVar[str | None] = "ack_index"
    ledger: int
    entry: int
    index: int


@dataclass(frozen=True, kw_only=True)
class MarkDelete(CursorOp):
    """A cumulative acknowledgement up to the position (never backwards); result none."""

    kind: ClassVar[str] = "mark_delete"
    ledger: int
    entry: int


@dataclass(frozen=True, kw_only=True)
class Persist(CursorOp):
    """``internalMarkDelete``: persist the state with property ``p = value``.

    Result: the persist's number (1, 2, ...), its callback comes later.
    """

    kind: ClassVar[str] = "persist"
    value: int


@dataclass(frozen=True, kw_only=True)
class Confirm(CursorOp):
    """BookKeeper confirms the oldest outstanding add; result: the callbacks it completes."""

    kind: ClassVar[str] = "confirm"


@dataclass(frozen=True, kw_only=True)
class FailAdd(CursorOp):
    """The oldest outstanding add fails, and the handle with it: every outstanding add fails."""

    kind: ClassVar[str] = "fail_add"
    capability: ClassVar[str | None] = "fail_add"


@dataclass(frozen=True, kw_only=True)
class FailMeta(CursorOp):
    """The next metadata-store update of the cursor fails."""

    kind: ClassVar[str] = "fail_meta"
    capability: ClassVar[str | None] = "fail_meta"


@dataclass(frozen=True, kw_only=True)
class Rollover(CursorOp):
    """``periodicRollover``: a new cursor ledger, the state written there first.

    Result as Persist, or none when the profile does not roll over now.
    """

    kind: ClassVar[str] = "rollover"
    capability: ClassVar[str | None] = "rollover"


@dataclass(frozen=True, kw_only=True)
class Crash(CursorOp):
    """The broker dies.

    Of the outstanding adds, the first ``keep`` had reached the bookies and are
    in the ledger after its recovery; the rest are lost; no callback runs.
    """

    kind: ClassVar[str] = "crash"
    keep: int = 0


@dataclass(frozen=True, kw_only=True)
class Unreadable(CursorOp):
    """The last entry of the cursor ledger can no longer be read (a non-recoverable read error)."""

    kind: ClassVar[str] = "unreadable"
    capability: ClassVar[str | None] = "unreadable"


@dataclass(frozen=True, kw_only=True)
class Recover(CursorOp):
    """``recover``: result the recovered state, or ``"failed"``."""

    kind: ClassVar[str] = "recover"


CAPABILITIES = ("ack_index", "fail_add", "fail_meta", "rollover", "unreadable", "zlib")
"""Optional parts an adapter may claim: the operations named so, and ``zlib``, the compression."""

OPERATIONS: dict[str, type[CursorOp]] = {
    op.kind: op
    for op in (Ack, AckIndex, MarkDelete, Persist, Confirm, FailAdd, FailMeta, Rollover, Crash, Unreadable, Recover)
}


def op_from_dict(data: dict[str, Any]) -> CursorOp:
    """An operation from its plain form; a bad kind or field names itself."""
    op = operation_from_dict(data, dict(OPERATIONS), "cursor-state")
    assert isinstance(op, CursorOp)
    return op
