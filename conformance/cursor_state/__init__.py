"""Conformance for the cursor-state system (PIP-381).

The lockstep machine and the in-process adapter of the reference cursor; the search, its report and
its counterexamples are ``conformance.lockstep._engine``'s.
"""

from ledgerspec.conformance.systems import lazy_exports

__getattr__ = lazy_exports(
    __name__,
    CURSOR_STATE="_machine",
    conform_cursor="_machine",
    make_cursor_machine="_machine",
    CursorStateAdapter="_reference_adapter",
    Report="ledgerspec.conformance.lockstep._engine",
    Violation="ledgerspec.conformance.lockstep._engine",
)
"""Imported on first use: the record (``_system.py``) loads without Hypothesis."""
__all__ = ["CURSOR_STATE", "CursorStateAdapter", "Report", "Violation", "conform_cursor", "make_cursor_machine"]
