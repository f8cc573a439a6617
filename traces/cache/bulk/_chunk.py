"""A chunk of one broker's events as numpy columns: what every check reads, from a trace or a step.

The trace engines build chunks from Arrow batches (``traces/cache/_replay.py``); the conformance monitor
builds one per step from the events it derives (:func:`chunk_from_events`). Integer columns hold
:data:`NULL` for a missing value, ``value`` holds NaN; ``kind`` and ``reason`` are codes
(``_events.KINDS``, ``_events.reason_code``), ``cursor`` is an index into ``cursor_names``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from ledgerspec.spec.cache._events import KINDS, reason_code

NULL = -(2**63)
"""A missing integer (Arrow nulls are filled with it)."""

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

INT_FIELDS = ("seq", "time", "row", "ledger", "entry", "size", "count", "timestamp", "copy", "result")
"""The integer columns, besides the codes ``kind``, ``reason`` and ``cursor``."""


@dataclass
class Chunk:
    """Consecutive events of one broker, in ``seq`` order, as columns of equal length."""

    kind: Ints
    seq: Ints
    time: Ints
    row: Ints
    ledger: Ints
    entry: Ints
    size: Ints
    count: Ints
    timestamp: Ints
    copy: Ints
    result: Ints
    reason: Ints
    cursor: Ints
    value: Floats
    cursor_names: Sequence[str] = ()
    label: str | None = None
    """The operation that produced every event of the chunk, when known (the monitor's step)."""

    def __len__(self) -> int:
        return len(self.kind)

    def of_kinds(self, *kinds: int) -> Bools:
        """Per event: whether its kind is one of ``kinds`` (a table lookup, cheaper than ``np.isin``)."""
        return _kind_table(kinds)[self.kind]

    def part(self, start: int, stop: int) -> Chunk:
        """Events ``start:stop`` (views, no copy)."""
        return Chunk(
            **{name: getattr(self, name)[start:stop] for name in _ARRAYS},
            cursor_names=self.cursor_names,
            label=self.label,
        )


_ARRAYS = ("kind", *INT_FIELDS, "reason", "cursor", "value")


@functools.cache
def _kind_table(kinds: tuple[int, ...]) -> Bools:
    table = np.zeros(len(KINDS), np.bool_)
    table[list(kinds)] = True
    return table


def chunk_from_events(events: Sequence[dict[str, Any]], *, first_seq: int = 1, label: str | None = None) -> Chunk:
    """A chunk from event dicts (kind names, field values or absent/None), numbered from ``first_seq``.

    ``seq`` and ``row`` are taken from the events when present, else counted from ``first_seq``.
    """
    n = len(events)
    columns: dict[str, Any] = {name: np.full(n, NULL, np.int64) for name in INT_FIELDS}
    kinds = np.empty(n, np.int64)
    reasons = np.full(n, -1, np.int64)
    cursors = np.full(n, -1, np.int64)
    values = np.full(n, np.nan)
    names: dict[str, int] = {}
    for i, event in enumerate(events):
        kinds[i] = KINDS[event["kind"]].code
        for name in INT_FIELDS:
            value = event.get(name)
            if value is not None:
                columns[name][i] = int(value)
        if columns["seq"][i] == NULL:
            columns["seq"][i] = first_seq + i
        if columns["row"][i] == NULL:
            columns["row"][i] = columns["seq"][i] - 1
        reason = event.get("reason")
        if reason is not None:
            reasons[i] = reason_code(int(kinds[i]), reason)
        cursor = event.get("cursor")
        if cursor is not None:
            cursors[i] = names.setdefault(cursor, len(names))
        value = event.get("value")
        if value is not None:
            values[i] = float(value)
    return Chunk(
        kind=kinds,
        reason=reasons,
        cursor=cursors,
        value=values,
        cursor_names=list(names),
        label=label,
        **columns,
    )


__all__ = ["INT_FIELDS", "NULL", "Bools", "Chunk", "Floats", "Ints", "chunk_from_events"]
