"""Pure kernels of the entry cache, with contracts that ``tox -e crosshair`` verifies.

Two families: read-count transitions (the PIP text's handler with its final EVICTED state, and the
merged handler without one) and the verdict of one eviction-queue step for each profile. The models
in this package call these functions, so what crosshair proves is what the spec uses.

Contracts are PEP 316 docstrings (``pre:`` / ``post:``); ``__return__`` is the result.
"""

from __future__ import annotations

import enum

EVICTED = -1073741824
"""``EVICTED_VALUE`` = ``Integer.MIN_VALUE / 2`` (pip-430.md at cf3d7d17d9)."""


class Verdict(enum.Enum):
    """What one step of an eviction walk does with the entry at the head (``EvictionResult``)."""

    REMOVE = "remove"
    STASH = "stash"
    REQUEUE = "requeue"
    STOP = "stop"


# --- read-count transitions ------------------------------------------------------------------


def is_evicted(count: int) -> bool:
    """True iff a pip430 handler holds the EVICTED sentinel.

    post: __return__ == (count == EVICTED)
    """
    return count == EVICTED


def can_evict(count: int | None) -> bool:
    """``CachedEntry.canEvict()``: no handler, or a count of at most 0 (EVICTED is negative).

    post: __return__ == (count is None or count <= 0)
    post: (count != EVICTED) or __return__
    """
    return count is None or count <= 0


def has_expected_reads(count: int | None) -> bool:
    """``hasExpectedReads()`` of the merged code: a handler with count >= 1.

    post: __return__ == (count is not None and count >= 1)
    """
    return count is not None and count >= 1


def pip430_increment(count: int, n: int) -> tuple[int, bool]:
    """``incrementExpectedReadCount(n)``: refused, unchanged, once EVICTED; else adds ``n``.

    pre: n >= 0
    post: __return__[1] == (count != EVICTED)
    post: (count != EVICTED) or __return__[0] == EVICTED
    post: (count == EVICTED) or __return__[0] == count + n
    """
    if is_evicted(count):
        return count, False
    return count + n, True


def pip430_mark_read(count: int) -> int:
    """``markRead()``: EVICTED is final; a live count drops by one, with no floor.

    The sentinel is an ordinary int, so a live count of EVICTED + 1 would become EVICTED; live counts
    never get within 2**30 of it (each decrement needs a released copy), hence the precondition.

    pre: count == EVICTED or count > EVICTED + 1
    post: (count != EVICTED) or __return__ == EVICTED
    post: (count == EVICTED) or (__return__ == count - 1 and __return__ != EVICTED)
    """
    if is_evicted(count):
        return count
    return count - 1


def pip430_mark_evicted(count: int) -> int:  # noqa: ARG001 - unconditional by definition
    """``markEvicted()``: unconditional, whatever the current value.

    post: __return__ == EVICTED
    post: can_evict(__return__)
    """
    return EVICTED


# --- one step of an eviction walk --------------------------------------------------------------


def pip430_timestamp_verdict(ts: int, count: int | None, now: int, ttl: int, ttl_max: int) -> Verdict:
    """Timestamp pass of the PIP text with its two TTLs (SPEC.md "pip430: timestamp pass").

    Entries that may be evicted by count expire after ``ttl``; protected ones after ``ttl_max``. A
    protected entry past ``ttl`` but not ``ttl_max`` is stashed so the walk can go on expiring the
    newer, unprotected entries behind it.

    post: __return__ != Verdict.REQUEUE
    post: __return__ != Verdict.REMOVE or ts < now - ttl_max or (can_evict(count) and ts < now - ttl)
    post: __return__ != Verdict.STASH or (not can_evict(count) and ts < now - ttl)
    post: __return__ != Verdict.STOP or not ts < now - ttl_max
    """
    if ts < now - ttl_max or (can_evict(count) and ts < now - ttl):
        return Verdict.REMOVE
    if ts < now - ttl:
        return Verdict.STASH
    return Verdict.STOP


def pip430_size_verdict(ts: int, count: int | None, removed: int, to_free: int, expiry: int) -> Verdict:
    """Size pass of the PIP text: ``evictLeastAccessedEntries(sizeToFree, expirationTimestampNanos)``.

    post: __return__ != Verdict.REQUEUE
    post: (removed < to_free) or __return__ == Verdict.STOP
    post: __return__ != Verdict.REMOVE or can_evict(count) or ts < expiry
    post: __return__ != Verdict.STASH or not (can_evict(count) or ts < expiry)
    """
    if removed >= to_free:
        return Verdict.STOP
    expired = ts < expiry
    if not (can_evict(count) or expired):
        return Verdict.STASH
    return Verdict.REMOVE


def master_should_requeue(count: int | None, requeues: int, accessed: bool, max_requeue: int, extend_ttl: bool) -> bool:
    """``shouldRequeue`` of the merged ``RangeCacheRemovalQueue`` (apache/pulsar#24623).

    post: __return__ == ((extend_ttl and accessed) or (has_expected_reads(count) and requeues < max_requeue))
    post: not __return__ or accessed or requeues < max_requeue
    """
    return (extend_ttl and accessed) or (has_expected_reads(count) and requeues < max_requeue)


def master_timestamp_verdict(ts: int, threshold: int, should_requeue: bool) -> Verdict:
    """TTL pass of the merged code: strict ``<`` against ``now - ttl``.

    post: __return__ != Verdict.STASH
    post: (ts < threshold) or __return__ == Verdict.STOP
    post: not (ts < threshold and should_requeue) or __return__ == Verdict.REQUEUE
    post: not (ts < threshold and not should_requeue) or __return__ == Verdict.REMOVE
    """
    if ts >= threshold:
        return Verdict.STOP
    return Verdict.REQUEUE if should_requeue else Verdict.REMOVE


def master_size_verdict(removed: int, to_free: int, should_requeue: bool) -> Verdict:
    """Size pass of the merged code: timestamps are not consulted.

    post: __return__ != Verdict.STASH
    post: (removed < to_free) == (__return__ != Verdict.STOP)
    post: removed >= to_free or __return__ == (Verdict.REQUEUE if should_requeue else Verdict.REMOVE)
    """
    if removed >= to_free:
        return Verdict.STOP
    return Verdict.REQUEUE if should_requeue else Verdict.REMOVE


def legacy_expired(ts: int, max_timestamp: int) -> bool:
    """The legacy per-cache TTL walk removes while ``timestamp <= maxTimestamp`` (inclusive).

    post: __return__ == (ts <= max_timestamp)
    post: (ts != max_timestamp) or __return__
    """
    return ts <= max_timestamp


def align64(size: int) -> int:
    """``WriteCache.align64``: round up to a multiple of 64.

    pre: size >= 0
    post: __return__ % 64 == 0
    post: size <= __return__ < size + 64
    """
    return (size + 63) & ~63
