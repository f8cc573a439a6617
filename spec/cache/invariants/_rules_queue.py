"""What the queue-order and eviction rules share, in plain Python: passes, expiry, queue order at a pass's end."""

from __future__ import annotations

from ledgerspec.spec.cache._shadow import SIZE_LIKE, TTL_LIKE, At, Cached, Pass, Position, Shadow
from ledgerspec.spec.cache.invariants._rules import protected

WALKING = SIZE_LIKE + TTL_LIKE
"""Passes that walk the removal queue (size, bytes, ttl, cutoff): the only ones that requeue or stash."""


def show(value: int | None) -> str:
    """A value as the messages print it (``None`` when not known)."""
    return "None" if value is None else str(value)


def pass_kind(at: At) -> str | None:
    """The kind of the pass the event is in (None: outside a pass)."""
    return None if at.in_pass is None else at.in_pass.kind


def walking(at: At) -> bool:
    """The event is in a pass that walks the queue."""
    return pass_kind(at) in WALKING


def at_or_before(timestamp: int | None, limit: int | None) -> bool:
    """``timestamp <= limit``, an unknown timestamp or limit counting as the earliest possible one."""
    if timestamp is None:
        return True
    return limit is not None and timestamp <= limit


def before(timestamp: int | None, limit: int | None) -> bool:
    """``timestamp < limit``, an unknown timestamp or limit counting as the earliest possible one."""
    if limit is None:
        return False
    return timestamp is None or timestamp < limit


def lowest_per_ledger(entries: list[Cached]) -> dict[int, Cached]:
    """Each ledger's lowest cached entry, by ledger."""
    lowest: dict[int, Cached] = {}
    for entry in sorted(entries, key=lambda e: e.position):
        lowest.setdefault(entry.ledger, entry)
    return lowest


def kept_below(shadow: Shadow, removed: list[Cached]) -> list[tuple[Position, Position]]:
    """Per ledger that lost entries: (its highest removed, its lowest kept below that), where one is kept below.

    A walk from a ledger's lowest position keeps nothing below an entry it removed.
    """
    highest: dict[int, int] = {}
    for entry in removed:
        highest[entry.ledger] = max(highest.get(entry.ledger, entry.entry), entry.entry)
    found = []
    for ledger in sorted(highest):
        below = shadow.cached_in(ledger, below=highest[ledger])
        if below:
            found.append(((ledger, highest[ledger]), below[0].position))
    return found


def order_violations(done: Pass, shadow: Shadow, profile: str, ttl_max: int, what: str) -> list[str]:
    """Entries the pass kept although they entered the queue before the newest one it removed.

    An entry the pass requeued is judged as it was before the pass (its first requeue in it). Exempt:
    pip430, a protected entry younger than thresholdMax (stashed); pulsar-master, an entry stamped with
    the pass's time (what the pass requeued); segmented, the position the rotating insert writes again.
    In pulsar-master, when nothing left entered before that removal, what the pass requeued is not
    looked at. Entries requeued by one earlier pass tie (``_shadow.py``).
    """
    if not done.removed:
        return []
    newest = max((entry for entry, _ in done.removed), key=lambda e: e.enter)  # the first removed of the latest
    limit = newest.enter
    left = shadow.entries.values()
    if all(entry.enter >= limit for entry in left) and (not done.requeued or profile == "pulsar-master"):
        return []
    as_before: dict[Position, tuple[Cached, int | None]] = {}
    for entry, count in done.requeued:
        as_before.setdefault(entry.position, (entry, count))
    messages = []
    for entry in sorted(left, key=lambda e: e.position):
        was, count = as_before.get(entry.position, (entry, shadow.count_of(entry)))
        if was.enter >= limit or _exempt(done, profile, ttl_max, entry, was, count):
            continue
        messages.append(
            f"{what} removed {newest.position} but kept {entry.position}, which entered the queue earlier "
            f"(count {show(count)}, timestamp {show(was.timestamp)}) and may not be skipped"
        )
    return messages


def _exempt(done: Pass, profile: str, ttl_max: int, now: Cached, was: Cached, count: int | None) -> bool:
    """The profile lets the pass skip this entry (``now``: as it is after the pass, ``was``: before it)."""
    if profile == "pip430":
        return protected(count, was.timestamp, done.now, ttl_max)
    if profile == "segmented":
        return done.ledger is not None and now.position == (done.ledger, done.entry)
    if profile == "pulsar-master":
        return now.timestamp == done.now
    return False


__all__ = [
    "WALKING",
    "at_or_before",
    "before",
    "kept_below",
    "lowest_per_ledger",
    "order_violations",
    "pass_kind",
    "show",
    "walking",
]
