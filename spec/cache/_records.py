"""The records the shadow and the normative checks exchange: an event, a cached entry, a pass, an event's facts.

The shadow (``_shadow.py``) makes them, one event at a time; each invariant's check (``_normative.py``)
reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledgerspec.spec.cache import _events as events
from ledgerspec.spec.cache._events import PASS_KINDS

Position = tuple[int, int]
SIZE_LIKE = tuple(PASS_KINDS[code] for code in events.SIZE_LIKE)
"""Passes that walk the queue freeing bytes, with the size pass's rules (``_events.SIZE_LIKE``, by name)."""
TTL_LIKE = tuple(PASS_KINDS[code] for code in events.TTL_LIKE)
"""Passes that walk the queue removing by timestamp, with the TTL pass's rules."""
FORCED = tuple(PASS_KINDS[code] for code in events.FORCED)
"""Passes that remove by force (pip430: they mark EVICTED)."""


@dataclass(slots=True)
class Event:
    """One event of a broker, as a trace row holds it (traces/FORMAT.md); absent fields are None."""

    kind: str
    seq: int
    row: int
    time: int
    ledger: int | None = None
    entry: int | None = None
    size: int | None = None
    count: int | None = None
    timestamp: int | None = None
    reason: str | None = None
    copy: int | None = None
    cursor: str | None = None
    value: float | None = None
    result: int | None = None

    @property
    def position(self) -> Position:
        """(ledger, entry); only for an event that names one."""
        assert self.ledger is not None, self.kind
        assert self.entry is not None, self.kind
        return (self.ledger, self.entry)

    @classmethod
    def of(cls, fields: dict[str, Any], seq: int, row: int) -> Event:
        """An event from a dict of trace fields (``seq`` and ``row`` when the dict has none)."""
        get = fields.get
        value = get("value")
        return cls(
            fields["kind"],
            int(get("seq", seq) if get("seq") is not None else seq),
            int(get("row", row) if get("row") is not None else row),
            int(fields["time"]),
            _int(get("ledger")),
            _int(get("entry")),
            _int(get("size")),
            _int(get("count")),
            _int(get("timestamp")),
            get("reason"),
            _int(get("copy")),
            get("cursor"),
            None if value is None else float(value),
            _int(get("result")),
        )


_LONG = 2**63


def _int(value: Any) -> int | None:
    """An integer field; one no 64-bit signed integer holds is refused, as a trace's int64 column refuses it."""
    if value is None:
        return None
    number = int(value)
    if not -_LONG <= number < _LONG:
        raise OverflowError(f"{number} is outside a 64-bit signed integer")
    return number


@dataclass(slots=True)
class Cached:
    """A cached entry as the shadow holds it."""

    ledger: int
    entry: int
    size: int
    timestamp: int | None
    enter: int
    """Its queue rank: the index of the event that made it enter the queue (a requeue's: its pass's)."""
    handler: int
    """Its handler's id (the index of its insert), -1 without one."""
    requeues: int = 0
    exact: bool = True
    """False: :attr:`requeues` is a lower bound (a size pass that went round the queue requeued it)."""
    accessed: bool = False

    @property
    def position(self) -> Position:
        return (self.ledger, self.entry)


@dataclass(slots=True)
class Pass:
    """A pass between its ``pass_start`` and ``pass_end``: what it removed and requeued, as they were."""

    kind: str
    now: int
    rank: int
    before: int
    """The size its ``pass_start`` showed."""
    ledger: int | None
    entry: int | None
    value: int | None
    """The target the operation gave it (``bytes``, ``cutoff``, ``range``), if any."""
    cursor: str | None = None
    removed: list[tuple[Cached, int | None]] = field(default_factory=list)
    """The entries it removed, as they were, with their handler's count before the removal."""
    requeued: list[tuple[Cached, int | None]] = field(default_factory=list)
    """The entries it requeued, as they were before, with their handler's count before."""
    after: int = 0
    """The size its ``pass_end`` showed (set at the end)."""

    @property
    def inside_insert(self) -> bool:
        """A size pass naming a position: a ring's rotation inside the insert of that position."""
        return self.kind == "size" and self.ledger is not None


@dataclass(slots=True)
class At:
    """One event and the shadow's facts just before it."""

    event: Event
    index: int
    """Its index among the broker's events (an insert's queue rank and its handler's id)."""
    cached: Cached | None
    """The entry cached at the event's position before it (a copy: later events do not change it)."""
    total: int
    """The total size of the cached entries before the event."""
    in_pass: Pass | None
    handler: int = -1
    """The handler the event reads or changes (-1: none)."""
    count: int | None = None
    """That handler's count before the event (None: no handler, or not known)."""
    expected: int | None = None
    """The count the profile's rule gives after the event."""
    after: int | None = None
    """The count after the event: the one it shows, else :attr:`expected`."""
    copy_open: bool = False
    """A release or a replay increment: its copy was open."""
    copy_handler: int = -1
    cursor_count: int | None = None
    """``cursor_count`` and ``cursor_read``: the cursor's answer by the cursors (those at or before it, 0 if
    inactive); ``append``: its ledger's active cursors; ``cursor_remove``: 1 if the cursor was active."""
    slowest: int | None = None
    """Cursor events, appends, cursor reads, a ``pass_start`` naming a cursor: the ledger's slowest active
    read position after the event (None: none active)."""


@dataclass(frozen=True)
class CountDifference:
    """A count an observed step shows that is not the one the shadow holds after the step's events."""

    member: str
    """``entry (ledger, entry)`` or ``copy N``."""
    handler_of: tuple[int, int]
    observed: int | None
    expected: int | None


__all__ = ["FORCED", "SIZE_LIKE", "TTL_LIKE", "At", "Cached", "CountDifference", "Event", "Pass", "Position"]
