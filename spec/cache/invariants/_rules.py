"""What several normative rules share, in plain Python: protection, expiry."""

from __future__ import annotations


def protected(count: int | None, timestamp: int | None, now: int, ttl_max: int) -> bool:
    """pip430: an entry eviction must keep: a positive count, and younger than thresholdMax."""
    return count is not None and count > 0 and timestamp is not None and timestamp >= now - ttl_max


__all__ = ["protected"]
