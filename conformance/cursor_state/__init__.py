"""Conformance for the cursor-state system (PIP-381): the lockstep machine, the search and its report."""

from ledgerspec.conformance.cursor_state._machine import (
    CursorCandidate,
    CursorRun,
    CursorViolation,
    make_cursor_machine,
)
from ledgerspec.conformance.cursor_state._reference_adapter import CursorStateAdapter
from ledgerspec.conformance.cursor_state._search import CursorReport, conform_cursor

__all__ = [
    "CursorCandidate",
    "CursorReport",
    "CursorRun",
    "CursorStateAdapter",
    "CursorViolation",
    "conform_cursor",
    "make_cursor_machine",
]
