"""Read-count handlers (``EntryReadCountHandlerImpl``): one object shared by a cached entry and its copies.

Two variants:

- :class:`Pip430ReadCount`, the PIP text's handler (pip-430.md at cf3d7d17d9): a final
  ``EVICTED`` sentinel set by ``markEvicted()`` on forced removal; increments are refused (false) and
  ``markRead()`` does nothing once EVICTED; :class:`NoReadCount` stands for an entry created without one.
- :class:`MergedReadCount`, the merged code's handler (apache/pulsar#24623, D3): +1 / -1 with no floor and no
  sentinel; it exists only for a count > 0 (``maybeCreate``).

Every operation is O(1).
"""

from __future__ import annotations

EVICTED = -1073741824
"""``EVICTED_VALUE`` = ``Integer.MIN_VALUE / 2`` (pip-430.md at cf3d7d17d9)."""


class Pip430ReadCount:
    """The PIP text's handler: ``{live(n)} -> evicted``, with no way out of ``evicted`` (pip-430.md at cf3d7d17d9)."""

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
        """``markRead()``: -1 with no floor; EVICTED stays EVICTED (the draft's reading, pip-430.md at cf3d7d17d9)."""
        if self.count != EVICTED:
            self.count -= 1

    def mark_evicted(self) -> None:
        """``markEvicted()``: unconditional (pip-430.md at cf3d7d17d9)."""
        self.count = EVICTED

    def can_evict(self) -> bool:
        """``CachedEntry.canEvict()``: count <= 0; EVICTED is negative, so an evicted entry can go."""
        return self.count <= 0


class NoReadCount:
    """A pip430 entry created without a handler: nothing to count, always evictable (pip-430.md at cf3d7d17d9)."""

    __slots__ = ()
    count = None
    evicted = False

    def __repr__(self) -> str:
        return "NoReadCount()"

    def increment(self, n: int = 1) -> bool:  # noqa: ARG002 - the handler's signature
        """Nothing to increment: false."""
        return False

    def mark_read(self) -> None:
        """Nothing to mark."""

    def mark_evicted(self) -> None:
        """Nothing to mark."""

    def can_evict(self) -> bool:
        """``canEvict()`` is true without a handler."""
        return True


class MergedReadCount:
    """The merged code's handler: ``markRead`` -1 with no floor, ``incrementExpectedReadCount`` +1 (PR #24623)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count

    def __repr__(self) -> str:
        return f"MergedReadCount({self.count})"

    @classmethod
    def maybe_create(cls, count: int) -> MergedReadCount | None:
        """``EntryReadCountHandlerImpl.maybeCreate(n)``: no handler for ``n <= 0`` (apache/pulsar#24623)."""
        return cls(count) if count > 0 else None

    def increment(self) -> None:
        """``incrementExpectedReadCount()``: +1, returns nothing (D3)."""
        self.count += 1

    def mark_read(self) -> None:
        """``markRead()``: -1, unconditionally, with no floor (apache/pulsar#24623)."""
        self.count -= 1

    def has_expected_reads(self) -> bool:
        """``hasExpectedReads()``: only ``count >= 1`` matters to eviction (apache/pulsar#24623)."""
        return self.count >= 1
