"""The invariant catalogue: stable ids, statements, sources and the profiles that claim each one.

The predicates live in ``_monitor.py``; this module is data, so that ``ledgerspec spec show`` and
the documentation need nothing else. Sections cited are of ../shared/domain/pip430-entry-cache.md
(``pip430 §``) and segmented-cache.md (``segmented §``).
"""

from __future__ import annotations

from dataclasses import dataclass

PIP430 = "pip430"
MASTER = "pulsar-master"
LEGACY = "legacy"
SEGMENTED = "segmented"
ALL_PROFILES = (PIP430, MASTER, LEGACY, SEGMENTED)


@dataclass(frozen=True)
class Invariant:
    """One named property of a correct cache."""

    id: str
    statement: str
    profiles: tuple[str, ...]
    source: str

    def claimed_by(self, profile: str) -> bool:
        """True if the profile promises this property."""
        return profile in self.profiles


CATALOGUE: tuple[Invariant, ...] = (
    Invariant(
        "CACHE-MODEL",
        "After every step, the candidate's result and observation (cached entries with size, count and "
        "timestamp; total size; counters; open copies) are one of the outcomes the profile's model "
        "allows from some state consistent with the history so far.",
        ALL_PROFILES,
        "spec/cache/<profile>.py, each rule citing its source",
    ),
    Invariant(
        "CACHE-FIFO",
        "The removal queue is first-in first-out: an inserted entry is stamped with the insert's time; "
        "its timestamp changes only when an eviction pass requeues it to the tail, and then to that "
        "pass's time (pulsar-master; never in pip430); and a timestamp pass that removes an entry keeps "
        "no entry that entered the queue before it, except one the profile lets the pass skip (pip430: "
        "a protected entry younger than thresholdMax, stashed; pulsar-master: an entry it requeued).",
        (PIP430, MASTER),
        "pip430 §1.1, §1.7, §2.6, I1-I2; PR #24363 (8ce67b97b3)",
    ),
    Invariant(
        "CACHE-OLDEST-FIRST",
        "Size eviction frees the oldest entries first, globally across ledgers: when a size-eviction "
        "step removes an entry, every entry that entered the queue before it and is still cached was "
        "skipped for a reason the profile allows (pip430: positive expected read count and younger than "
        "thresholdMax; pulsar-master: requeued by this step; segmented: none, a whole segment goes).",
        (PIP430, MASTER, SEGMENTED),
        "pip430 §1.1, §1.7, §2.8, I3; segmented §2.5; PR #24363 motivation",
    ),
    Invariant(
        "CACHE-PROTECT-UNTIL-EXPIRED",
        "No eviction (size or timestamp) removes an entry whose expected read count is positive before "
        "it is older than thresholdMax (ts >= now - thresholdMax keeps it).",
        (PIP430,),
        "pip/pip-430.md 'Eviction Consideration' and evictLeastAccessedEntries predicate; pip430 §1.7",
    ),
    Invariant(
        "CACHE-EVICTED-FINAL",
        "A forced removal (invalidation, ledger deletion, clear) marks the removed entry's read-count "
        "handler EVICTED (Integer.MIN_VALUE / 2), as every open copy sharing it shows; once EVICTED, a "
        "handler stays EVICTED: markRead leaves it and incrementExpectedReadCount returns false and "
        "leaves it, while on a live handler it returns true.",
        (PIP430,),
        "pip/pip-430.md EntryReadCountHandler; pip430 §1.3",
    ),
    Invariant(
        "CACHE-SIZE-ACCOUNTING",
        "The reported total size equals the sum of the cached entries' sizes, inserted minus removed "
        "(all reasons) equals the number of cached entries, and no counter ever decreases.",
        (PIP430, MASTER, LEGACY),
        "pip430 §2.5, §5, I6 (RangeCache.size, currentSize, cacheEntryCount)",
    ),
    Invariant(
        "CACHE-WATERMARK",
        "A size-eviction step does nothing unless the size is above (long)(maxSize * trigger); above it, "
        "it ends at or below (long)(maxSize * watermark), stopping at the entry that gets it there, "
        "unless (pip430 only) every entry left is protected and younger than thresholdMax.",
        (PIP430, MASTER),
        "pip430 §1.7, §2.8, §2.9 (doEvictToWatermarkWhenOverThreshold)",
    ),
    Invariant(
        "CACHE-TTL",
        "A timestamp pass at `now` removes only expired entries and leaves none: pulsar-master: expired "
        "means ts < now - ttl (strict), and every entry left has ts >= now - ttl (requeued entries carry "
        "the pass's time); pip430: expired means count <= 0 and ts < now - ttl, or ts < now - "
        "thresholdMax.",
        (PIP430, MASTER),
        "pip430 §1.7 (two TTLs), §2.7 (strict <), E1; PR #24363 'Incorrect Timestamp-Based Eviction'",
    ),
    Invariant(
        "CACHE-NO-STALE-READ",
        "Reads agree with the cache: a hit only for a cached position and a miss only for an uncached "
        "one (legacy: or for any position of a range read that has an uncached one, read whole from "
        "storage), the copy a hit dispatches shares the entry's count; after invalidating a position, a "
        "ledger or the whole cache, none of the matching entries is left and no other entry is removed.",
        (PIP430, MASTER, LEGACY),
        "pip430 §2.3, §2.5 (removeRange, invalidateEntries, invalidateAllEntries, clear)",
    ),
    Invariant(
        "CACHE-BOUNDED-PROTECTION",
        "Protection by expected reads is bounded: an entry is requeued for its expected reads alone (no "
        "read since it last entered the queue) only while it has been requeued fewer than maxRequeue "
        "times, so no entry is permanently non-evictable. (Seen from outside, several requeues of one "
        "entry within one pass count as one.)",
        (MASTER,),
        "pip430 §2.6 shouldRequeue, §2.8, I4",
    ),
    Invariant(
        "CACHE-CURSOR-COUNT",
        "getNumberOfCursorsAtSamePositionOrBefore(cursor) is the number of active cursors of the same "
        "managed ledger whose read position is <= the cursor's, counting itself; 0 if it is not active.",
        ALL_PROFILES,
        "pip430 §1.6, §2.10 (ActiveManagedCursorContainerImpl)",
    ),
    Invariant(
        "CACHE-READ-COUNT",
        "An expected read count changes only through the operations the profile defines, by their "
        "amounts: pip430: -1 per released copy, +1 per replay increment, +n per merged duplicate, "
        "EVICTED on forced removal, all refused once EVICTED; pulsar-master: -1 per released copy, +1 "
        "per replay increment, -1 when the cache's own value is released on removal (D7), none without "
        "a handler. Every open copy and the cached entry sharing a handler show the same count.",
        (PIP430, MASTER),
        "pip430 §1.2-§1.5, §2.4, I7, D7",
    ),
    Invariant(
        "CACHE-DUPLICATE-MERGE",
        "Inserting a position that is cached returns false, leaves size and timestamp as they were, and "
        "adds the new expected read count to the cached entry's count (unless it is EVICTED).",
        (PIP430,),
        "pip/pip-430.md RangeEntryCacheImpl.insert; pip430 §1.5",
    ),
    Invariant(
        "CACHE-DUPLICATE-REFUSED",
        "Inserting a position that is cached returns false and changes nothing at all.",
        (MASTER, LEGACY),
        "pip430 §2.2 RangeCache.put (put-if-absent), §7.1 exists(); D4",
    ),
    Invariant(
        "CACHE-INSERT-ACCEPTED",
        "In an enabled cache, inserting an uncached position always caches it, stamped with the insert's "
        "time, with its expected read count (pulsar-master: no handler for a count <= 0), and changes "
        "nothing else: inserts are never refused for size and never evict by themselves.",
        (PIP430, MASTER),
        "pip430 §2.2 (put), §2.9 'Inserts are never blocked or refused because of size'",
    ),
    Invariant(
        "CACHE-SEGMENT-RING",
        "An entry no larger than a segment is always cached and readable right after its insert; a larger "
        "one is never cached and changes nothing; the size never exceeds segmentCount * segmentSize plus "
        "one alignment unit (63 bytes); rotation on insert is the only way an entry leaves.",
        (SEGMENTED,),
        "segmented §2.1-§2.5 (ReadCache.put, size())",
    ),
)

INVARIANTS: dict[str, Invariant] = {invariant.id: invariant for invariant in CATALOGUE}


def claimed(profile: str) -> tuple[Invariant, ...]:
    """The invariants a profile claims, in catalogue order."""
    return tuple(invariant for invariant in CATALOGUE if invariant.claimed_by(profile))
