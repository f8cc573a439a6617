"""Executable specification of the Pulsar broker entry cache (PIP-430 and the systems around it).

Read SPEC.md beside this file first. The public surface:

- ``CacheConfig``: every parameter with its Pulsar name and default; ``NAMED_CONFIGS``: settings real
  deployments pin (``get_named_config``).
- Operations (``Insert``, ``Get``, ``EvictSize``, ...), ``op_from_dict`` and ``OPERATIONS``.
- ``Observation`` / ``CachedEntry`` / ``Counters``: what a candidate shows.
- ``PROFILES`` / ``get_profile``: ``pip430``, ``pulsar-master``, ``legacy``, ``segmented``, each
  with ``init(config)``, ``step(state, op) -> frozenset[Outcome]`` and ``observe(state)``.
- ``CATALOGUE`` / ``INVARIANTS`` / ``claimed``: the named invariants, one module each under
  ``invariants/``; ``Monitor`` checks them on a candidate's history, with the replay traces use.
"""

from ledgerspec.spec.cache._base import Outcome, active_cursors, cursors_at_or_before
from ledgerspec.spec.cache._catalogue import ALL_PROFILES, CATALOGUE, INVARIANTS, Invariant, claimed
from ledgerspec.spec.cache._config import FIELDS, MIB, NANOS_PER_MILLI, CacheConfig
from ledgerspec.spec.cache._kernels import EVICTED
from ledgerspec.spec.cache._monitor import Monitor, Violation
from ledgerspec.spec.cache._named_configs import NAMED_CONFIGS, NamedConfig, get_named_config
from ledgerspec.spec.cache._observation import (
    REASONS,
    CachedEntry,
    Counters,
    Observation,
    describe_difference,
)
from ledgerspec.spec.cache._ops import (
    LEDGER_OPERATIONS,
    OPERATIONS,
    Append,
    Clear,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRead,
    CursorRemove,
    CursorSeek,
    EvictBefore,
    EvictBytes,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    LedgerClose,
    Op,
    Release,
    RemoveRange,
    ReplayIncrement,
    op_from_dict,
)
from ledgerspec.spec.cache._profiles import PROFILES, Profile, get_profile

__all__ = [
    "ALL_PROFILES",
    "CATALOGUE",
    "EVICTED",
    "FIELDS",
    "INVARIANTS",
    "LEDGER_OPERATIONS",
    "MIB",
    "NAMED_CONFIGS",
    "NANOS_PER_MILLI",
    "OPERATIONS",
    "PROFILES",
    "REASONS",
    "Append",
    "CacheConfig",
    "CachedEntry",
    "Clear",
    "Configure",
    "Counters",
    "CursorAdd",
    "CursorCount",
    "CursorRead",
    "CursorRemove",
    "CursorSeek",
    "EvictBefore",
    "EvictBytes",
    "EvictSize",
    "EvictTimestamp",
    "Get",
    "GetRange",
    "Insert",
    "InvalidateBefore",
    "InvalidateLedger",
    "Invariant",
    "LedgerClose",
    "Monitor",
    "NamedConfig",
    "Observation",
    "Op",
    "Outcome",
    "Profile",
    "Release",
    "RemoveRange",
    "ReplayIncrement",
    "Violation",
    "active_cursors",
    "claimed",
    "cursors_at_or_before",
    "describe_difference",
    "get_named_config",
    "get_profile",
    "op_from_dict",
]

assert sorted(__all__) == sorted(
    name
    for name in dir()
    if not name.startswith("_")
    and name
    not in {
        "invariants",
        "legacy",
        "pip430",
        "pulsar_master",
        "segmented",
    }
), "__all__ must list exactly the public names"
