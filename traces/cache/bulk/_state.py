"""What the replay of one broker carries from one segment of events to the next: its shadow of the cache.

Three tables, each sorted by its key and holding only what is live, so memory is bounded by the live
entries, the open copies and the handlers they share, never by the length of the trace:

* :class:`LiveTable`: the cached entries, with size, queue timestamp, queue rank (``enter``), handler,
  requeues since the insert (and whether that number is exact), and whether a read came since the
  entry last entered the queue;
* :class:`Handlers`: read-count handlers by id (the global index of the insert that made them), with
  their count and the position they were made for;
* :class:`Copies`: open dispatched copies, with the handler they share (``-1``: none).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from ledgerspec.traces.cache.bulk._chunk import Bools, Ints

NARROW_LEDGER, NARROW_ENTRY = (1 << 31) - 1, 1 << 32
"""A position is keyed ``ledger << 32 | entry`` when ledger and entry are below these (else a negative id).

Ledger 2^31 - 1 is wide too: the end of a narrow ledger's run of keys, ``(ledger + 1) << 32``, must be an
int64 (2^63 is not, and numpy compares it as a float, which rounds the ledger's last keys up to it).
"""


def _ints(values: Any = ()) -> Ints:
    return np.asarray(values, dtype=np.int64)


def _bools(values: Any = ()) -> Bools:
    return np.asarray(values, dtype=np.bool_)


def find(sorted_keys: Ints, keys: Ints) -> tuple[Bools, Ints]:
    """For each of ``keys``: whether it is in ``sorted_keys``, and its index there (clipped when absent)."""
    at = np.searchsorted(sorted_keys, keys)
    np.minimum(at, max(len(sorted_keys) - 1, 0), out=at)
    found = sorted_keys[at] == keys if len(sorted_keys) else np.zeros(len(keys), np.bool_)
    return found, at.astype(np.int64)


@dataclass
class LiveTable:
    """The cached entries, sorted by key."""

    key: Ints
    ledger: Ints
    entry: Ints
    size: Ints
    ts: Ints
    enter: Ints
    handler: Ints
    requeues: Ints
    exact: Bools
    accessed: Bools

    @classmethod
    def empty(cls) -> LiveTable:
        """No entries."""
        none = _ints()
        return cls(none, none, none, none, none, none, none, none, _bools(), _bools())

    def __len__(self) -> int:
        return len(self.key)

    def take(self, index: Ints | Bools | slice) -> LiveTable:
        """The rows at ``index`` (indices, a mask, or a slice: views)."""
        return LiveTable(**{f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)})

    def updated(self, touched: Ints, rows: LiveTable) -> LiveTable:
        """The table without the ``touched`` keys (sorted), plus ``rows`` (their live final states)."""
        if len(touched):
            gone, _ = find(touched, self.key)
            kept = self.take(~gone)
        else:
            kept = self
        if not len(rows):
            return kept
        merged = LiveTable(
            **{f.name: np.concatenate((getattr(kept, f.name), getattr(rows, f.name))) for f in dataclasses.fields(self)}
        )
        return merged.take(np.argsort(merged.key, kind="stable"))


@dataclass
class Handlers:
    """Live read-count handlers, sorted by id."""

    hid: Ints
    count: Ints
    ledger: Ints
    entry: Ints

    @classmethod
    def empty(cls) -> Handlers:
        """No handlers."""
        return cls(_ints(), _ints(), _ints(), _ints())

    def take(self, index: Ints | Bools) -> Handlers:
        """The rows at ``index``."""
        return Handlers(self.hid[index], self.count[index], self.ledger[index], self.entry[index])

    def updated(self, rows: Handlers, referenced: Ints) -> Handlers:
        """``rows`` replace or add handlers by id; only the ``referenced`` ids are kept."""
        if len(rows.hid):
            replaced, _ = find(np.sort(rows.hid), self.hid)
            base = self.take(~replaced)
            merged = Handlers(
                np.concatenate((base.hid, rows.hid)),
                np.concatenate((base.count, rows.count)),
                np.concatenate((base.ledger, rows.ledger)),
                np.concatenate((base.entry, rows.entry)),
            )
            merged = merged.take(np.argsort(merged.hid, kind="stable"))
        else:
            merged = self
        wanted = np.unique(referenced[referenced >= 0])
        found, _ = find(wanted, merged.hid)
        return merged.take(found)


@dataclass
class Copies:
    """Open copies, sorted by id, with the handler each shares (-1: none)."""

    copy: Ints
    handler: Ints

    @classmethod
    def empty(cls) -> Copies:
        """No copies."""
        return cls(_ints(), _ints())

    def updated(self, touched: Ints, copies: Ints, handlers: Ints) -> Copies:
        """Without the ``touched`` copies (sorted), plus ``copies`` (now open) with their ``handlers``."""
        if len(touched):
            gone, _ = find(touched, self.copy)
            copy, handler = self.copy[~gone], self.handler[~gone]
        else:
            copy, handler = self.copy, self.handler
        copy, handler = np.concatenate((copy, copies)), np.concatenate((handler, handlers))
        order = np.argsort(copy, kind="stable")
        return Copies(copy[order], handler[order])


__all__ = ["NARROW_ENTRY", "NARROW_LEDGER", "Copies", "Handlers", "LiveTable", "find"]
