"""The local checker reads Parquet's string columns as dictionaries: what it makes of them equals the strings'.

A dictionary read from a file holds each value once, but an Arrow dictionary may repeat a value or
hold unused ones (its indices then differ for one string). The batches below have such dictionaries;
every reader of the string columns must see through them.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.traces.cache._format import READ_SCHEMA, event
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._local import split_by_broker
from ledgerspec.traces.cache._rows import codes_in, suspect_rows


def _messy(column: pa.Array) -> pa.Array:
    """``column`` as a dictionary array with an unused value and every value twice, both copies in use."""
    if column.null_count == len(column):
        return column.cast(pa.dictionary(pa.int32(), pa.string()))
    values = pc.unique(column.drop_null()).to_pylist()
    dictionary = ["unused-value", *values, *values]
    first = {value: 1 + i for i, value in enumerate(values)}
    indices = pa.array(
        [None if v is None else first[v] + (row % 2) * len(values) for row, v in enumerate(column.to_pylist())],
        pa.int32(),
    )
    return pa.DictionaryArray.from_arrays(indices, pa.array(dictionary, pa.string()))


def _dictionary_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
    names = batch.schema.names
    columns = [_messy(batch.column(n)) if batch.schema.field(n).type == pa.string() else batch.column(n) for n in names]
    return pa.RecordBatch.from_arrays(columns, names=names)


def _mixed_batch(tmp_path) -> pa.RecordBatch:
    """Several brokers' events interleaved, with cursors, passes and reasons (a generated trace, shuffled by broker)."""
    path = tmp_path / "t.parquet"
    generate_trace(path, events=3000, brokers=3, seed=7)
    table = pa.Table.from_batches([batch for _, batch in open_trace(path).batches()])
    order = np.argsort(np.arange(len(table)) % 7, kind="stable")  # keeps each broker's rows in order
    return table.take(pa.array(order)).combine_chunks().to_batches()[0].cast(READ_SCHEMA)


def test_codes_in_reads_a_dictionary_by_its_strings():
    column = pa.array(["b", None, "a", "zz", "b", "a"])
    names = pa.array(["a", "b"])
    assert codes_in(column, names).tolist() == [1, -1, 0, -1, 1, 0]
    assert codes_in(_messy(column), names).tolist() == [1, -1, 0, -1, 1, 0]


def test_split_by_broker_and_the_row_checks_agree_on_strings_and_dictionaries(tmp_path):
    strings = _mixed_batch(tmp_path)
    dictionaries = _dictionary_batch(strings)
    assert pa.types.is_dictionary(dictionaries.schema.field("cursor").type)
    assert suspect_rows(dictionaries) == suspect_rows(strings)
    shares = []
    for workers, index in ((1, 0), (2, 0), (2, 1)):
        plain = list(split_by_broker(strings, 100, index, workers))
        read = list(split_by_broker(dictionaries, 100, index, workers))
        assert [broker for broker, _ in read] == [broker for broker, _ in plain]
        shares.append(sum(len(chunk) for _, chunk in read))
        for (_, a), (_, b) in zip(plain, read, strict=True):
            for name in ("kind", "reason", "seq", "row", "ledger", "entry", "count"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
            named = [[c.cursor_names[k] if k >= 0 else None for k in c.cursor.tolist()] for c in (a, b)]
            assert named[0] == named[1]
            assert any(name is not None for name in named[0])
    assert shares[0] == shares[1] + shares[2] == len(strings)  # every row, by one process of two
    assert len({broker for broker, _ in split_by_broker(dictionaries, 0)}) == 3  # no unused or repeated name


def test_a_bad_kind_or_reason_is_suspect_in_a_dictionary_too():
    base = {"broker": "b", "time": 1, "ledger": 1, "entry": 1}
    rows = [
        {**base, "seq": 1, "kind": "miss", "reason": "range"},
        {**base, "seq": 2, "kind": "no-such-kind"},
        {**base, "seq": 3, "kind": "miss", "reason": "no-such-reason"},
    ]
    batch = pa.RecordBatch.from_pylist([event(**e) for e in rows], schema=READ_SCHEMA)
    assert suspect_rows(_dictionary_batch(batch)) == suspect_rows(batch) == [1, 2]
