"""Configuration of a reference cache: the spec's fields, defaults and value ranges, re-implemented.

Sources: apache/pulsar ``pulsar-broker-common/src/main/java/org/apache/pulsar/broker/
ServiceConfiguration.java`` at 490ba0cca1 (PR #24623; keys and defaults of the merged code),
``pip/pip-430.md`` at cf3d7d17d9 (the PIP text's ``...ThresholdMillisMax``) and apache/bookkeeper
``ReadCache.java`` at 9590a97f67 (``DEFAULT_MAX_SEGMENT_SIZE``). Sizes are bytes, times nanoseconds of
the logical clock. Every check is O(1).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ledgerspec.reference._errors import ReferenceCacheError

MIB = 1024 * 1024
NANOS_PER_MILLI = 1_000_000

_INT_MINIMUM = {"max_size": 0, "ttl": 0, "ttl_max": 0, "max_requeue": 0, "segment_size_max": 1}
_FRACTIONS = ("watermark", "trigger")


@dataclass(frozen=True, kw_only=True, slots=True)
class Config:
    """The validated parameters; a run-time change replaces the whole value (:meth:`changed`)."""

    max_size: int = 128 * MIB
    """``managedLedgerCacheSizeMB`` in bytes; 0 at start gives ``EntryCacheDisabled`` (apache/pulsar#24623)."""
    watermark: float = 0.9
    """``managedLedgerCacheEvictionWatermark``: size eviction frees down to ``max_size * watermark``."""
    trigger: float = 0.98
    """``evictionTriggerThresholdPercent``: size eviction runs above ``max_size * trigger`` (apache/pulsar#24623)."""
    ttl: int = 1000 * NANOS_PER_MILLI
    """``managedLedgerCacheEvictionTimeThresholdMillis`` in nanoseconds."""
    ttl_max: int = 5000 * NANOS_PER_MILLI
    """``managedLedgerCacheEvictionTimeThresholdMillisMax`` (PIP text only, pip-430.md at cf3d7d17d9) in nanoseconds."""
    max_requeue: int = 5
    """``...ExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes`` (apache/pulsar#24623)."""
    extend_ttl: bool = True
    """``managedLedgerCacheEvictionExtendTTLOfRecentlyAccessed`` (apache/pulsar#24623)."""
    track_reads: bool = True
    """``cacheEvictionByExpectedReadCount`` of the managed ledger (apache/pulsar#24623); off: legacy invalidation."""
    segment_size_max: int = 1024 * MIB
    """BookKeeper ``ReadCache`` maximum segment size (BookKeeper ReadCache at 9590a97f67)."""

    def __post_init__(self) -> None:
        check_config(dataclasses.asdict(self), where="config")

    @property
    def trigger_size(self) -> int:
        """``(long)(maxSize * trigger)``: Java truncates the double product toward zero."""
        return int(self.max_size * self.trigger)

    @property
    def watermark_size(self) -> int:
        """``(long)(maxSize * watermark)``."""
        return int(self.max_size * self.watermark)

    def changed(self, changes: dict[str, Any]) -> Config:
        """Return a copy with some fields changed, validated like a new configuration."""
        return dataclasses.replace(self, **changes)


def config_problems(values: dict[str, Any]) -> list[str]:
    """Every out-of-range or mistyped value, naming the field and the value."""
    problems = []
    for name, value in values.items():
        if name in _INT_MINIMUM:
            low = _INT_MINIMUM[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                problems.append(f"{name} must be an int >= {low}, got {value!r}")
        elif name in _FRACTIONS:
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                problems.append(f"{name} must be a number in [0, 1], got {value!r}")
        elif name in ("extend_ttl", "track_reads") and not isinstance(value, bool):
            problems.append(f"{name} must be a bool, got {value!r}")
    return problems


def check_config(values: dict[str, Any], *, where: str) -> None:
    """Raise :class:`ReferenceCacheError` listing every problem of ``values``."""
    problems = config_problems(values)
    if problems:
        raise ReferenceCacheError(f"{where}: " + "; ".join(problems))
