"""Mutants of the reference cursor (cursor-state system): plausible bugs in persisting and
recovering a cursor's state, each named by what it breaks. The suite must kill every one.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from ledgerspec.conformance.cursor_state import CursorStateAdapter
from ledgerspec.conformance.systems import ReferenceMutant
from ledgerspec.reference.cursor_state import ReferenceCursor
from ledgerspec.reference.cursor_state._bookkeeper import Ledger, ReadError
from ledgerspec.reference.cursor_state._cursor import Callback, Entry, State
from ledgerspec.reference.cursor_state._position_info import (
    CorruptEntryError,
    Position,
    Snapshot,
    _long_words,
    pack,
    read,
    split,
    unpack,
    write,
)


class FooterFirst(ReferenceCursor):
    """The footer is appended before the last chunk, so a footer can be durable without its chunks."""

    def _write_state(self, ledger: Ledger, state: Snapshot, done: Callback) -> None:
        if self.profile != "pip381":
            return super()._write_state(ledger, state, done)
        parts = split(pack(write(state, self.caps), self.config.compression), self.config.chunk_size)
        if len(parts) > 2:
            parts[-1], parts[-2] = parts[-2], parts[-1]
        for part in parts[:-1]:
            self.bk.add(ledger, part, lambda _ok: None)
        self.bk.add(ledger, parts[-1], done)
        return None


class ChunkShort(ReferenceCursor):
    """The chunk loop stops one chunk short: the last chunk is never appended, the footer still counts it."""

    def _write_state(self, ledger: Ledger, state: Snapshot, done: Callback) -> None:
        parts = split(pack(write(state, self.caps), self.config.compression), self.config.chunk_size)
        if self.profile != "pip381" or len(parts) == 1:
            return super()._write_state(ledger, state, done)
        for part in parts[:-2]:
            self.bk.add(ledger, part, lambda _ok: None)
        self.bk.add(ledger, parts[-1], done)
        return None


class CallbackOnFirstChunk(ReferenceCursor):
    """The persist completes when its first chunk is confirmed, not when the footer is."""

    def _write_state(self, ledger: Ledger, state: Snapshot, done: Callback) -> None:
        parts = split(pack(write(state, self.caps), self.config.compression), self.config.chunk_size)
        if self.profile != "pip381" or len(parts) == 1:
            return super()._write_state(ledger, state, done)
        self.bk.add(ledger, parts[0], done)
        for part in parts[1:]:
            self.bk.add(ledger, part, lambda _ok: None)
        return None


class WalkBackStopsEarly(ReferenceCursor):
    """Recovery gives up (rolls back) at the first entry it cannot parse instead of stepping back."""

    def _from_ledger(self, ledger_id: int, record: Snapshot) -> Snapshot | None:
        try:
            data = self.bk.read(ledger_id, self.bk.last_confirmed(ledger_id))
        except ReadError:
            return Snapshot(record.mark_delete)
        try:
            return read(unpack(data, self.config.compression))
        except CorruptEntryError:
            return super()._from_ledger(ledger_id, record) if data[:1] == b"{" else Snapshot(record.mark_delete)


class CompressionIgnoredOnRead(ReferenceCursor):
    """Recovery parses entries as uncompressed whatever the ledger's codec."""

    def _read_codec(self) -> str:
        return "none"


class ReadsFirstEntry(ReferenceCursor):
    """Recovery reads the cursor ledger's first entry instead of its last."""

    def _from_ledger(self, ledger_id: int, record: Snapshot) -> Snapshot | None:
        try:
            data = self.bk.read(ledger_id, 0)
            return read(unpack(data, self.config.compression))
        except (ReadError, CorruptEntryError):
            return super()._from_ledger(ledger_id, record)


class PointerNotSwitched(ReferenceCursor):
    """A new cursor ledger is used without the metadata store pointing at it: recovery reads the
    old ledger (deleted, or stale).
    """

    def _point_to(self, ledger: Ledger) -> bool:  # noqa: ARG002 - the bug: nothing is written, whatever the ledger
        return True


class RangeCapPlusOne(ReferenceCursor):
    """pulsar-master keeps 048142ca's range cap: one range more than ``maxUnackedRangesToPersist``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.caps = replace(self.caps, plus_one=True)


class BitsCapIncluding(ReferenceCursor):
    """pip381 caps the long array as master's PositionRangeSet does (count including the ledger)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.caps = replace(self.caps, count_before=False)


class MetastoreWithoutRanges(ReferenceCursor):
    """The metadata-store fallback writes the mark-delete position and properties only."""

    def _metastore_record(self, entry: Entry) -> bytes:
        held, self.acked = self.acked, {}
        try:
            return super()._metastore_record(entry)
        finally:
            self.acked = held


class CallbackTwice(ReferenceCursor):
    """A failed ledger write calls the callback, then falls back and calls it again."""

    def _after_ledger_write(self, entry: Entry, callback: Callback) -> Callback:
        fallback = super()._after_ledger_write(entry, callback)

        def done(ok: bool) -> None:
            if not ok:
                callback(False)
            fallback(ok)

        return done


