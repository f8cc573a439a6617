"""The boundaries the lockstep machine aims at: where ``<`` and ``<=`` part ways, and what races a removal.

Bugs live at boundaries (issue 16 item 4): a TTL cutoff hit exactly, an entry ending exactly at a
segment's end, a read-count operation arriving through a copy of an entry just removed. The rules of
:mod:`ledgerspec.conformance._machine` draw among these named targets instead of hoping to hit them.
"""

from __future__ import annotations

from ledgerspec.spec.cache import CacheConfig, EvictBefore, EvictBytes, Op, RemoveRange
from ledgerspec.spec.cache.segmented import geometry

TARGETED: tuple[type[Op], ...] = (EvictBytes, EvictBefore, RemoveRange)
"""Removals with a target of their own, each behind its capability; one rule draws among them."""

CUTOFFS = ("ttl-1", "ttl", "ttl+1", "ttl_max-1", "ttl_max", "ttl_max+1")
"""Moments relative to an entry's timestamp where a TTL comparison's ``<`` and ``<=`` part ways."""


AFTER_REMOVAL = ("", "release", "replay", "release+replay")
"""What follows a forced removal of an entry being read, through its open copies: nothing, a markRead, a
Key_Shared replay (``incrementExpectedReadCount``), or a markRead then a replay through another copy."""


def cutoffs(config: CacheConfig) -> dict[str, int]:
    """The offsets of :data:`CUTOFFS` under ``config``."""
    bases = ("ttl", "ttl_max")
    return {f"{name}{off:+d}" if off else name: getattr(config, name) + off for name in bases for off in (-1, 0, 1)}


def segment_end(config: CacheConfig, size: int) -> int:
    """The size at which the segment being filled is full, from the observed ``size`` (segmented).

    ``ReadCache.size()`` is the current offset plus a full segment per other non-empty segment, so
    the current segment ends at the next multiple of the segment size (BookKeeper ReadCache at 9590a97f67).
    """
    _, segment = geometry(config)
    return (size // segment + 1) * segment


__all__ = ["AFTER_REMOVAL", "CUTOFFS", "TARGETED", "cutoffs", "segment_end"]
