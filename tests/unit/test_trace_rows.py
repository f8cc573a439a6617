"""The vectorized row checks (traces/cache/_rows.py) flag every bad row and, on a valid trace, next to none."""

from __future__ import annotations

import pyarrow as pa
from ledgerspec.traces.cache._format import READ_SCHEMA, event
from ledgerspec.traces.cache._rows import row_problem, suspect_rows


def _batch(*events: dict) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([event(**e) for e in events], schema=READ_SCHEMA)


def test_a_null_reason_is_no_suspect_and_an_unknown_one_is():
    base = {"broker": "b", "time": 1, "ledger": 1, "entry": 1}
    batch = _batch(
        {**base, "seq": 1, "kind": "miss"},
        {**base, "seq": 2, "kind": "miss", "reason": "range"},
        {**base, "seq": 3, "kind": "miss", "reason": "no-such-reason"},
    )
    # A miss without a reason is valid (row_problem accepts it), so checking it one by one was
    # wasted work: on a generated trace, most of a batch's row-check time.
    assert [row_problem(batch.slice(i, 1).to_pylist()[0]) is None for i in range(3)] == [True, True, False]
    assert suspect_rows(batch) == [2]
