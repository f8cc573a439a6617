"""The registry of entry-cache profiles: a name, a one-line summary, and the model's three functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
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


def _profile(model: ModuleType, summary: str, source: str) -> Profile:
    """A profile from its model's module: ``NAME``, ``init``, ``step``, ``observe``, ``RULES``, ``CITATIONS``."""
    return Profile(
        name=model.NAME,
        summary=summary,
        source=source,
        init=model.init,
        step=model.step,
        observe=model.observe,
        operations=frozenset(model.RULES),
        citations=model.CITATIONS,
    )


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        _profile(
            pip430,
            "PIP-430 as its text states it: stash, two TTLs, EVICTED sentinel, merged duplicates",
            "apache/pulsar pip/pip-430.md at cf3d7d17d9 (PR #24444)",
        ),
        _profile(
            pulsar_master,
            "as merged: bounded requeue, accessed-flag TTL extension, one TTL, duplicates refused",
            "apache/pulsar PR #24623 at 490ba0cca1, fixes to fbcfacf324 (PR #25988)",
        ),
        _profile(
            legacy,
            "pre-PIP EntryCacheDefaultEvictionPolicy and per-cache TTL walk",
            "apache/pulsar impl/cache/EntryCacheDefaultEvictionPolicy.java at 8ce67b97b3^ (before PR #24363)",
        ),
        _profile(
            segmented,
            "a ring of segments with whole-segment rotation, as BookKeeper's ReadCache",
            "bookkeeper 9590a97f67 ReadCache.java; PIP-174 (#15954); BookKeeper ReadCache at 9590a97f67",
        ),
    )
}


def get_profile(name: str) -> Profile:
    """The profile called ``name``; the error lists the known names."""
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfileError(f"unknown profile {name!r}; known profiles: {', '.join(PROFILES)}") from None
