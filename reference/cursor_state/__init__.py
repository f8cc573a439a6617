"""Reference implementation of the cursor-state system.

``ReferenceCursor`` persists and recovers a cursor's state over an in-memory BookKeeper and metadata
store that inject faults, with its own codec of the cursor ledger's bytes (``_position_info``). It
imports nothing of the spec; the conformance machine drives it through
``ledgerspec.conformance.cursor_state.CursorStateAdapter``.
"""

from ledgerspec.reference.cursor_state._bookkeeper import BookKeeper, MetadataStore, ReadError
from ledgerspec.reference.cursor_state._cursor import ReferenceCursor

__all__ = ["BookKeeper", "MetadataStore", "ReadError", "ReferenceCursor"]
