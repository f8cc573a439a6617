"""The cursor-state history's event kinds (trace vocabulary version 1): operations in, answers out.

Each operation of ``_ops.py`` is one input kind; a persist and a rollover carry the number the cursor
gave them, BookKeeper's completions are followed by the ``callback`` events they completed, and a
recovery by its ``recovered`` state. ``chunk_write``, ``footer`` and ``meta_update`` are the cursor's
writes (the adds to its ledger and the metadata-store updates), which an adapter with the capability
``writes`` reports after the operation that made them and ``CURSOR-WRITES`` judges (apache/pulsar
``ManagedCursorImpl.java`` at 048142ca, PR #22799: ``persistPositionToLedger``,
``writeToBookKeeperLastChunk``, ``recover``).
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
from ledgerspec.spec.cursor_state._model import Write
from ledgerspec.spec.cursor_state._ops import (
    Ack,
    AckIndex,
    Confirm,
    Crash,
    CursorOp,
    FailAdd,
    FailMeta,
    MarkDelete,
    Persist,
    Recover,
    Rollover,
    Unreadable,
)

_STATE_KEYS = ("mark_delete", "acked", "batch", "properties")


def _position_problem(value: Any, path: str) -> str | None:
    if not (isinstance(value, list) and len(value) == 2):
        return f"{path}: want a position [ledger, entry], got {json.dumps(value)[:60]}"
    return integer_problem(value[0], f"{path}[0]") or integer_problem(value[1], f"{path}[1]")


def _list_problem(value: Any, path: str, item: Any) -> str | None:
    if not isinstance(value, list):
        return f"{path}: want a list, got {json.dumps(value)[:60]}"
    return next((p for i, v in enumerate(value) if (p := item(v, f"{path}[{i}]"))), None)


def _batch_problem(value: Any, path: str) -> str | None:
    if not (isinstance(value, list) and len(value) == 2):
        return f"{path}: want [position, indexes], got {json.dumps(value)[:60]}"
    return _position_problem(value[0], f"{path}[0]") or _list_problem(value[1], f"{path}[1]", integer_problem)


def state_problem(value: Any, path: str = "data") -> str | None:
    """Why a recovered state (``AckState.to_dict``'s form, parsed from JSON) has not that form, naming the path.

    Exactly its four keys; an integer wherever one is expected, never a boolean (``true == 1`` in Python).
    """
    if not isinstance(value, dict):
        return f"{path}: want an object with {', '.join(_STATE_KEYS)}"
    missing = [key for key in _STATE_KEYS if key not in value]
    unknown = [str(key) for key in value if key not in _STATE_KEYS]
    if missing or unknown:
        what = f"lacks {', '.join(missing)}" if missing else f"has the unknown key(s) {', '.join(unknown)}"
        return f"{path}: {what}; a recovered state has {', '.join(_STATE_KEYS)}"
    properties = value["properties"]
    if not isinstance(properties, dict):
        return f"{path}.properties: want an object of integers, got {json.dumps(properties)[:60]}"
    return (
        _position_problem(value["mark_delete"], f"{path}.mark_delete")
        or _list_problem(value["acked"], f"{path}.acked", _position_problem)
        or _list_problem(value["batch"], f"{path}.batch", _batch_problem)
        or next((p for k, v in properties.items() if (p := integer_problem(v, f"{path}.properties.{k}"))), None)
    )


_KINDS = (
    EventKind("ack", INPUT, ("ledger", "entry"), (), "an individual acknowledgement (`asyncDelete`)"),
    EventKind("ack_index", INPUT, ("ledger", "entry", "index"), (), "a batch-index acknowledgement"),
    EventKind("mark_delete", INPUT, ("ledger", "entry"), (), "a cumulative acknowledgement up to the position"),
    EventKind(
        "persist",
        INPUT,
        ("value", "number"),
        (),
        "a persist starts (`internalMarkDelete`, property "
        "`p = value`); `number` is the persist's number as the cursor gave it (1, 2, ...)",
    ),
    EventKind(
        "rollover",
        INPUT,
        (),
        ("number",),
        "a new cursor ledger (`periodicRollover`); `number` the "
        "persist it started, null when the cursor did not roll over",
    ),
    EventKind("write_ack", INPUT, (), (), "BookKeeper acknowledged the oldest outstanding add"),
    EventKind("write_failed", INPUT, (), (), "the oldest outstanding add failed (and every add of its ledger)"),
    EventKind("meta_fail", INPUT, (), (), "the next metadata-store update of the cursor will fail"),
    EventKind(
        "crash", INPUT, ("keep",), (), "the broker died; the first `keep` outstanding adds had reached the bookies"
    ),
    EventKind("unreadable", INPUT, (), (), "the last entry of the cursor ledger can no longer be read"),
    EventKind("recover", INPUT, (), (), "recovery starts; its `recovered` event follows"),
    EventKind(
        "callback",
        OUTPUT,
        ("number",),
        ("error",),
        "persist `number`'s callback completed: success, or failed when `error` is set",
    ),
    EventKind(
        "recovered",
        OUTPUT,
        (),
        ("data", "error"),
        "what recovery gave: `data` the state as JSON "
        "(`mark_delete`, `acked`, `batch`, `properties`), or `error` when it failed",
        one_of=("data", "error"),
        once=True,
        data=state_problem,
    ),
    EventKind(
        "chunk_write",
        OUTPUT,
        ("ledger", "bytes"),
        ("entry", "number"),
        "an add of a chunk (or of the single entry) to the cursor ledger",
    ),
    EventKind("footer", OUTPUT, ("ledger", "bytes"), ("entry", "number"), "(pip381) an add of a footer"),
    EventKind(
        "meta_update",
        OUTPUT,
        ("ledger",),
        ("error",),
        "the metadata store's cursor record was updated (`ledger` -1: the state itself went there), or failed",
    ),
)
KINDS: dict[str, EventKind] = {kind.name: kind for kind in (*_KINDS, END_KIND)}
WRITES = ("chunk_write", "footer", "meta_update")
"""What an adapter with the capability ``writes`` reports, after the operation that made the writes."""
_ADDS = ("chunk_write", "footer")
OUTPUTS_OF = {
    "persist": _ADDS,
    "rollover": _ADDS,
    "write_ack": ("callback", *WRITES),
    "write_failed": ("callback", *WRITES),
    "recover": ("recovered",),
}

_SIMPLE: dict[type[CursorOp], str] = {
    Confirm: "write_ack",
    FailAdd: "write_failed",
    FailMeta: "meta_fail",
    Unreadable: "unreadable",
    Recover: "recover",
}
_OPS: dict[str, Any] = {
    "ack": Ack,
    "ack_index": AckIndex,
    "mark_delete": MarkDelete,
    "persist": Persist,
    "rollover": Rollover,
    "crash": Crash,
    **{kind: op for op, kind in _SIMPLE.items()},
}
_FIELDS = {
    "ack": ("ledger", "entry"),
    "ack_index": ("ledger", "entry", "index"),
    "mark_delete": ("ledger", "entry"),
    "persist": ("value",),
    "crash": ("keep",),
}


def _callbacks(op: CursorOp, result: Any) -> list[dict[str, Any]]:
    if not isinstance(result, list):
        raise unrepresentable(op, result)
    rows = []
    for item in result:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int) and isinstance(item[1], bool)):
            raise unrepresentable(op, result)
        rows.append(row("callback", number=item[0], error=None if item[1] else "failed"))
    return rows


def events(op: CursorOp, result: Any, sizes: Mapping[int, int]) -> list[dict[str, Any]]:  # noqa: ARG001 - one signature for every system
    """The rows of one operation and the cursor's answer to it, input first."""
    if isinstance(op, Persist | Rollover):
        if not (isinstance(result, int) and not isinstance(result, bool)) and not (
            result is None and isinstance(op, Rollover)
        ):
            raise unrepresentable(op, result)
        return [row(op.kind, value=getattr(op, "value", None), number=result)]
    if isinstance(op, Confirm | FailAdd):
        return [row(_SIMPLE[type(op)]), *_callbacks(op, result)]
    if isinstance(op, Recover):
        answer = row("recovered", error="failed") if result == "failed" else row("recovered", data=json.dumps(result))
        return [row("recover"), answer]
    if result is not None:
        raise unrepresentable(op, result)
    if type(op) in _SIMPLE:
        return [row(_SIMPLE[type(op)])]
    return [row(op.kind, **{name: getattr(op, name) for name in _FIELDS[op.kind]})]


def operation(event: dict[str, Any]) -> CursorOp:
    """The operation of an input row."""
    kind = event["kind"]
    op: CursorOp = _OPS[kind](**{name: event[name] for name in _FIELDS.get(kind, ())})
    return op


def result(event: dict[str, Any], outputs: list[dict[str, Any]], recorded: frozenset[str]) -> Any:  # noqa: ARG001 - one signature for every system
    """The cursor's answer, rebuilt from the input row and the output rows after it."""
    kind = event["kind"]
    if kind in ("persist", "rollover"):
        return event.get("number")
    if kind in ("write_ack", "write_failed"):
        return [[out["number"], out.get("error") is None] for out in outputs if out["kind"] == "callback"]
    if kind == "recover" and outputs:
        answer = outputs[0]
        return "failed" if answer.get("error") is not None else json.loads(answer["data"])
    return None


def reported(candidate: Any) -> tuple[Write, ...] | None:
    """The writes a candidate made since the last call (its ``writes()``).

    None unless it claims the capability ``writes``.
    """
    if "writes" not in getattr(candidate, "capabilities", ()):
        return None
    return tuple(candidate.writes())


def writes(candidate: Any) -> list[dict[str, Any]] | None:
    """The rows of the writes a candidate reported since the last call, or None."""
    made = reported(candidate)
    if made is None:
        return None
    return [row(kind, ledger=ledger, entry=entry, bytes=size, error=error) for kind, ledger, entry, size, error in made]


def facts(outputs: list[dict[str, Any]], recorded: frozenset[str]) -> dict[str, Any]:
    """The step's writes for ``CURSOR-WRITES``, when the trace records every write kind."""
    if not set(WRITES) <= recorded:
        return {}
    return {
        "writes": tuple(
            (out["kind"], out["ledger"], out.get("entry"), out.get("bytes"), out.get("error"))
            for out in outputs
            if out["kind"] in WRITES
        )
    }


VOCABULARY = Vocabulary(
    "cursor-state", 1, KINDS, OUTPUTS_OF, events, operation, result, reported=WRITES, writes=writes, facts=facts
)
