"""The trace side of the replay: Arrow batches of one broker's events, as the spec's checks read them.

Both trace checkers run one :class:`BrokerReplay` per broker over its events in ``seq`` order: the
replay of ``spec/cache/invariants`` that the conformance monitor runs on the events it derives, so a
trace is judged by the same check as a live candidate. This module only turns Arrow into its
columns (:func:`chunk_of`): integers as int64 with nulls as :data:`NULL` (no copy where a column has
no nulls), kinds and reasons as codes, cursors as a per-batch dictionary.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.spec.cache import CacheConfig
from ledgerspec.spec.cache._events import CONFIG, CONFIG_FIELDS, KIND_NAMES, KINDS, MISS, PASS_KINDS
from ledgerspec.spec.cache.invariants import CATALOGUE
from ledgerspec.traces.cache._rows import codes_in
from ledgerspec.traces.cache.bulk import Finding, Replay, TraceStructureError
from ledgerspec.traces.cache.bulk._chunk import INT_FIELDS, NULL, Chunk, Ints

_KINDS = pa.array(KIND_NAMES)
_PASSES = pa.array(PASS_KINDS)
_FIELDS = pa.array(CONFIG_FIELDS)
_MISS_REASONS = pa.array(KINDS["miss"].reasons)


def _ints(column: pa.Array | pa.ChunkedArray) -> Ints:
    if column.type != pa.int64():
        column = column.cast(pa.int64())
    if column.null_count:
        column = column.fill_null(NULL)
    return np.asarray(column.to_numpy(), dtype=np.int64)


def chunk_of(batch: pa.RecordBatch | pa.Table, rows: Ints | None = None) -> Chunk:
    """The events of ``batch`` (one broker's, in seq order) as a chunk; ``rows``: their row numbers.

    Without ``rows`` the batch's ``row`` column gives them (the Spark checker adds it).
    """
    kinds = codes_in(batch.column("kind"), _KINDS)
    reason = batch.column("reason")
    if reason.null_count == len(reason):
        reasons = np.full(len(kinds), -1, np.int64)
    else:
        reasons = codes_in(reason, _PASSES)
        for kind, names in ((CONFIG, _FIELDS), (MISS, _MISS_REASONS)):  # other vocabularies, where present
            of_kind = kinds == kind
            if of_kind.any():
                reasons = np.where(of_kind, codes_in(reason, names), reasons)
    cursor = batch.column("cursor")
    if cursor.null_count == len(cursor):
        cursors, names = np.full(len(kinds), -1, np.int64), []
    else:
        if isinstance(cursor, pa.ChunkedArray):
            cursor = cursor.combine_chunks()
        encoded = cursor if pa.types.is_dictionary(cursor.type) else pc.dictionary_encode(cursor)
        cursors = np.asarray(encoded.indices.cast(pa.int64()).fill_null(-1), dtype=np.int64)
        names = encoded.dictionary.to_pylist()  # may repeat a name or hold unused ones: codes are read by name
    numbers = _ints(batch.column("row")) if rows is None else np.asarray(rows, dtype=np.int64)
    value = batch.column("value")
    values = np.asarray(value.fill_null(np.nan).to_numpy(), dtype=np.float64) if len(value) else np.zeros(0)
    ints = {name: _ints(batch.column(name)) for name in INT_FIELDS if name != "row"}
    return Chunk(
        kind=kinds,
        seq=ints["seq"],
        time=ints["time"],
        row=numbers,
        ledger=ints["ledger"],
        entry=ints["entry"],
        size=ints["size"],
        count=ints["count"],
        timestamp=ints["timestamp"],
        copy=ints["copy"],
        result=ints["result"],
        reason=np.asarray(reasons, dtype=np.int64),
        cursor=cursors,
        value=values,
        cursor_names=names,
    )


class BrokerReplay(Replay):
    """The replay of one broker's events against the invariants with these ids (``trace_invariants``)."""

    def __init__(
        self, broker: str, profile: str, config: CacheConfig, invariants: Iterable[str], *, keep: int = 100
    ) -> None:
        chosen = set(invariants)
        super().__init__(broker, profile, config, [i for i in CATALOGUE if i.id in chosen], keep=keep)


__all__ = ["NULL", "BrokerReplay", "Finding", "TraceStructureError", "chunk_of"]
