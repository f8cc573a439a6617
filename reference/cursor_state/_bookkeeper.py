"""An in-memory BookKeeper and metadata store for the reference cursor.

With the faults the conformance machine injects: adds confirmed or failed one at a time in order, a crash that keeps a
prefix of the outstanding adds, an entry that can no longer be read, a metadata update that fails.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

AddCallback = Callable[[bool], None]


class ReadError(Exception):
    """A non-recoverable read error (``NoSuchEntry``, ``ReadException``...): recovery rolls back."""


@dataclass
class Ledger:
    """A ledger: its confirmed entries and, in order, the adds not yet confirmed."""

    id: int
    entries: list[bytes] = field(default_factory=list)
    pending: deque[tuple[bytes, AddCallback]] = field(default_factory=deque)
    errored: bool = False
    unreadable: set[int] = field(default_factory=set)


class BookKeeper:
    """Ledgers by id; the driver decides when the oldest outstanding add completes and how."""

    def __init__(self, max_entry_size: int, first_id: int = 100) -> None:
        self.max_entry_size = max_entry_size
        self.ledgers: dict[int, Ledger] = {}
        self._next_id = first_id
        self._order: deque[int] = deque()
        """Ledger ids of the outstanding adds, oldest first (adds complete in issue order)."""

    def create(self) -> Ledger:
        ledger = Ledger(self._next_id)
        self._next_id += 1
        self.ledgers[ledger.id] = ledger
        return ledger

    def delete(self, ledger_id: int) -> None:
        ledger = self.ledgers.pop(ledger_id, None)
        if ledger is not None:
            self._order = deque(i for i in self._order if i != ledger_id)

    def add(self, ledger: Ledger, data: bytes, callback: AddCallback) -> None:
        ledger.pending.append((data, callback))
        self._order.append(ledger.id)

    def complete_next(self, *, fail: bool = False) -> None:
        """The oldest outstanding add succeeds, or fails and errs its handle (its later adds fail too)."""
        while self._order and self._order[0] not in self.ledgers:
            self._order.popleft()
        if not self._order:
            return
        ledger = self.ledgers[self._order[0]]
        data, _ = ledger.pending[0]
        if fail or ledger.errored or len(data) > self.max_entry_size:
            ledger.errored = True
            failed = list(ledger.pending)
            ledger.pending.clear()
            self._order = deque(i for i in self._order if i != ledger.id)
            for _, callback in failed:
                callback(False)
            return
        self._order.popleft()
        _, callback = ledger.pending.popleft()
        ledger.entries.append(data)
        callback(True)

    def crash(self, keep: int) -> None:
        """The client dies: the first ``keep`` outstanding adds had reached the bookies; the rest are gone."""
        for ledger_id in list(self._order)[: max(keep, 0)]:
            ledger = self.ledgers.get(ledger_id)
            if ledger is not None and ledger.pending:
                data, _ = ledger.pending.popleft()
                if len(data) <= self.max_entry_size:
                    ledger.entries.append(data)
        for ledger in self.ledgers.values():
            ledger.pending.clear()
            ledger.errored = False
        self._order.clear()

    def read(self, ledger_id: int, entry: int) -> bytes:
        ledger = self.ledgers.get(ledger_id)
        if ledger is None or not 0 <= entry < len(ledger.entries) or entry in ledger.unreadable:
            raise ReadError(f"ledger {ledger_id} entry {entry}")
        return ledger.entries[entry]

    def last_confirmed(self, ledger_id: int) -> int:
        ledger = self.ledgers.get(ledger_id)
        if ledger is None:
            raise ReadError(f"no such ledger {ledger_id}")
        return len(ledger.entries) - 1


@dataclass
class MetadataStore:
    """The cursor's ``ManagedCursorInfo``: the cursor ledger's id (-1: the state is here) and a state."""

    ledger: int
    record: bytes
    """``PositionInfo`` bytes of the record's state (the same fields ``ManagedCursorInfo`` carries)."""
    fail_next: bool = False

    def update(self, ledger: int, record: bytes) -> bool:
        if self.fail_next:
            self.fail_next = False
            return False
        self.ledger, self.record = ledger, record
        return True