class BatchBitsInverted(ReferenceCursor):
    """Batch-index sets written with bit = acknowledged (the field's name), not bit = still unacknowledged."""

    def _write_state(self, ledger: Ledger, state: Snapshot, done: Callback) -> None:
        every = set(range(self.config.batch_size))
        flipped = {p: every - s for p, s in state.unacked_indexes.items()}
        super()._write_state(ledger, Snapshot(state.mark_delete, state.acked, flipped, state.properties), done)


def _int_one(bit: int) -> int:
    """Java's ``1 << bit`` with an ``int`` one, widened to the long word it is or-ed into.

    The shift is taken mod 32, and bit 31 turns the int negative, which widens to a long with bits 31 to 63 set.
    """
    shift = bit & 31
    return (1 << 64) - (1 << 31) if shift == 31 else 1 << shift


_int_shift_words = functools.partial(_long_words, one=_int_one)
"""``words[bit >> 6] |= 1 << bit``: the reference's words, each bit's value as :func:`_int_one` has it."""


class LongArrayIntShift(ReferenceCursor):
    """The long array (field 6) built with ``1 << bit`` instead of ``1L << bit``: an entry id whose bit in
    its word is 32 or more is written as another entry's (or, at 31 and 63, as 33 of them).

    Breaks CURSOR-WRITES (the write is not the spec's ``PositionInfo``) and, once recovered from,
    CURSOR-NO-ACK-LOSS and CURSOR-NO-PHANTOM-ACK; below bit 31 of a word it is the reference.
    """

    def _encode(self, state: Snapshot) -> bytes:
        return write(state, self.caps, long_words=_int_shift_words)


class RecoverRollsBack(ReferenceCursor):
    """Recovery from a cursor ledger starts from the metadata store's mark-delete position."""

    def _from_ledger(self, ledger_id: int, record: Snapshot) -> Snapshot | None:
        found = super()._from_ledger(ledger_id, record)
        if found is not None:
            found.mark_delete = min(found.mark_delete, record.mark_delete)
        return found


class MarkDeleteStopsAtPosition(ReferenceCursor):
    """A mark-delete stops at the position given, leaving the acknowledged run right after it (the old spec's C6)."""

    def mark_delete_to(self, position: Position) -> None:
        if position > self.mark_delete:
            self._forget_at_most(position)
            self._marked({})


class SetsDroppedAtMarkDelete(ReferenceCursor):
    """The batch sets a mark-delete covers go at once, not when its persist completes (the spec before C7)."""

    def _forget_at_most(self, position: Position) -> None:
        super()._forget_at_most(position)
        self.unacked_indexes = {p: s for p, s in self.unacked_indexes.items() if p > self.mark_delete}


class FirstWriteIsThePersist(ReferenceCursor):
    """A new cursor ledger's first write carries the waiting persist, not ``lastMarkDeleteEntry`` (before C7)."""

    def persist(self, value: int, callback: Callback) -> None:
        if self.state is State.NO_LEDGER:
            self.last_entry = (self.mark_delete, {"p": value})
        super().persist(value, callback)


class FallbackAsAsked(ReferenceCursor):
    """The metadata-store fallback writes the ranges held when the persist was asked for (before C7)."""

    def _after_ledger_write(self, entry: Entry, callback: Callback) -> Callback:
        asked = self.snapshot()
        fallback = super()._after_ledger_write(entry, callback)

        def done(ok: bool) -> None:
            held = self.acked, self.unacked_indexes
            self.acked, self.unacked_indexes = asked.acked, asked.unacked_indexes
            try:
                fallback(ok)
            finally:
                self.acked, self.unacked_indexes = held

        return done


class RolloverSettles(ReferenceCursor):
    """A rollover's first write settles the batch sets a mark-delete covered, as only a persist's completion does."""

    def _new_ledger(self, rollover: Callback | None) -> None:
        if rollover is None:
            return super()._new_ledger(None)
        first = self.last_entry

        def settled(ok: bool) -> None:
            if ok:
                self._persisted(first)
            rollover(ok)

        return super()._new_ledger(settled)


class CursorMutant(ReferenceMutant):
    """A named mutant of one profile's reference cursor."""

    reference = CursorStateAdapter
    slot = "cursor_class"

    @property
    def cursor_class(self) -> type:
        """The mutant class the adapter builds."""
        return self.replacement


CURSOR_MUTANTS: tuple[CursorMutant, ...] = (
    *CursorMutant.each(
        "pip381",
        FooterFirst,
        CallbackOnFirstChunk,
        ChunkShort,
        WalkBackStopsEarly,
        CompressionIgnoredOnRead,
        BitsCapIncluding,
        PointerNotSwitched,
    ),
    *CursorMutant.each(
        "pulsar-master",
        ReadsFirstEntry,
        RangeCapPlusOne,
        MetastoreWithoutRanges,
        CallbackTwice,
        BatchBitsInverted,
        RecoverRollsBack,
        PointerNotSwitched,
    ),
    *CursorMutant.each("pip381", MarkDeleteStopsAtPosition),
    *CursorMutant.each("pulsar-master", MarkDeleteStopsAtPosition, SetsDroppedAtMarkDelete),
    *CursorMutant.each("pip381", FirstWriteIsThePersist),
    *CursorMutant.each("pulsar-master", FallbackAsAsked, RolloverSettles, LongArrayIntShift),
)
"""Named ``<profile>-<class in kebab case>``, in the order the kill matrix lists them."""
