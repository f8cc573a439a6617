"""Conformance for the cursor-state system (PIP-381).

The lockstep machine and the in-process adapter of the reference cursor; the search, its report and
its counterexamples are ``conformance._lockstep``'s.
"""

from ledgerspec.conformance._lockstep import Report, Violation
from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE, conform_cursor, make_cursor_machine
from ledgerspec.conformance.cursor_state._reference_adapter import CursorStateAdapter

__all__ = ["CURSOR_STATE", "CursorStateAdapter", "Report", "Violation", "conform_cursor", "make_cursor_machine"]
