"""Operations on the entry cache: plain, frozen, keyword-only records.

Every operation carries ``now``, the logical clock in nanoseconds. The table in SPEC.md
("Operations") gives each one's Pulsar counterpart and its result.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from ledgerspec.spec._errors import OperationError


@dataclass(frozen=True, kw_only=True)
class Op:
    """Base of all operations."""

    kind: ClassVar[str] = ""
    now: int

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form: ``{"op": kind, field: value, ...}`` (every field is a scalar: no deep copy)."""
        return {"op": self.kind, **vars(self)}

    def describe(self) -> str:
        """A line a person can read, which is also valid Python that rebuilds the operation."""
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if f.default is dataclasses.MISSING or getattr(self, f.name) != f.default
        ]
        return f"{type(self).__name__}({', '.join(shown)})"


@dataclass(frozen=True, kw_only=True)
class Configure(Op):
    """Run-time configuration change; ``None`` leaves a field as it is."""

    kind: ClassVar[str] = "configure"
    max_size: int | None = None
    watermark: float | None = None
    ttl: int | None = None
    ttl_max: int | None = None
    max_requeue: int | None = None
    extend_ttl: bool | None = None
    track_reads: bool | None = None

    def changes(self) -> dict[str, Any]:
        """The fields this operation sets."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "now" and getattr(self, f.name) is not None
        }


@dataclass(frozen=True, kw_only=True)
class Insert(Op):
    """``RangeEntryCacheImpl.insert`` of an entry carrying ``expected_reads``; result: cached or not.

    ``expected_reads=None`` is an entry created without a read-count handler (``EntryImpl.create``
    without a count, the create-if-absent path): pip430 then caches it with no handler, where it
    would otherwise give every entry one; in the other profiles it is the same as 0.
    """

    kind: ClassVar[str] = "insert"
    ledger: int
    entry: int
    size: int
    expected_reads: int | None = 0

    def reads(self) -> int:
        """The count asked for, 0 for an entry without a handler: the number the profiles without one use."""
        return 0 if self.expected_reads is None else self.expected_reads

    def valid(self) -> bool:
        """The common precondition: a positive size and no negative count."""
        return self.size > 0 and self.reads() >= 0


@dataclass(frozen=True, kw_only=True)
class Get(Op):
    """Read one position; result: the id of the dispatched copy on a hit, ``None`` on a miss."""

    kind: ClassVar[str] = "get"
    ledger: int
    entry: int


@dataclass(frozen=True, kw_only=True)
class GetRange(Op):
    """Read ``[first, last]`` of one ledger; result: a tuple of copy ids or ``None``, in position order."""

    kind: ClassVar[str] = "get_range"
    ledger: int
    first: int
    last: int


@dataclass(frozen=True, kw_only=True)
class Release(Op):
    """Release a dispatched copy: ``markRead()`` on its read-count handler."""

    kind: ClassVar[str] = "release"
    copy: int


@dataclass(frozen=True, kw_only=True)
class ReplayIncrement(Op):
    """Key_Shared replay: ``incrementExpectedReadCount()`` through a dispatched copy."""

    kind: ClassVar[str] = "replay_increment"
    copy: int


@dataclass(frozen=True, kw_only=True)
class InvalidateBefore(Op):
    """``invalidateEntries(pos)``: remove every entry of ``ledger`` strictly before ``entry``."""

    kind: ClassVar[str] = "invalidate_before"
    ledger: int
    entry: int


@dataclass(frozen=True, kw_only=True)
class InvalidateLedger(Op):
    """``invalidateAllEntries(ledgerId)``: remove every entry of the ledger."""

    kind: ClassVar[str] = "invalidate_ledger"
    ledger: int


@dataclass(frozen=True, kw_only=True)
class Clear(Op):
    """``clear()`` of the whole broker cache."""

    kind: ClassVar[str] = "clear"


@dataclass(frozen=True, kw_only=True)
class EvictTimestamp(Op):
    """One timestamp (TTL) eviction pass at ``now``."""

    kind: ClassVar[str] = "evict_timestamp"


@dataclass(frozen=True, kw_only=True)
class EvictSize(Op):
    """The eviction executor runs the size eviction: down to the watermark when over the trigger."""

    kind: ClassVar[str] = "evict_size"


@dataclass(frozen=True, kw_only=True)
class EvictBytes(Op):
    """``evictLeastAccessedEntries(bytes)``: free at least ``bytes`` (> 0) at any size; result: (entries, bytes)."""

    kind: ClassVar[str] = "evict_bytes"
    bytes: int


@dataclass(frozen=True, kw_only=True)
class EvictBefore(Op):
    """``evictLEntriesBeforeTimestamp(cutoff)``: a TTL pass with an explicit cutoff; result: (entries, bytes)."""

    kind: ClassVar[str] = "evict_before"
    cutoff: int


@dataclass(frozen=True, kw_only=True)
class RemoveRange(Op):
    """``RangeCache.removeRange(first, last, inclusive)`` within one ledger; result: (entries, bytes) freed."""

    kind: ClassVar[str] = "remove_range"
    ledger: int
    first: int
    last: int
    inclusive: bool


@dataclass(frozen=True, kw_only=True)
class CursorAdd(Op):
    """An active cursor appears on ``ledger`` at read position ``entry``."""

    kind: ClassVar[str] = "cursor_add"
    ledger: int
    cursor: str
    entry: int


@dataclass(frozen=True, kw_only=True)
class CursorRemove(Op):
    """An active cursor is removed (deactivated or closed)."""

    kind: ClassVar[str] = "cursor_remove"
    ledger: int
    cursor: str


@dataclass(frozen=True, kw_only=True)
class CursorSeek(Op):
    """An active cursor moves to read position ``entry`` (forward or back)."""

    kind: ClassVar[str] = "cursor_seek"
    ledger: int
    cursor: str
    entry: int


@dataclass(frozen=True, kw_only=True)
class CursorCount(Op):
    """``getNumberOfCursorsAtSamePositionOrBefore(cursor)``; result: an int."""

    kind: ClassVar[str] = "cursor_count"
    ledger: int
    cursor: str


@dataclass(frozen=True, kw_only=True)
class Append(Op):
    """``OpAddEntry`` after a successful add of the ledger's next entry; result: cached or not.

    Cached only while the ledger has an active cursor, expecting as many reads as there are active
    cursors (``cacheEvictionByExpectedReadCount`` on; off: no count). SPEC.md §3.2.
    """

    kind: ClassVar[str] = "append"
    ledger: int
    entry: int
    size: int


@dataclass(frozen=True, kw_only=True)
class CursorRead(Op):
    """An active cursor reads ``[its position, last]`` (``readFromStorage`` for what is not cached), then moves on.

    Result: one copy id or ``None`` per position, in order, as ``GetRange`` returns them (SPEC.md §3.2).
    """

    kind: ClassVar[str] = "cursor_read"
    ledger: int
    cursor: str
    last: int


@dataclass(frozen=True, kw_only=True)
class LedgerClose(Op):
    """The managed ledger closes: its cache is removed through the manager and its cursors go."""

    kind: ClassVar[str] = "ledger_close"
    ledger: int


LEDGER_OPERATIONS: tuple[type[Op], ...] = (Append, CursorRead, LedgerClose)
"""The managed-ledger layer's own operations (capability ``managed_ledger``)."""

