"""Cursor-state candidates in any language, as child processes speaking process protocol v1: their results' shapes.

The framing, life cycle and faults are the cache's (conformance/protocol/README.md); the client is every
lockstep system's (``conformance/adapters/_system_process.py``); the payloads are this system's
(conformance/protocol/cursor-state.md, schemas in ``protocol/cursor-state/v1/``): ``start`` names the
system, ``configure`` sends a ``CursorConfig``, ``apply`` one operation and its result, no ``observe``.
"""

from __future__ import annotations

from typing import Any

from ledgerspec.conformance._errors import clip
from ledgerspec.conformance.adapters._system_process import SystemProcessFactory
from ledgerspec.conformance.cursor_state._system import SCHEMA_DIR
from ledgerspec.spec._history import integer_problem
from ledgerspec.spec.cursor_state import CursorOp, Recover
from ledgerspec.spec.cursor_state._events import state_problem


def _result_problem(op: CursorOp, result: Any) -> str | None:
    """What is wrong with the shape of a result (its value is the invariants' business)."""
    kind = op.kind
    if kind in {"persist", "rollover"}:
        ok = (isinstance(result, int) and not isinstance(result, bool)) or (kind == "rollover" and result is None)
    elif kind in {"confirm", "fail_add"}:
        ok = isinstance(result, list) and all(
            isinstance(c, list) and len(c) == 2 and integer_problem(c[0], "") is None and isinstance(c[1], bool)
            for c in result
        )
    elif isinstance(op, Recover):
        problem = None if result == "failed" else state_problem(result, "result")
        return None if problem is None else f"{kind}: a result of the wrong shape: {problem}"
    else:
        ok = result is None
    return None if ok else f"{kind}: a result of the wrong shape: {clip(repr(result), 300)}"


def result_problem(op: CursorOp, result: Any, _claims: frozenset[str] = frozenset()) -> str | None:
    """``System.process``'s check of a result's shape (every claim takes the same shapes)."""
    return _result_problem(op, result)


def CursorProcessFactory(  # noqa: N802 - the name this factory had before the one transport
    command: str, *, timeout: float | None = None, validate: bool = False
) -> SystemProcessFactory:
    """``exec:COMMAND`` for the cursor-state system (``SystemProcessFactory`` of its record)."""
    from ledgerspec.conformance.cursor_state._system import system  # noqa: PLC0415 - it imports this module

    return SystemProcessFactory(system(), command, timeout=timeout, validate=validate)


__all__ = ["SCHEMA_DIR", "CursorProcessFactory", "result_problem"]
