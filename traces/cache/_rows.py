"""Row checks: what every event must satisfy on its own, whichever engine reads it.

One implementation for both checkers: :func:`suspect_rows` flags, vectorized over a batch, every row
that may fail a check; :func:`row_problem` decides on each suspect, in the order of :data:`CHECKS`;
:func:`describe_problem` words it. The local checker raises on the first bad row of a batch
(:func:`check_batch`); the Spark checker does the same per broker, beside its order checks. The order
checks (``seq`` strictly up, ``time`` never down, per broker in file order) need the broker's previous
row, so each engine runs them where it has it; :func:`order_problem` and the two last :data:`CHECKS`
are theirs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ledgerspec.spec import ConfigError
from ledgerspec.spec.cache import CacheConfig
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.cache._format import COLUMNS, CONFIG_FIELDS, CONFIG_INT_FIELDS, KINDS

NON_NEGATIVE = ("time", "ledger", "entry", "size", "copy")
INT64_MAX = 2**63 - 1
_DEFAULTS = CacheConfig()


def _checks() -> list[tuple[str, ...]]:
    """Every row check, in the order :func:`row_problem` tries them; a check's index is its problem code."""
    checks: list[tuple[str, ...]] = [("null", column) for column in ("broker", "seq", "time", "kind")]
    checks.append(("kind",))
    checks += [("negative", column) for column in NON_NEGATIVE]
    for kind in KINDS.values():
        checks += [("required", kind.name, name) for name in kind.required]
        if kind.reasons:
            checks.append(("reason", kind.name))
    checks.append(("config",))
    checks.append(("config-value",))
    checks.append(("seq",))
    checks.append(("time",))
    return checks


CHECKS = _checks()
CODES = {check: code for code, check in enumerate(CHECKS)}


_KIND_LIST = list(KINDS.values())
_KIND_NAMES = pa.array([kind.name for kind in _KIND_LIST])
_REQUIRED_BY = {
    name: np.array([name in kind.required for kind in _KIND_LIST] + [False])
    for name in COLUMNS
    if any(name in kind.required for kind in _KIND_LIST)
}
"""Per column, indexed by kind code (the last slot: an unknown kind), whether the kind requires it."""
_REASON_NAMES = pa.array(sorted({reason for kind in _KIND_LIST for reason in kind.reasons}), pa.string())
_BAD_REASON = np.array(
    [[bool(k.reasons) and name not in k.reasons for name in [None, *_REASON_NAMES.to_pylist()]] for k in _KIND_LIST]
    + [[False] * (len(_REASON_NAMES) + 1)]
)
"""Indexed by kind code and reason code + 1 (0: a reason of no kind's), whether a given reason is not the kind's."""
_CONFIG = [kind.name for kind in _KIND_LIST].index("config")


def row_problem(values: dict[str, Any]) -> int | None:  # noqa: C901, PLR0911 - one return per row check, in the order FORMAT.md lists them
    """The code of the first row check (in :data:`CHECKS` order) the row fails, or None.

    The row's values as Python objects (None for null); the order is :data:`CHECKS`: nulls in the
    key columns, an unknown kind, negative ids and sizes, then the fields the kind requires, its
    reason, and a config event's field.
    """
    for name in ("broker", "seq", "time", "kind"):
        if values[name] is None:
            return CODES["null", name]
    kind = KINDS.get(values["kind"])
    if kind is None:
        return CODES["kind",]
    for name in NON_NEGATIVE:
        if values[name] is not None and values[name] < 0:
            return CODES["negative", name]
    for name in kind.required:
        if values[name] is None:
            return CODES["required", kind.name, name]
    reason = values["reason"]
    if kind.reasons and reason is not None and reason not in kind.reasons:
        return CODES["reason", kind.name]
    if kind.name == "config":
        if reason not in CONFIG_FIELDS:
            return CODES["config",]
        if config_value_problem(reason, values["value"]) is not None:
            return CODES["config-value",]
    return None


def config_value_problem(name: str, value: float) -> str | None:
    """Why a config event's ``value`` cannot be the new value of field ``name`` (None if it can).

    Finite, and what ``CacheConfig`` accepts for the field: a whole number >= 0 for the sizes, times
    and counts, a fraction for the watermark, 1.0 or 0.0 for ``extend_ttl`` and ``track_reads``. Checked per
    row, so a bad value is bad input naming its row, never an error inside the replay.
    """
    if name in ("extend_ttl", "track_reads"):
        return None if value in {0.0, 1.0} else f"expected 1.0 or 0.0 for {name}, got {value!r}"
    typed: float | int = value
    if name in CONFIG_INT_FIELDS and math.isfinite(value) and value.is_integer():
        typed = int(value)
        if typed > INT64_MAX:
            return f"expected an int <= {INT64_MAX} for {name}, got {value!r}"
    try:
        _DEFAULTS.replace(**{name: typed})
    except ConfigError as error:
        return str(error)
    return None