_ALL: tuple[type[Op], ...] = (
    Configure,
    Insert,
    Get,
    GetRange,
    Release,
    ReplayIncrement,
    InvalidateBefore,
    InvalidateLedger,
    Clear,
    EvictTimestamp,
    EvictSize,
    EvictBytes,
    EvictBefore,
    RemoveRange,
    CursorAdd,
    CursorRemove,
    CursorSeek,
    CursorCount,
    *LEDGER_OPERATIONS,
)
OPERATIONS: dict[str, type[Op]] = {cls.kind: cls for cls in _ALL}

_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "int | None": (int, type(None)),
    "float | None": (int, float, type(None)),
    "bool | None": (bool, type(None)),
    "bool": (bool,),
    "str": (str,),
}


INT64 = range(-(2**63), 2**63)
"""What an operation's integer may be: a Java ``long``, as every implementation and the protocol carry it."""
_MINIMUM = {"now": 0, "ledger": 0, "entry": 0, "first": 0, "last": 0, "copy": 0, "cutoff": 0, "expected_reads": 0}
_MINIMUM |= {"size": 1, "bytes": 1}
"""The least value of an operation's field: ids, times and counts are never negative, sizes are positive (the
preconditions a runner keeps: the reference refuses anything else, so a case breaking them is bad input)."""


def op_from_dict(data: Any, *, where: str = "operation") -> Op:
    """Build an operation from plain data, naming the place and the field of any problem."""
    if not isinstance(data, dict):
        raise OperationError(f"{where}: expected an object, got {type(data).__name__}")
    kind = data.get("op")
    cls = OPERATIONS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise OperationError(f"{where}: unknown operation {kind!r}; known: {', '.join(OPERATIONS)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields) - {"op"})
    if unknown:
        raise OperationError(f"{where}: {kind} has no field(s) {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in data:
            if field.default is dataclasses.MISSING:
                raise OperationError(f"{where}: {kind} needs field {name!r}")
            continue
        value = data[name]
        allowed = _TYPES[str(field.type)]
        is_bool = isinstance(value, bool)
        if not isinstance(value, allowed) or (is_bool and bool not in allowed):
            raise OperationError(
                f"{where}: field {name!r} of {kind}: expected {field.type}, got {value!r} ({type(value).__name__})"
            )
        _check_range(value, name, cls.kind, where)
        values[name] = value
    if "first" in values and "last" in values and values["first"] > values["last"]:
        raise OperationError(f"{where}: {kind}: first {values['first']} is after last {values['last']}")
    return cls(**values)  # each value was checked against its field's type


def _check_range(value: Any, name: str, kind: str, where: str) -> None:
    """An integer within a long and at least the field's minimum (``_MINIMUM``)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return
    if value not in INT64:
        raise OperationError(f"{where}: field {name!r} of {kind}: {value} is outside a 64-bit signed integer")
    low = _MINIMUM.get(name)
    if low is not None and value < low:
        raise OperationError(f"{where}: field {name!r} of {kind}: must be >= {low}, got {value}")
