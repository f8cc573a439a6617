"""Where the profiles differ, found by the suite itself: the data behind ``ledgerspec deviations``.

Each finding names an adapter, the profile it is checked against, the invariant expected to break
and, when it helps isolate one deviation, a configuration override. The deviations D1-D12 are the
differences between the PIP-430 text (apache/pulsar ``pip/pip-430.md`` at cf3d7d17d9, PR #24444) and
the code merged by PR #24623 (490ba0cca1); the legacy flaws L1-L5 are those apache/pulsar PR #24363
describes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance.cache._engine import Report, conform
from ledgerspec.conformance.cache.adapters import load_adapter


def search_one(
    adapter: str,
    profile: str,
    invariant: str,
    *,
    settings: str,
    seed: int,
    config: dict[str, Any],
    exclude: frozenset[str],
    named_config: str | None = None,
) -> Report:
    """A conformance search for one known difference alone: its invariant, configuration and excluded rules."""
    return conform(
        load_adapter(adapter),
        profile=profile,
        settings=settings,
        seed=seed,
        invariants=[invariant],
        config=config,
        exclude=exclude,
        named_config=named_config,
    )


@dataclass(frozen=True)
class Finding:
    """One expected difference between an implementation and a profile."""

    key: str
    title: str
    adapter: str
    profile: str
    invariant: str | None
    """None when the difference cannot be observed through the operations (``why`` says why)."""
    config: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    exclude: frozenset[str] = frozenset()
    """State-machine rules left out so that the counterexample shows this deviation, not another."""


MASTER_VS_PIP430 = "reference-pulsar-master"
LEGACY = "reference-legacy"

FINDINGS: tuple[Finding, ...] = (
    Finding(
        "D1",
        "stash replaced by bounded requeue to the tail",
        MASTER_VS_PIP430,
        "pip430",
        "CACHE-PROTECT-UNTIL-EXPIRED",
        {"extend_ttl": False},
        "size eviction removes a protected entry once its requeue budget is spent, where the PIP stashes it",
        frozenset({"evict_timestamp"}),
    ),
    Finding(
        "D2",
        "CachedEntry/CachedEntryImpl replaced by EntryImpl",
        MASTER_VS_PIP430,
        "pip430",
        None,
        why="a difference of Java types; no operation observes it",
    ),
    Finding(
        "D3",
        "no EVICTED sentinel, no markEvicted, increments return nothing",
        MASTER_VS_PIP430,
        "pip430",
        "CACHE-EVICTED-FINAL",
        {},
        "a forced removal leaves the shared handler live; copies keep counting",
    ),
    Finding(
        "D4",
        "duplicate insert refused instead of merging its count",
        MASTER_VS_PIP430,
        "pip430",
        "CACHE-DUPLICATE-MERGE",
        {},
        "the second insert's expected reads are lost",
    ),
    Finding(
        "D5",
        "one TTL with extensions instead of thresholdMax",
        MASTER_VS_PIP430,
        "pip430",
        "CACHE-TTL",
        {"extend_ttl": False},
        "a protected entry leaves after (1 + maxRequeue) TTL passes, not at thresholdMax",
        frozenset({"evict_size"}),
    ),
    Finding(
        "D6",
        "size eviction ignores timestamps",
        MASTER_VS_PIP430,
        "pip430",
        "CACHE-OLDEST-FIRST",
        {"extend_ttl": False},
        "an entry past thresholdMax is requeued for its expected reads while newer entries go",
        frozenset({"evict_timestamp"}),
    ),
    Finding(
        "D7",
        "the cache's own value decrements the count when released",
        MASTER_VS_PIP430,
        "pip430",
        "CACHE-READ-COUNT",
        {},
        "open copies see one more decrement when the entry leaves the cache",
        frozenset({"insert", "backlog_insert", "invalidate"}),
    ),
    Finding(
        "D8",
        "mark-delete does not decrement counts",
        MASTER_VS_PIP430,
        "pip430",
        None,
        why="the PIP text does not say how mark-delete would decrement (open point 1.8.5); not modelled",
    ),
    Finding(
        "D9",
        "cursor counter kept in ActiveManagedCursorContainerImpl",
        MASTER_VS_PIP430,
        "pip430",
        None,
        why="same count, different structure; CACHE-CURSOR-COUNT holds for both",
    ),
    Finding(
        "D10",
        "managedLedgerContinueCachingAddedEntriesAfterLastActiveCursorLeavesMillis is dead",
        MASTER_VS_PIP430,
        "pip430",
        None,
        why="broker configuration outside the cache",
    ),
    Finding(
        "D11",
        "requeue for expected reads also in legacy mode",
        MASTER_VS_PIP430,
        "pip430",
        None,
        why="the mode flag is not part of the cache's operations here",
    ),
    Finding(
        "D12",
        "PIP text's 2 x threshold minimum TTL claim",
        MASTER_VS_PIP430,
        "pip430",
        None,
        why="a statement of the master PIP text, not a behaviour of either profile",
    ),
    Finding(
        "L1",
        "size eviction evicts newer entries of large caches while older ones stay",
        LEGACY,
        "pulsar-master",
        "CACHE-OLDEST-FIRST",
        {},
        "the proportional policy frees the lowest positions of the largest caches",
        frozenset({"evict_timestamp"}),
    ),
    Finding(
        "L2",
        "expired entries stay behind newer, lower-positioned ones",
        LEGACY,
        "pulsar-master",
        "CACHE-FIFO",
        {},
        "the per-cache TTL walk stops at the first unexpired entry in position order",
        frozenset({"evict_size"}),
    ),
    Finding(
        "L3",
        "TTL compares with <=",
        LEGACY,
        "pulsar-master",
        "CACHE-TTL",
        {},
        "an entry exactly one TTL old is removed",
    ),
    Finding(
        "L4",
        "the cache is left above its maximum without further inserts",
        LEGACY,
        "pulsar-master",
        "CACHE-WATERMARK",
        {},
        "eviction is scheduled only by an insert that sees the size above the trigger",
        frozenset({"configure", "evict_timestamp"}),
    ),
    Finding(
        "L5",
        "inserts refused once the size reaches the maximum",
        LEGACY,
        "pulsar-master",
        "CACHE-INSERT-ACCEPTED",
        {},
        "hasSpaceInCache() refuses instead of evicting",
    ),
)
