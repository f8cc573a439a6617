"""Reference implementations of the cursor-state system.

``ReferenceCursor`` over an in-memory BookKeeper and metadata store that inject faults, and
``CursorStateAdapter``, which drives it with the spec's operations (the in-process adapter the conformance
machine runs).
"""

from ledgerspec.reference.cursor_state._adapter import CursorStateAdapter
from ledgerspec.reference.cursor_state._bookkeeper import BookKeeper, MetadataStore, ReadError
from ledgerspec.reference.cursor_state._cursor import ReferenceCursor

__all__ = ["BookKeeper", "CursorStateAdapter", "MetadataStore", "ReadError", "ReferenceCursor"]
