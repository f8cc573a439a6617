"""The cache's rules that every profile with a managed ledger shares, for the profiles' citation tables.

Each profile module keeps its own :class:`~ledgerspec.spec._rules.RuleTable` (``CITATIONS``) beside its
rules; what is written once for all of them (the cursor container, ``Configure``, and the managed-ledger
layer of ``_ledger.py``, SPEC.md §3 and §3.2) is here, as ``_ledger.py`` itself is written once.
"""

from __future__ import annotations

from ledgerspec.spec._rules import Rule

SPEC = "spec/cache/SPEC.md"

REMOVALS = (
    "invalidate_before",
    "invalidate_ledger",
    "clear",
    "remove_range",
    "evict_timestamp",
    "evict_size",
    "evict_bytes",
    "evict_before",
    "ledger_close",
    "cursor_seek",
    "cursor_remove",
    "cursor_read",
)
"""Operation kinds that can take entries out of the cache (the layer's cursor moves invalidate in legacy mode)."""

CONTAINER = Rule("3", "The cursor container", ("ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore",))
CONFIGURE = Rule("3", "Configure", ("updateCacheSizeAndThreshold", "updateCacheEvictionWatermark"))


def ledger_layer() -> dict[str, Rule]:
    """The managed-ledger layer (§3.2) and the cursor container (§3), the same over every profile that has them."""
    moves = Rule(
        "3.2", "Cursor moves and departures", ("invalidateEntriesUpToSlowestReaderPosition", "deactivateCursor")
    )
    return {
        "configure": CONFIGURE,
        "cursor_add": CONTAINER,
        "cursor_count": CONTAINER,
        "cursor_seek": moves,
        "cursor_remove": moves,
        "append": Rule("3.2", "Append", ("OpAddEntry", "shouldCacheAddedEntry")),
        "cursor_read": Rule("3.2", "CursorRead", ("ManagedLedgerImpl.internalReadFromLedger", "readFromStorage")),
        "ledger_close": Rule(
            "3.2", "LedgerClose", ("ManagedLedgerImpl.close", "RangeEntryCacheManagerImpl.removeEntryCache")
        ),
    }


def on_removals(aspect: str, rule: Rule) -> dict[str, Rule]:
    """``rule`` for ``aspect`` of every operation that removes entries (:data:`REMOVALS`)."""
    return {f"{kind}/{aspect}": rule for kind in REMOVALS}


__all__ = ["CONFIGURE", "CONTAINER", "REMOVALS", "SPEC", "ledger_layer", "on_removals"]
