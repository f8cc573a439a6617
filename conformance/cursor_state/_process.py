"""Cursor-state candidates in any language, as child processes speaking process protocol v1.

The framing, life cycle and faults are the cache's (conformance/protocol/README.md, the transport in
``conformance/adapters/_process.py``); the payloads are this system's
(conformance/protocol/cursor-state.md, schemas in ``protocol/cursor-state/v1/``): ``start`` names the
system, ``configure`` sends a ``CursorConfig``, ``apply`` one operation and its result, no ``observe``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ledgerspec.conformance._errors import clip
from ledgerspec.conformance.adapters._process import ProtocolViolation
from ledgerspec.conformance.adapters._system_process import SystemAdapterInfo, SystemProcess
from ledgerspec.spec._history import integer_problem
from ledgerspec.spec.cursor_state import CAPABILITIES, PROFILES, CursorConfig, CursorOp, Recover
from ledgerspec.spec.cursor_state._events import state_problem

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / "cursor-state" / "v1"
SYSTEM = "cursor-state"


@dataclass(frozen=True)
class CursorAdapterInfo(SystemAdapterInfo):
    """Who a cursor-state implementation is: its profiles and capabilities are this system's."""

    system: ClassVar[str] = SYSTEM
    known_profiles: ClassVar[tuple[str, ...]] = PROFILES
    known_capabilities: ClassVar[tuple[str, ...]] = CAPABILITIES


class CursorProcess(SystemProcess):
    """The cache's process transport, validated against this system's schemas."""

    info_class = CursorAdapterInfo
    schema_dir = SCHEMA_DIR
    system = SYSTEM


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


class CursorProcessAdapter:
    """One candidate handle over the shared process."""

    def __init__(self, process: CursorProcess) -> None:
        self._process = process

    def start(self, config: CursorConfig) -> None:
        self._process.ensure_running()
        self._process.request("configure", config=config.to_dict())

    def apply(self, op: CursorOp) -> Any:
        reply = self._process.request("apply", ops=[op.to_dict()], what=op, need=op.capability)
        results = reply.get("results")
        if not isinstance(results, list) or len(results) != 1:
            raise ProtocolViolation(f"apply {op.describe()}: expected one result, got {clip(repr(results), 300)}")
        problem = _result_problem(op, results[0])
        if problem:
            raise ProtocolViolation(f"apply {op.describe()}: {problem}")
        return results[0]

    def stop(self) -> None:
        """Nothing: the process serves the next example."""


class CursorProcessFactory:
    """``exec:COMMAND`` for the cursor-state system: one process, a handle per example."""

    def __init__(self, command: str, *, timeout: float | None = None, validate: bool = False) -> None:
        self._process = CursorProcess(command, timeout=timeout, validate=validate, restart="crash")
        self.profiles, self.capabilities = self._process.info.profiles, self._process.info.capabilities

    def __call__(self) -> CursorProcessAdapter:
        return CursorProcessAdapter(self._process)

    def close(self) -> None:
        self._process.close()
