"""Executable specification of a managed cursor's persisted state (PIP-381 and the code after it).

Read SPEC.md beside this file first. ``init(profile, config)`` / ``step(model, op)`` are the pure
model of ``pip381`` (chunks and a footer, at apache/pulsar 048142ca) and ``pulsar-master`` (one
entry); ``INVARIANTS`` / ``claimed`` the named properties; ``encode`` / ``decode`` the byte format.
"""

from ledgerspec.spec.cursor_state._format import FormatError, Layout, chunks, decode, encode, parse_footer
from ledgerspec.spec.cursor_state._model import PROFILES, QUIRKS, Model, Result, init, step
from ledgerspec.spec.cursor_state._ops import (
    CAPABILITIES,
    OPERATIONS,
    Ack,
    AckIndex,
    Confirm,
    Crash,
    CursorConfig,
    CursorOp,
    FailAdd,
    FailMeta,
    MarkDelete,
    Persist,
    Recover,
    Rollover,
    Unreadable,
    op_from_dict,
)
from ledgerspec.spec.cursor_state._state import AckState, Position
from ledgerspec.spec.cursor_state.invariants import INVARIANTS, CursorInvariant, Step, claimed, state_from_dict

__all__ = [
    "CAPABILITIES",
    "INVARIANTS",
    "OPERATIONS",
    "PROFILES",
    "QUIRKS",
    "Ack",
    "AckIndex",
    "AckState",
    "Confirm",
    "Crash",
    "CursorConfig",
    "CursorInvariant",
    "CursorOp",
    "FailAdd",
    "FailMeta",
    "FormatError",
    "Layout",
    "MarkDelete",
    "Model",
    "Persist",
    "Position",
    "Recover",
    "Result",
    "Rollover",
    "Step",
    "Unreadable",
    "chunks",
    "claimed",
    "decode",
    "encode",
    "init",
    "op_from_dict",
    "parse_footer",
    "state_from_dict",
    "step",
]
