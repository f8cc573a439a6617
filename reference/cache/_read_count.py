"""Read-count handlers (``EntryReadCountHandlerImpl``): one object shared by a cached entry and its copies.

Two variants:

- :class:`Pip430ReadCount`, the PIP text's handler (pip430-entry-cache.md §1.2-§1.3): a final
  ``EVICTED`` sentinel set by ``markEvicted()`` on forced removal; increments are refused (false) and
  ``markRead()`` does nothing once EVICTED.
- :class:`MergedReadCount`, the merged code's handler (§2.1, §2.4, D3): +1 / -1 with no floor and no
  sentinel; it exists only for a count > 0 (``maybeCreate``).

Every operation is O(1).
"""

from __future__ import annotations

EVICTED = -1073741824
"""``EVICTED_VALUE`` = ``Integer.MIN_VALUE / 2`` (pip430-entry-cache.md §1.3)."""


class Pip430ReadCount:
    """The PIP text's handler: ``{live(n)} -> evicted``, with no way out of ``evicted`` (§1.3)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count

    def __repr__(self) -> str:
        return f"Pip430ReadCount({self.count})"

    @property
    def evicted(self) -> bool:
        """True once ``markEvicted()`` has run."""
        return self.count == EVICTED

    def increment(self, n: int = 1) -> bool:
        """``incrementExpectedReadCount(n)``: false and unchanged once EVICTED, else adds ``n``."""
        if self.count == EVICTED:
            return False
        self.count += n
        return True

    def mark_read(self) -> None:
        """``markRead()``: -1 with no floor; EVICTED stays EVICTED (the draft's reading, §1.3)."""
        if self.count != EVICTED:
            self.count -= 1

    def mark_evicted(self) -> None:
        """``markEvicted()``: unconditional (§1.3)."""
        self.count = EVICTED

    def can_evict(self) -> bool:
        """``CachedEntry.canEvict()``: count <= 0; EVICTED is negative, so an evicted entry can go."""
        return self.count <= 0


class MergedReadCount:
    """The merged code's handler: ``markRead`` -1 with no floor, ``incrementExpectedReadCount`` +1 (§2.4)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count

    def __repr__(self) -> str:
        return f"MergedReadCount({self.count})"

    @classmethod
    def maybe_create(cls, count: int) -> MergedReadCount | None:
        """``EntryReadCountHandlerImpl.maybeCreate(n)``: no handler for ``n <= 0`` (§2.1)."""
        return cls(count) if count > 0 else None

    def increment(self) -> None:
        """``incrementExpectedReadCount()``: +1, returns nothing (D3)."""
        self.count += 1

    def mark_read(self) -> None:
        """``markRead()``: -1, unconditionally, with no floor (§2.4)."""
        self.count -= 1

    def has_expected_reads(self) -> bool:
        """``hasExpectedReads()``: only ``count >= 1`` matters to eviction (§2.4)."""
        return self.count >= 1
