"""The event vocabulary: what a cache did, one event per effect, as traces record it and checks read it.

The invariant checks (``invariants/``) consume events, so the vocabulary is part of the spec: the
conformance monitor derives events from each step it observes (``_derive.py``), and a trace holds them
as rows (traces/FORMAT.md gives the columns and the meaning of each kind's fields). A kind's ``code``
is its number in the checks' integer columns.
"""

from __future__ import annotations

from dataclasses import dataclass

PASS_KINDS: tuple[str, ...] = ("size", "ttl", "invalidate", "clear", "bytes", "cutoff", "range")
"""Kinds of pass, in code order: size eviction (or a ring's rotation), TTL, invalidation, clear, and the
passes an operation gives its own target: free a number of bytes (``value``), evict before a cutoff
timestamp (``value``), remove a range of one ledger (``ledger``, ``value`` the first entry, ``entry``
the exclusive bound)."""
SIZE_PASS, TTL_PASS, INVALIDATE_PASS, CLEAR_PASS, BYTES_PASS, CUTOFF_PASS, RANGE_PASS = range(7)
SIZE_LIKE = (SIZE_PASS, BYTES_PASS)
"""Passes that walk the queue freeing bytes, with the size pass's rules."""
TTL_LIKE = (TTL_PASS, CUTOFF_PASS)
"""Passes that walk the queue removing by timestamp, with the TTL pass's rules."""
FORCED = (INVALIDATE_PASS, CLEAR_PASS, RANGE_PASS)
"""Passes that remove by force (pip430: they mark EVICTED)."""

CONFIG_FIELDS: tuple[str, ...] = (
    "max_size",
    "watermark",
    "ttl",
    "ttl_max",
    "max_requeue",
    "extend_ttl",
    "track_reads",
)
"""Fields a ``config`` event may change (``reason`` names the field, ``value`` holds the new value)."""


@dataclass(frozen=True)
class Kind:
    """An event kind: its code, the fields it needs and the reasons it allows."""

    name: str
    code: int
    required: tuple[str, ...]
    reasons: tuple[str, ...] = ()


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("config", 0, ("reason", "value")),
        Kind("insert", 1, ("ledger", "entry", "size", "timestamp")),
        Kind("insert_refused", 2, ("ledger", "entry", "size")),
        Kind("merge", 3, ("ledger", "entry", "count", "value")),
        Kind("hit", 4, ("ledger", "entry", "copy")),
        Kind("miss", 5, ("ledger", "entry"), ("range",)),
        Kind("release", 6, ("copy",)),
        Kind("replay_increment", 7, ("copy",)),
        Kind("mark_evicted", 8, ("ledger", "entry")),
        Kind("remove", 9, ("ledger", "entry", "size", "reason"), PASS_KINDS),
        Kind("requeue", 10, ("ledger", "entry", "timestamp")),
        Kind("stash", 11, ("ledger", "entry")),
        Kind("pass_start", 12, ("reason", "size"), PASS_KINDS),
        Kind("pass_end", 13, ("reason", "size"), PASS_KINDS),
        Kind("size_sample", 14, ("size",)),
        Kind("cursor_add", 15, ("ledger", "cursor", "entry")),
        Kind("cursor_remove", 16, ("ledger", "cursor")),
        Kind("cursor_seek", 17, ("ledger", "cursor", "entry")),
        Kind("cursor_count", 18, ("ledger", "cursor", "result")),
        Kind("append", 19, ("ledger", "entry", "size")),
        Kind("ledger_close", 20, ("ledger",)),
        Kind("cursor_read", 21, ("ledger", "cursor", "entry")),
    )
}
"""Every event kind; traces/FORMAT.md has the meaning of each and of its fields."""

KIND_NAMES: tuple[str, ...] = tuple(KINDS)
(
    CONFIG,
    INSERT,
    REFUSED,
    MERGE,
    HIT,
    MISS,
    RELEASE,
    REPLAY,
    MARK_EVICTED,
    REMOVE,
    REQUEUE,
    STASH,
    PASS_START,
    PASS_END,
    SIZE_SAMPLE,
    CURSOR_ADD,
    CURSOR_REMOVE,
    CURSOR_SEEK,
    CURSOR_COUNT,
    APPEND,
    LEDGER_CLOSE,
    CURSOR_READ,
) = range(len(KINDS))
assert [k.code for k in KINDS.values()] == list(range(len(KINDS))), "kind codes are their order"


def reason_code(kind: int, reason: str) -> int:
    """A ``reason`` as a number: its index in :data:`CONFIG_FIELDS` (``config``) or the kind's reasons; else -1."""
    names = CONFIG_FIELDS if kind == CONFIG else KINDS[KIND_NAMES[kind]].reasons
    return names.index(reason) if reason in names else -1


RANGE_MISS = KINDS["miss"].reasons.index("range")
"""The reason code of a miss read from storage as part of a range that was not all cached (legacy)."""


__all__ = [
    "BYTES_PASS",
    "CLEAR_PASS",
    "CONFIG_FIELDS",
    "CUTOFF_PASS",
    "FORCED",
    "INVALIDATE_PASS",
    "KINDS",
    "KIND_NAMES",
    "PASS_KINDS",
    "RANGE_MISS",
    "RANGE_PASS",
    "SIZE_LIKE",
    "SIZE_PASS",
    "TTL_LIKE",
    "TTL_PASS",
    "Kind",
    "reason_code",
]