def order_problem(seq: int, time: int, previous: tuple[int, int] | None) -> int | None:
    """The order check a broker's row fails after its previous row's (seq, time), or None."""
    if previous is None:
        return None
    if seq <= previous[0]:
        return CODES["seq",]
    if time < previous[1]:
        return CODES["time",]
    return None


def codes_in(column: pa.Array | pa.ChunkedArray, names: pa.Array) -> np.ndarray:
    """Per row, the index of its string in ``names`` (int64; -1 for null or not there); strings or a dictionary.

    A dictionary is looked up once per value of its dictionary, then per row by index: a tenth of
    the time ``pc.index_in`` takes over the rows.
    """
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if not pa.types.is_dictionary(column.type):
        return np.asarray(pc.index_in(column, value_set=names).fill_null(-1).to_numpy(), dtype=np.int64)
    lookup = np.append(pc.index_in(column.dictionary, value_set=names).fill_null(-1).to_numpy(), -1)
    indices = column.indices.fill_null(-1) if column.null_count else column.indices
    return np.asarray(lookup[indices.to_numpy()], dtype=np.int64)


def suspect_rows(batch: pa.RecordBatch) -> list[int]:
    """The rows of a batch that may fail a row check, in order: every row that does, and maybe more.

    Vectorized (pyarrow and numpy over the whole batch); :func:`row_problem` then decides on each
    suspect, so only rows that really fail a check are reported. In a valid trace there are none.
    """
    flag = np.zeros(batch.num_rows, bool)
    for name in ("broker", "seq", "time", "kind"):
        if batch.column(name).null_count:
            flag |= _mask(pc.is_null(batch.column(name)))
    codes = codes_in(batch.column("kind"), _KIND_NAMES)
    codes[codes < 0] = len(_KIND_LIST)
    flag |= codes == len(_KIND_LIST)
    for name in NON_NEGATIVE:
        least = pc.min(batch.column(name)).as_py()
        if least is not None and least < 0:
            flag |= _mask(pc.less(batch.column(name), 0))
    for name, required in _REQUIRED_BY.items():
        if batch.column(name).null_count:
            flag |= required[codes] & _mask(pc.is_null(batch.column(name)))
    flag |= codes == _CONFIG  # rare events, each value checked by row_problem
    reason = batch.column("reason")
    if reason.null_count < len(reason):  # a null reason is allowed: only a given one must be known
        bad = _BAD_REASON[codes, codes_in(reason, _REASON_NAMES) + 1]
        flag |= bad & _mask(pc.is_valid(reason)) if reason.null_count else bad
    return np.flatnonzero(flag).tolist()


def _mask(array: pa.Array) -> np.ndarray:
    """A boolean Arrow array as numpy, null as False."""
    mask: np.ndarray = array.fill_null(False).to_numpy(zero_copy_only=False)
    return mask


def describe_problem(code: int, values: dict[str, Any]) -> str:  # noqa: PLR0911 - one message per row check
    """The local checker's message for a row failing check ``code`` (without the file name)."""
    check, row = CHECKS[code], values["row"]
    if check[0] == "null":
        return f"row {row}: field {check[1]!r} is null"
    if check[0] == "kind":
        return f"row {row}: field 'kind': unknown event kind {values['kind']!r}"
    if check[0] == "negative":
        return f"row {row}: field {check[1]!r} is negative ({values[check[1]]})"
    if check[0] == "required":
        return f"row {row}: field {check[2]!r} is required for {check[1]!r}"
    if check[0] == "reason":
        reasons = ", ".join(KINDS[check[1]].reasons)
        return f"row {row}: field 'reason': {values['reason']!r} is not one of {reasons} for {check[1]!r}"
    if check[0] == "config":
        return f"row {row}: field 'reason': config field {values['reason']!r} is not one of {', '.join(CONFIG_FIELDS)}"
    if check[0] == "config-value":
        return f"row {row}: field 'value': {config_value_problem(values['reason'], values['value'])}"
    if check[0] == "time":
        return (
            f"row {row}: field 'time': {values['time']} goes back from {values['prev_time']} "
            f"for broker {values['broker']!r}"
        )
    seq, previous = values["seq"], values["prev"]
    what = "repeats" if seq == previous else "goes back from"
    return f"row {row}: field 'seq': {seq} {what} {previous} for broker {values['broker']!r}"


def row_values(batch: pa.RecordBatch, index: int) -> dict[str, Any]:
    """One row of a batch as Python values."""
    return {name: batch.column(name)[index].as_py() for name in batch.schema.names}


def check_batch(batch: pa.RecordBatch, first_row: int, where: str) -> None:
    """Raise a :class:`TraceInputError` for the first bad row of a batch, naming its row and field.

    Seq order is per broker and spans batches; the replay checks it (``_local`` / ``_spark``).
    """
    for index in suspect_rows(batch):
        values = row_values(batch, index)
        code = row_problem(values)
        if code is not None:
            values["row"] = first_row + index
            raise TraceInputError(f"{where}: {describe_problem(code, values)}")
