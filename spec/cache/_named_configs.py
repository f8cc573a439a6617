"""Named configurations of a profile: settings a real deployment runs with, pinned for a conformance run.

A named configuration sets some fields of :class:`CacheConfig` and says where the values come from.
A run under it starts from the preset's configuration with these fields replaced, and does not change
them at run time (SPEC.md §1.2, "Named configurations").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledgerspec.spec._errors import ConfigError
from ledgerspec.spec.cache._config import config_problems


@dataclass(frozen=True)
class NamedConfig:
    """Fields a real deployment pins, with the profile they belong to and their source."""

    name: str
    profile: str
    summary: str
    source: str
    values: dict[str, Any]

    def __post_init__(self) -> None:
        problems = config_problems(self.values)
        if problems:
            raise ConfigError(f"named configuration {self.name}: {'; '.join(problems)}")


NAMED_CONFIGS: dict[str, NamedConfig] = {
    named.name: named
    for named in (
        NamedConfig(
            name="shipped-4.2.4",
            profile="pulsar-master",
            summary="the TTL extensions as Pulsar 4.1.0-4.2.x brokers run them: both on, 5 requeues",
            source=(
                "apache/pulsar v4.2.4: managed-ledger ManagedLedgerFactoryConfig defaults "
                "cacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes = 5 and "
                "cacheEvictionExtendTTLOfRecentlyAccessed = true; pulsar-broker ManagedLedgerClientFactory "
                "does not pass the two broker settings to the factory at startup, so a broker starts with "
                "these library defaults whatever broker.conf says (BrokerService applies later dynamic "
                "updates only)"
            ),
            values={"max_requeue": 5, "extend_ttl": True},
        ),
        NamedConfig(
            name="pr-26627",
            profile="pulsar-master",
            summary="after apache/pulsar PR #26627: the recently-accessed extension off, both set at startup",
            source=(
                "apache/pulsar PR #26627 (2026-09): managedLedgerCacheEvictionExtendTTLOfRecentlyAccessed "
                "defaults to false and ManagedLedgerClientFactory passes both settings to the factory at "
                "startup; the expected-reads extension keeps its default of 5"
            ),
            values={"max_requeue": 5, "extend_ttl": False},
        ),
    )
}


def get_named_config(name: str, profile: str) -> NamedConfig:
    """The named configuration ``name`` of ``profile``; the error lists the ones there are."""
    named = NAMED_CONFIGS.get(name)
    if named is None or named.profile != profile:
        known = [n.name for n in NAMED_CONFIGS.values() if n.profile == profile]
        raise ConfigError(f"no named configuration {name!r} for profile {profile}; known: {', '.join(known) or 'none'}")
    return named
