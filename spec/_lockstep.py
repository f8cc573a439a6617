"""The lockstep systems (a cursor's persisted state, the transaction-log writer), each in one place.

What case files, both trace engines and the command line read of a system: its model, its invariants,
its configuration and operations as JSON, what an implementation may claim, and the trace events it
speaks; the lockstep search's ``conformance._lockstep.System`` is built from it. The cache, with its
observation monitor, has a richer interface of its own (``spec/cache``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledgerspec.spec import cursor_state, txlog
from ledgerspec.spec._history import Vocabulary
from ledgerspec.spec.cursor_state._events import VOCABULARY as CURSOR_VOCABULARY
from ledgerspec.spec.txlog._events import VOCABULARY as TXLOG_VOCABULARY


@dataclass(frozen=True)
class LockstepSystem:
    """One system: ``init(profile, config)`` and ``step(model, op)``, its invariants, and its JSON forms."""

    vocabulary: Vocabulary
    """The trace events it records (``spec/_history.py``)."""
    profiles: tuple[str, ...]
    init: Any
    step: Any
    facts: Any
    """The class of one step's facts, which every invariant judges (``Step``)."""
    invariants: tuple[Any, ...]
    config: Any
    """Its configuration class (``from_dict``, ``to_dict``)."""
    op_from_dict: Any
    """An operation from its JSON object."""
    claimed: Any
    """The invariants a profile claims, in catalogue order."""
    capabilities: tuple[str, ...]
    """Every capability an implementation may claim (the in-process references claim all of it)."""


SYSTEMS: dict[str, LockstepSystem] = {
    "cursor-state": LockstepSystem(
        CURSOR_VOCABULARY,
        cursor_state.PROFILES,
        cursor_state.init,
        cursor_state.step,
        cursor_state.Step,
        cursor_state.INVARIANTS,
        cursor_state.CursorConfig,
        cursor_state.op_from_dict,
        cursor_state.claimed,
        cursor_state.CAPABILITIES,
    ),
    "txlog-writer": LockstepSystem(
        TXLOG_VOCABULARY,
        txlog.PROFILES,
        txlog.init,
        txlog.step,
        txlog.Step,
        txlog.INVARIANTS,
        txlog.WriterConfig,
        txlog.op_from_dict,
        txlog.claimed,
        txlog.CAPABILITIES,
    ),
}
"""Every lockstep system, by the name ``--system`` and a trace header give it."""

__all__ = ["SYSTEMS", "LockstepSystem"]
