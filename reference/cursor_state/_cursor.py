"""A reference managed cursor that persists its acknowledgement state, after ``ManagedCursorImpl``.

Two profiles: ``pip381`` (apache/pulsar 048142ca, PR #22799: ``persistPositionToLedger`` chunks a
state of ``maxPositionChunkSize`` bytes or more and appends a JSON footer; recovery walks back from
the last entry) and ``pulsar-master`` (one entry; recovery reads the last entry). The byte format is
the reference's own (``_position_info``): nothing here imports the spec.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from enum import Enum
from typing import Protocol

from ledgerspec.reference.cursor_state._bookkeeper import BookKeeper, Ledger, MetadataStore, ReadError
from ledgerspec.reference.cursor_state._position_info import (
    Caps,
    CorruptEntryError,
    Position,
    Snapshot,
    footer_of,
    pack,
    read,
    split,
    unpack,
    write,
)

Callback = Callable[[bool], None]
Entry = tuple[Position, dict[str, int]]
"""A mark-delete entry (``MarkDeleteEntry``): the position and properties a write carries."""
METASTORE_RANGES_BYTES = 1024 * 1024 - 10 * 1024
"""``buildIndividualDeletedMessageRanges(forMetastore=true)`` stops past this many bytes of ranges."""


class Settings(Protocol):
    """What the cursor reads of its configuration (the spec's ``CursorConfig`` has these fields)."""

    @property
    def chunk_size(self) -> int: ...
    @property
    def max_entry_size(self) -> int: ...
    @property
    def max_ranges(self) -> int: ...
    @property
    def long_array(self) -> bool: ...
    @property
    def compression(self) -> str: ...
    @property
    def batch_size(self) -> int: ...


class State(Enum):
    OPEN = "Open"
    NO_LEDGER = "NoLedger"
    SWITCHING = "SwitchingLedger"


class ReferenceCursor:
    """One cursor over one managed ledger; positions are ``(ledger, entry)``."""

    def __init__(self, profile: str, config: Settings, bookkeeper: BookKeeper, meta: MetadataStore) -> None:
        self.profile, self.config, self.bk, self.meta = profile, config, bookkeeper, meta
        pip381 = profile == "pip381"
        self.caps = Caps(pip381 or config.long_array, config.max_ranges, plus_one=pip381, count_before=pip381)
        self.state = State.NO_LEDGER
        self.ledger: Ledger | None = None
        self.pending: list[tuple[Callback, Entry]] = []
        """``pendingMarkDeleteOps`` while a new cursor ledger is being created."""
        self._load(read(meta.record))

    # --- the in-memory state ---------------------------------------------------------------------

    def _load(self, state: Snapshot) -> None:
        self.mark_delete = state.mark_delete
        self.acked = copy.deepcopy(state.acked)
        self.unacked_indexes = copy.deepcopy(state.unacked_indexes)
        self.properties = dict(state.properties)
        self.last_entry: Entry = (state.mark_delete, dict(state.properties))
        """``lastMarkDeleteEntry``: what the first write to a new cursor ledger carries."""

    def snapshot(self) -> Snapshot:
        """The state now (a copy: later acknowledgements leave it alone)."""
        return Snapshot(
            self.mark_delete, copy.deepcopy(self.acked), copy.deepcopy(self.unacked_indexes), dict(self.properties)
        )

    def _is_acked(self, position: Position) -> bool:
        return position <= self.mark_delete or position[1] in self.acked.get(position[0], ())

    def delete(self, position: Position) -> None:
        """``asyncDelete``; a run starting right after the mark-delete position advances it.

        The position's batch set goes, even when the position was deleted already (``internalIsMessageDeleted``).
        """
        self.unacked_indexes.pop(position, None)
        if not self._is_acked(position):
            self.acked.setdefault(position[0], set()).add(position[1])
            self._move_on()
            self._marked(None)
        elif self.acked:
            self._marked(None)

    def delete_index(self, position: Position, index: int) -> None:
        if self._is_acked(position):
            self.delete(position)
            return
        left = self.unacked_indexes.setdefault(position, set(range(self.config.batch_size)))
        left.discard(index)
        if not left:
            self.delete(position)
        elif self.acked:
            self._marked(None)

    def _marked(self, properties: dict[str, int] | None) -> None:
        """``updateLastMarkDeleteEntryToLatest`` (acknowledgements are rate-limited here: they do not persist).

        ``asyncDelete`` passes no properties (None): the last waiting persist's, or the cursor's, are kept; it
        touches nothing when no acknowledged range is left to look at.
        """
        if properties is None:
            properties = dict(self.pending[-1][1][1]) if self.pending else self.last_entry[1]
        self.last_entry = (self.mark_delete, properties)

    def mark_delete_to(self, position: Position) -> None:
        """``setAcknowledgedPosition``: forward to ``position``, then on over the acknowledged run right after it.

        managed-ledger 4.0.8/4.2.4 ``ManagedCursorImpl.setAcknowledgedPosition`` walks ``rangeContaining`` the next
        entry while it is acknowledged, so no acknowledged entry is ever left right after the mark-delete position.
        """
        if position <= self.mark_delete:
            return
        self._forget_at_most(position)
        self._move_on()
        self._marked({})  # ``markDelete(position)`` passes an empty map

    def _move_on(self) -> None:
        """A run starting right after the mark-delete position advances it (within its ledger)."""
        ledger, entry = self.mark_delete
        while entry + 1 in self.acked.get(ledger, ()):
            entry += 1
        self._forget_at_most((ledger, entry))

    def _forget_at_most(self, position: Position) -> None:
        """The mark-delete position moves forward; ``removeAtMost`` forgets the ranges at or before it.

        The batch sets it covers stay until a persist of it completes (:meth:`_persisted`).
        """
        if position <= self.mark_delete:
            return
        self.mark_delete = position
        for ledger in list(self.acked):
            self.acked[ledger] = {e for e in self.acked[ledger] if (ledger, e) > position}
            if not self.acked[ledger]:
                del self.acked[ledger]

    def _persisted(self, entry: Entry) -> None:
        """A persist completed: forget the batch sets at or before its mark-delete position.

        managed-ledger 4.2.4 ``MarkDeleteEntry.alignAcknowledgeStatusAfterPersisted`` (4.0.8: the persist
        callback of ``internalMarkDelete``); until then every write carries them.
        """
        self.unacked_indexes = {p: s for p, s in self.unacked_indexes.items() if p > entry[0]}

    # --- persisting ---------------------------------------------------------------------------------

    def persist(self, value: int, callback: Callback) -> None:
        """``internalMarkDelete`` with properties {"p": value}; with no open ledger it waits for a new one."""
        self.properties = {"p": value}
        entry = (self.mark_delete, dict(self.properties))
        if self.state is State.OPEN:
            assert self.ledger is not None
            self.last_entry = entry
            self._to_ledger(self.ledger, entry, self._after_ledger_write(entry, callback))
            return
        self.pending.append((callback, entry))
        if self.state is State.NO_LEDGER:
            self._new_ledger(None)

    def rollover(self, callback: Callback) -> bool:
        """``periodicRollover``: only an open, non-empty ledger is rolled over; its first write completes it."""
        if self.state is not State.OPEN or self.ledger is None or self.ledger.pending or not self.ledger.entries:
            return False
        self._new_ledger(callback)
        return True

    def _now(self, entry: Entry) -> Snapshot:
        """What a write of ``entry`` carries: its position and properties, the ranges and batch sets held now."""
        state = self.snapshot()
        state.mark_delete, state.properties = entry[0], dict(entry[1])
        return state

    def _to_ledger(self, ledger: Ledger, entry: Entry, done: Callback) -> None:
        """``persistPositionToLedger``: the state it builds now, written."""
        self._write_state(ledger, self._now(entry), done)

    def _write_state(self, ledger: Ledger, state: Snapshot, done: Callback) -> None:
        """One entry, or the chunks and the footer; the last decides."""
        data = self._encode(state)
        parts = (
            split(pack(data, self.config.compression), self.config.chunk_size) if self.profile == "pip381" else [data]
        )
        for part in parts[:-1]:
            self.bk.add(ledger, part, lambda _ok: None)
        self.bk.add(ledger, parts[-1], done)

    def _encode(self, state: Snapshot) -> bytes:
        """The ``PositionInfo`` a ledger write carries."""
        return write(state, self.caps)

    def _after_ledger_write(self, entry: Entry, callback: Callback) -> Callback:
        def done(ok: bool) -> None:
            if not ok:
                self.state, self.ledger = State.NO_LEDGER, None  # then ``persistPositionToMetaStore``
                ok = self.meta.update(-1, self._metastore_record(entry))
            if ok:
                self._persisted(entry)
            callback(ok)

        return done

    def _metastore_record(self, entry: Entry) -> bytes:
        """``persistPositionToMetaStore``: ranges (never the long array), capped by count and bytes."""
        caps = Caps(False, self.caps.max_ranges, plus_one=self.caps.plus_one, count_before=self.caps.count_before)
        return write(self._now(entry), caps, ranges_bytes=METASTORE_RANGES_BYTES)

    def _new_ledger(self, rollover: Callback | None) -> None:
        """``createNewMetadataLedger``: write ``lastMarkDeleteEntry`` into a new ledger, switch the pointer, flush."""
        self.state = State.SWITCHING
        ledger = self.bk.create()
        first = self.last_entry

        def written(ok: bool) -> None:
            waiting, self.pending = self.pending, []
            if not ok or not self._point_to(ledger):
                self.bk.delete(ledger.id)
                self.state = State.NO_LEDGER
                _each([rollover] if rollover else [], False)
                _each([callback for callback, _ in waiting], False)
                return
            old = self.ledger.id if self.ledger is not None else None
            if old is not None and old != ledger.id:
                self.bk.delete(old)
            self.ledger, self.state = ledger, State.OPEN
            if rollover is not None:  # its callback switches the ledger, nothing more: no batch set settles
                rollover(True)
            if waiting:  # ``flushPendingMarkDeletes``: the last waiting persist, once, for every waiting callback
                entry = waiting[-1][1]
                if entry[0] >= self.last_entry[0]:
                    self.last_entry = entry
                callbacks = [callback for callback, _ in waiting]
                self._to_ledger(ledger, entry, self._after_ledger_write(entry, lambda ok: _each(callbacks, ok)))

        self._to_ledger(ledger, first, written)

    def _point_to(self, ledger: Ledger) -> bool:
        """``switchToNewLedger``: the record names the new ledger, with ``lastMarkDeleteEntry`` to roll back to."""
        position, properties = self.last_entry
        return self.meta.update(ledger.id, write(Snapshot(position, properties=dict(properties)), self.caps))

    # --- recovery -----------------------------------------------------------------------------------

    def recover(self) -> Snapshot | None:
        """``recover``: the metadata store's state, or the cursor ledger's; None if recovery fails."""
        if self.meta.ledger < 0:
            state = read(self.meta.record)
            if self.profile == "pip381":  # 048142ca restores no batch indexes from the metadata store
                state.unacked_indexes = {}
        else:
            found = self._from_ledger(self.meta.ledger, read(self.meta.record))
            if found is None:
                return None
            state = found
        self._load(state)
        self.state, self.ledger = State.NO_LEDGER, self.bk.ledgers.get(self.meta.ledger)
        return state

    def _from_ledger(self, ledger_id: int, record: Snapshot) -> Snapshot | None:  # noqa: PLR0911 - each way a walk back ends
        rollback = Snapshot(record.mark_delete)
        try:
            entry = self.bk.last_confirmed(ledger_id)
        except ReadError:
            return rollback
        while True:
            if entry < 0:
                return rollback
            try:
                data = self.bk.read(ledger_id, entry)
            except ReadError:
                return rollback
            if self.profile != "pip381":
                try:
                    return read(data)
                except CorruptEntryError:
                    return None
            footer = footer_of(data)
            if footer is not None:
                return self._chunked(ledger_id, entry, *footer)
            try:
                return read(unpack(data, self._read_codec()))
            except CorruptEntryError:
                entry -= 1

    def _chunked(self, ledger_id: int, footer_entry: int, parts: int, length: int) -> Snapshot | None:
        """``readChunkSequence``; a bad sequence fails recovery (no stepping back past a footer)."""
        try:
            joined = b"".join(self.bk.read(ledger_id, i) for i in range(footer_entry - parts, footer_entry))
        except ReadError:
            return None
        if footer_entry - parts < 0 or len(joined) != length:
            return None
        try:
            return read(unpack(joined, self._read_codec()))
        except CorruptEntryError:
            return None

    def _read_codec(self) -> str:
        """Reader and writer use the codec recorded in the cursor ledger's metadata (here: the config's)."""
        return self.config.compression


def _each(callbacks: list[Callback], ok: bool) -> None:
    for callback in callbacks:
        callback(ok)
