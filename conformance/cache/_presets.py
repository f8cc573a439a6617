"""The cache's configuration presets: a configuration plus the value ranges the state machine draws from.

``minimal`` makes eviction happen within a few steps (a cache of a few entries, TTLs of a few ticks);
``pulsar-defaults`` is Pulsar's own configuration with entry sizes and clock steps scaled to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.conformance._errors import InputError
from ledgerspec.spec.cache import MIB, NANOS_PER_MILLI, CacheConfig


@dataclass(frozen=True)
class Preset:
    """A configuration and the ranges of generated operations."""

    name: str
    config: CacheConfig
    ledgers: tuple[int, ...]
    """Ledger ids, offset by one base per example (``LEDGER_BASES`` of ``cache/machine/_marks``)."""
    entries: int
    """Entry ids are drawn from ``base .. base + entries - 1``, one base per example (``ENTRY_BASES`` of
    ``cache/machine/_marks``); tailing writes go on past them."""
    sizes: tuple[int, ...]
    max_sizes: tuple[int, ...]
    watermarks: tuple[float, ...]
    ttls: tuple[int, ...]
    ttl_maxes: tuple[int, ...]
    max_requeues: tuple[int, ...]
    ticks: tuple[int, ...]
    """Clock steps that are not relative to a TTL."""


PRESETS: dict[str, Preset] = {
    "minimal": Preset(
        name="minimal",
        config=CacheConfig(
            max_size=300,
            watermark=0.5,
            trigger=0.98,
            ttl=10,
            ttl_max=40,
            max_requeue=2,
            extend_ttl=True,
            segment_size_max=128,
        ),
        ledgers=(1, 2, 3),
        entries=8,
        sizes=(1, 10, 40, 64, 65, 100, 120, 151),
        max_sizes=(100, 300, 600),
        watermarks=(0.0, 0.5, 0.9),
        ttls=(5, 10, 20),
        ttl_maxes=(20, 40, 80),
        max_requeues=(0, 1, 2, 5),
        ticks=(1, 2, 3),
    ),
    "pulsar-defaults": Preset(
        name="pulsar-defaults",
        config=CacheConfig(),
        ledgers=(1, 2, 3),
        entries=64,
        sizes=(1024, 64 * 1024, 1 * MIB, 5 * MIB, 16 * MIB, 40 * MIB),
        max_sizes=(64 * MIB, 128 * MIB, 256 * MIB),
        watermarks=(0.5, 0.9),
        ttls=(500 * NANOS_PER_MILLI, 1000 * NANOS_PER_MILLI, 2000 * NANOS_PER_MILLI),
        ttl_maxes=(5000 * NANOS_PER_MILLI, 10000 * NANOS_PER_MILLI),
        max_requeues=(0, 5),
        ticks=(NANOS_PER_MILLI, 10 * NANOS_PER_MILLI, 100 * NANOS_PER_MILLI),
    ),
}


def get_preset(name: str) -> Preset:
    """The preset called ``name``; the error lists the choices."""
    try:
        return PRESETS[name]
    except KeyError:
        raise InputError(f"unknown preset {name!r}; choose one of: {', '.join(PRESETS)}") from None
