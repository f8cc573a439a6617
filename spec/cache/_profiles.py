"""The registry of entry-cache profiles: a name, a one-line summary, and the model's three functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ledgerspec.spec._errors import UnknownProfileError
from ledgerspec.spec._rules import RuleTable
from ledgerspec.spec.cache import legacy, pip430, pulsar_master, segmented
from ledgerspec.spec.cache._base import Outcome
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._observation import Observation
from ledgerspec.spec.cache._ops import Op


@dataclass(frozen=True)
class Profile:
    """A named set of semantics a candidate can claim."""

    name: str
    summary: str
    source: str
    init: Callable[[CacheConfig], Any]
    step: Callable[[Any, Op], frozenset[Outcome[Any]]]
    observe: Callable[[Any], Observation]
    operations: frozenset[type[Op]]
    """The operations the profile has (its model's rules); any other is refused by ``step``."""
    citations: RuleTable
    """Which SPEC.md section and upstream method each rule follows: a model divergence names them."""

    def knows(self, op: Op | type[Op]) -> bool:
        """Whether the profile has this operation (Pulsar or BookKeeper has its counterpart)."""
        return (op if isinstance(op, type) else type(op)) in self.operations


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile(
            name=pip430.NAME,
            summary="PIP-430 as its text states it: stash, two TTLs, EVICTED sentinel, merged duplicates",
            source="apache/pulsar pip/pip-430.md at cf3d7d17d9 (PR #24444)",
            init=pip430.init,
            step=pip430.step,
            observe=pip430.observe,
            operations=frozenset(pip430.RULES),
            citations=pip430.CITATIONS,
        ),
        Profile(
            name=pulsar_master.NAME,
            summary="as merged: bounded requeue, accessed-flag TTL extension, one TTL, duplicates refused",
            source="apache/pulsar PR #24623 at 490ba0cca1, fixes to fbcfacf324 (PR #25988)",
            init=pulsar_master.init,
            step=pulsar_master.step,
            observe=pulsar_master.observe,
            operations=frozenset(pulsar_master.RULES),
            citations=pulsar_master.CITATIONS,
        ),
        Profile(
            name=legacy.NAME,
            summary="pre-PIP EntryCacheDefaultEvictionPolicy and per-cache TTL walk",
            source="apache/pulsar impl/cache/EntryCacheDefaultEvictionPolicy.java at 8ce67b97b3^ (before PR #24363)",
            init=legacy.init,
            step=legacy.step,
            observe=legacy.observe,
            operations=frozenset(legacy.RULES),
            citations=legacy.CITATIONS,
        ),
        Profile(
            name=segmented.NAME,
            summary="a ring of segments with whole-segment rotation, as BookKeeper's ReadCache",
            source="bookkeeper 9590a97f67 ReadCache.java; PIP-174 (#15954); BookKeeper ReadCache at 9590a97f67",
            init=segmented.init,
            step=segmented.step,
            observe=segmented.observe,
            operations=frozenset(segmented.RULES),
            citations=segmented.CITATIONS,
        ),
    )
}


def get_profile(name: str) -> Profile:
    """The profile called ``name``; the error lists the known names."""
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfileError(f"unknown profile {name!r}; known profiles: {', '.join(PROFILES)}") from None
