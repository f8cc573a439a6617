"""Txlog-writer candidates in any language, as child processes speaking process protocol v1.

The framing, life cycle and faults are the cache's (conformance/protocol/README.md); the client is every
lockstep system's (``conformance/adapters/_system_process.py``); the payloads are this system's
(conformance/protocol/txlog-writer.md, schemas in ``protocol/txlog-writer/v1/``): ``start`` names the
system, ``configure`` sends a ``WriterConfig``, ``apply`` one operation (virtual time is the ``tick``
operation) and its events, no ``observe``. A result of the wrong shape is a fault naming the step,
the event and the field.
"""

from __future__ import annotations

from typing import Any

from ledgerspec.conformance._errors import clip
from ledgerspec.conformance.adapters._system_process import SystemProcess, SystemProcessFactory, process_class
from ledgerspec.conformance.txlog_writer._schemas import METRIC_SUMS
from ledgerspec.conformance.txlog_writer._system import SCHEMA_DIR
from ledgerspec.spec._history import integer_problem
from ledgerspec.spec.txlog_writer import TRIGGERS, Metrics, WriterOp


def _is_int(value: Any, *, null: bool = False) -> bool:
    return (value is None and null) or (integer_problem(value, "") is None and value >= 0)


_FIELDS: dict[str, tuple[str, ...]] = {
    "write": ("entry", "records", "batched", "trigger"),
    "done": ("record", "entry", "batch_size", "batch_index"),
    "failed": ("record",),
}


def _field_problem(kind: str, name: str, value: Any) -> str | None:
    """What is wrong with one field of an event, or None."""
    if name == "records":
        ok = isinstance(value, list) and all(_is_int(r) for r in value)
        want = "a list of record numbers"
    elif name == "batched":
        ok, want = isinstance(value, bool), "true or false"
    elif name == "trigger":
        ok, want = value is None or value in TRIGGERS, f"one of {', '.join(TRIGGERS)} or null"
    else:
        null = kind == "done" and name in {"batch_size", "batch_index"}
        ok, want = _is_int(value, null=null), "an integer >= 0" + (" or null" if null else "")
    return None if ok else f"field {name!r} must be {want}, got {clip(repr(value), 100)}"


def event_problem(event: Any, where: str) -> str | None:
    """What is wrong with the shape of one event (its values are the invariants' business)."""
    kind = event[0] if isinstance(event, list) and event else None
    if not isinstance(kind, str) or kind not in _FIELDS:
        return f"{where}: an event is a list starting with write, done or failed, got {clip(repr(event), 200)}"
    names = _FIELDS[kind]
    if len(event) != len(names) + 1:
        return f"{where} (a {kind!r} event): want [{kind!r}, {', '.join(names)}], got {clip(repr(event), 200)}"
    for i, (name, value) in enumerate(zip(names, event[1:], strict=True), start=1):
        problem = _field_problem(kind, name, value)
        if problem:
            return f"{where}[{i}] (a {kind!r} event): {problem}"
    return None


def _metrics_problem(result: Any, *, delay: bool) -> str | None:
    if not isinstance(result, dict):
        return f"results[0]: metrics are an object, got {clip(repr(result), 200)}"
    want = [*TRIGGERS, *METRIC_SUMS]
    if sorted(result) != sorted(want):
        return f"results[0]: metrics have exactly the keys {', '.join(want)}, got {sorted(result)}"
    for name in want:
        if not _is_int(result[name], null=name == "delay" and not delay):
            hint = " (null only without capability metrics_delay)" if name == "delay" else ""
            return f"results[0].{name}: want an integer >= 0{hint}, got {clip(repr(result[name]), 100)}"
    return None


def result_problem(op: WriterOp, result: Any, *, delay: bool) -> str | None:
    """What is wrong with the shape of a result: ``results[0]`` and, inside it, the event or metric."""
    if isinstance(op, Metrics):
        return _metrics_problem(result, delay=delay)
    if not isinstance(result, list):
        return f"results[0]: the step's events are a list, got {clip(repr(result), 200)}"
    problems = (event_problem(event, f"results[0][{i}]") for i, event in enumerate(result))
    return next((p for p in problems if p), None)


def hook_problem(op: WriterOp, result: Any, claims: frozenset[str]) -> str | None:
    """``System.process``'s check of a result's shape: a null delay only without ``metrics_delay``."""
    return result_problem(op, result, delay="metrics_delay" in claims)


def TxlogProcessFactory(  # noqa: N802 - the name this factory had before the one transport
    command: str, *, timeout: float | None = None, validate: bool = False
) -> SystemProcessFactory:
    """``exec:COMMAND`` for the txlog-writer system (``SystemProcessFactory`` of its record)."""
    from ledgerspec.conformance.txlog_writer._system import system  # noqa: PLC0415 - it imports this module

    return SystemProcessFactory(system(), command, timeout=timeout, validate=validate)


def TxlogProcess(  # noqa: N802 - the name this transport had before the one transport
    command: str, **options: Any
) -> SystemProcess:
    """The txlog-writer system's transport (``process_class`` of its record)."""
    from ledgerspec.conformance.txlog_writer._system import system  # noqa: PLC0415 - it imports this module

    return process_class(system())(command, **options)


__all__ = ["SCHEMA_DIR", "TxlogProcess", "TxlogProcessFactory", "event_problem", "hook_problem", "result_problem"]
