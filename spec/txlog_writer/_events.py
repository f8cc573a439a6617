"""The txlog-writer history's event kinds (trace vocabulary version 1): operations in, answers out.

Each operation of ``_ops.py`` is one input kind (``clock`` is ``Tick``: the virtual clock, which the
``time`` column follows); what the writer did in answer follows it: a ``flush`` (with its trigger)
and the ``entry_write`` it handed to the managed ledger, and each record's ``callback`` (its position,
or an error). apache/pulsar ``TxnLogBufferedWriter.java`` at d2beb06e21 (``asyncAddData``,
``doFlush``, ``addComplete`` / ``addFailed``, ``close``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ledgerspec.spec._history import (
    END_KIND,
    INPUT,
    OUTPUT,
    EventKind,
    Vocabulary,
    integer_problem,
    row,
    unrepresentable,
)
from ledgerspec.spec.txlog_writer._ops import Add, Close, Complete, Fail, Metrics, Tick, WriterOp


def counters_problem(value: Any, path: str = "data") -> str | None:
    """Why the metrics read (parsed from JSON) are not counters: an object of integers (``delay`` may be null).

    A boolean is no integer (``true == 1`` in Python); which counters there are, the check compares.
    """
    if not isinstance(value, dict):
        return f"{path}: want an object of counters"
    return next(
        (
            problem
            for name, count in value.items()
            if not (name == "delay" and count is None) and (problem := integer_problem(count, f"{path}.{name}"))
        ),
        None,
    )


_KINDS = (
    EventKind(
        "add",
        INPUT,
        ("size",),
        ("record",),
        "`asyncAddData` of a record of `size` bytes; `record` its number (1, 2, ...), informational",
    ),
    EventKind(
        "clock",
        INPUT,
        ("by",),
        (),
        "the virtual clock moved `by` ticks (the row's `time` is the new time); timers due meanwhile fired",
    ),
    EventKind("write_complete", INPUT, (), (), "the managed ledger confirmed the oldest outstanding entry"),
    EventKind("write_failed", INPUT, (), (), "the managed ledger failed the oldest outstanding entry"),
    EventKind("close", INPUT, (), (), "`close()`"),
    EventKind(
        "metrics",
        INPUT,
        ("data",),
        (),
        "the metrics were read: `data` the counters as JSON (each trigger's "
        "count, and `records`, `bytes`, `delay` summed over flushed batches)",
        data=counters_problem,
    ),
    EventKind(
        "flush",
        OUTPUT,
        (),
        ("trigger", "batched"),
        "a flush: `trigger` `max_records`, `max_size`, "
        "`max_delay`, `large_data`, or null for a record written unbatched; its `entry_write` follows",
    ),
    EventKind(
        "entry_write",
        OUTPUT,
        ("entry", "records"),
        ("bytes",),
        (
            "the flush's entry handed to the managed ledger: its number (0, 1, ...), its records in order; "
            "`bytes`, their sizes summed, informational (not judged)"
        ),
    ),
    EventKind(
        "callback",
        OUTPUT,
        ("record",),
        ("entry", "count", "index", "error"),
        "record `record`'s callback: "
        "its position (`entry`; batched: `count` records, `index` in the entry), or failed when `error` is set",
    ),
)
KINDS: dict[str, EventKind] = {kind.name: kind for kind in (*_KINDS, END_KIND)}
_RESULTS = ("flush", "entry_write", "callback")
OUTPUTS_OF = dict.fromkeys(("add", "clock", "write_complete", "write_failed", "close"), _RESULTS)
_INPUT_OF: dict[type[WriterOp], str] = {
    Add: "add",
    Tick: "clock",
    Complete: "write_complete",
    Fail: "write_failed",
    Close: "close",
    Metrics: "metrics",
}
_OPS = {kind: op for op, kind in _INPUT_OF.items()}


def _outputs(op: WriterOp, result: Any, sizes: Mapping[int, int]) -> list[dict[str, Any]]:
    if not isinstance(result, list):
        raise unrepresentable(op, result)
    rows = []
    for item in result:
        if isinstance(item, list) and len(item) == 5 and item[0] == "write" and isinstance(item[2], list):
            _, entry, records, batched, trigger = item
            rows.append(row("flush", trigger=trigger, batched=batched))
            rows.append(row("entry_write", entry=entry, records=records, bytes=sum(sizes.get(r, 0) for r in records)))
        elif isinstance(item, list) and len(item) == 5 and item[0] == "done":
            rows.append(row("callback", record=item[1], entry=item[2], count=item[3], index=item[4]))
        elif isinstance(item, list) and len(item) == 2 and item[0] == "failed":
            rows.append(row("callback", record=item[1], error="failed"))
        else:
            raise unrepresentable(op, result)
    return rows


def events(op: WriterOp, result: Any, sizes: Mapping[int, int]) -> list[dict[str, Any]]:
    """The rows of one operation and the writer's answer to it, input first."""
    if isinstance(op, Metrics):
        if not isinstance(result, dict):
            raise unrepresentable(op, result)
        return [row("metrics", data=json.dumps(result))]
    fields = {"size": op.size, "record": len(sizes) + 1} if isinstance(op, Add) else {}
    if isinstance(op, Tick):
        fields = {"by": op.by}
    known = {**sizes, len(sizes) + 1: op.size} if isinstance(op, Add) else sizes  # an add may write itself
    return [row(_INPUT_OF[type(op)], **fields), *_outputs(op, result, known)]


def operation(event: dict[str, Any]) -> WriterOp:
    """The operation of an input row."""
    kind = event["kind"]
    if kind == "add":
        return Add(size=event["size"])
    if kind == "clock":
        return Tick(by=event["by"])
    op: WriterOp = _OPS[kind]()
    return op


def result(event: dict[str, Any], outputs: list[dict[str, Any]], recorded: frozenset[str]) -> Any:
    """The writer's answer, rebuilt from the input row and the output rows after it.

    A ``flush`` and its ``entry_write`` make one write; a trace that records only one of the two
    gives the other's fields as null (the invariants that read them are then UNKNOWN).
    """
    if event["kind"] == "metrics":
        return json.loads(event["data"])
    answer: list[list[Any]] = []
    flush: dict[str, Any] | None = None
    for out in outputs:
        if out["kind"] == "flush":
            flush = out
            if "entry_write" not in recorded:
                answer.append(["write", None, [], out.get("batched"), out.get("trigger")])
        elif out["kind"] == "entry_write":
            batched, trigger = (flush.get("batched"), flush.get("trigger")) if flush else (None, None)
            answer.append(["write", out["entry"], list(out["records"]), batched, trigger])
            flush = None
        elif out.get("error") is not None:
            answer.append(["failed", out["record"]])
        else:
            answer.append(["done", out["record"], out.get("entry"), out.get("count"), out.get("index")])
    return answer


VOCABULARY = Vocabulary(
    "txlog-writer",
    1,
    KINDS,
    OUTPUTS_OF,
    events,
    operation,
    result,
    clocked=True,
    pairs={"flush": "entry_write"},
    clock=lambda op: op.by if isinstance(op, Tick) else 0,
    size=lambda op: op.size if isinstance(op, Add) else None,
)
