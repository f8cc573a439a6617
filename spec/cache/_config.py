"""The entry-cache configuration: every parameter, its Pulsar name and its default.

The table in SPEC.md ("Configuration") lists the same fields; tests/unit/test_spec_docs.py keeps the
two in step. Sizes are bytes and times are nanoseconds of the logical clock.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ledgerspec.spec._errors import ConfigError

MIB = 1024 * 1024
NANOS_PER_MILLI = 1_000_000
MAX_SEGMENTS = 4096
"""The most BookKeeper ``ReadCache`` segments a configuration may make (``max_size // segment_size_max``).

``ReadCache`` allocates every segment's buffer up front, and BookKeeper 4.17.3 builds it with
``DEFAULT_MAX_SEGMENT_SIZE`` (1 GiB): 4096 segments is a 4 TiB read cache. The segmented model and its
checks walk the ring, so millions of 1-byte segments (a valid-looking ``segment_size_max``) would stall
them instead of answering."""


@dataclass(frozen=True, kw_only=True)
class CacheConfig:
    """Configuration shared by all entry-cache profiles; each profile reads the fields it needs."""

    max_size: int = 128 * MIB
    """``managedLedgerCacheSizeMB`` in bytes (library default 128 MiB). 0 disables caching."""
    watermark: float = 0.9
    """``managedLedgerCacheEvictionWatermark``: size eviction frees down to ``max_size * watermark``."""
    trigger: float = 0.98
    """``evictionTriggerThresholdPercent``: size eviction starts above ``max_size * trigger``."""
    ttl: int = 1000 * NANOS_PER_MILLI
    """``managedLedgerCacheEvictionTimeThresholdMillis`` in nanoseconds."""
    ttl_max: int = 5000 * NANOS_PER_MILLI
    """``managedLedgerCacheEvictionTimeThresholdMillisMax`` (PIP text only) in nanoseconds."""
    max_requeue: int = 5
    """``managedLedgerCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes``."""
    extend_ttl: bool = True
    """``managedLedgerCacheEvictionExtendTTLOfRecentlyAccessed``."""
    track_reads: bool = True
    """``cacheEvictionByExpectedReadCount``: off, the managed-ledger layer invalidates by the slowest cursor."""
    segment_size_max: int = 1024 * MIB
    """BookKeeper ``ReadCache`` maximum segment size (``DEFAULT_MAX_SEGMENT_SIZE``)."""

    def __post_init__(self) -> None:
        problems = config_problems(dataclasses.asdict(self))
        if problems:
            raise ConfigError("; ".join(problems))
        segments = self.max_size // self.segment_size_max
        if segments > MAX_SEGMENTS:
            raise ConfigError(
                f"max_size {self.max_size} over segment_size_max {self.segment_size_max} makes {segments} "
                f"ReadCache segments; at most {MAX_SEGMENTS} are supported (a smaller max_size, or a larger "
                "segment_size_max)"
            )

    @property
    def trigger_size(self) -> int:
        """``(long)(maxSize * trigger)``: Java truncates the double product toward zero."""
        return int(self.max_size * self.trigger)

    @property
    def watermark_size(self) -> int:
        """``(long)(maxSize * watermark)``."""
        return int(self.max_size * self.watermark)

    def replace(self, **changes: Any) -> CacheConfig:
        """A copy with some fields changed (validated like a new config)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form, for JSON cases and trace metadata."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "config") -> CacheConfig:
        """Build from plain data, naming unknown fields instead of ignoring them."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected an object, got {type(data).__name__}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELDS)}")
        try:
            return cls(**data)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None


_INT_RANGES = {
    "max_size": 0,
    "ttl": 0,
    "ttl_max": 0,
    "max_requeue": 0,
    "segment_size_max": 1,
}
_FRACTIONS = ("watermark", "trigger")
_BOOLS = ("extend_ttl", "track_reads")

FIELDS: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(CacheConfig))

USED_BY: dict[str, tuple[str, ...]] = {
    "pip430": ("max_size", "watermark", "trigger", "ttl", "ttl_max", "track_reads"),
    "pulsar-master": ("max_size", "watermark", "trigger", "ttl", "max_requeue", "extend_ttl", "track_reads"),
    "legacy": ("max_size", "watermark", "trigger", "ttl"),
    "segmented": ("max_size", "segment_size_max"),
}
"""The fields each profile reads (SPEC.md §1.2, "Used by"): what a counterexample's configuration shows."""


def config_problems(values: dict[str, Any]) -> list[str]:
    """Every problem with the given field values, worded as expected / name / value / type."""
    problems = []
    for name, value in values.items():
        if name in _INT_RANGES:
            low = _INT_RANGES[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                problems.append(f"expected an int >= {low} for {name}, got {value!r} ({type(value).__name__})")
        elif name in _FRACTIONS:
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                problems.append(f"expected a number in [0, 1] for {name}, got {value!r} ({type(value).__name__})")
        elif name in _BOOLS and not isinstance(value, bool):
            problems.append(f"expected a bool for {name}, got {value!r} ({type(value).__name__})")
    return problems
