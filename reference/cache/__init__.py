"""Reference implementations of the four entry-cache profiles: clear, mutable and efficient.

Each class behaves exactly like the matching model of ``ledgerspec.spec.cache`` on every observation
(tests/unit/test_differential.py checks it), but keeps mutable indexes instead of re-deriving state,
so that every operation is amortized O(log n), except the legacy policy's sort of the caches on each
size eviction. Nothing here imports the spec. The public methods of a cache are the operation kinds of
spec/cache/_ops.py, with the operations' field names as keyword arguments; ``snapshot()`` gives the
spec's observation as plain data, ``snapshot_rows()`` the same with entries as ``EntryRow`` tuples,
and ``snapshot_at(positions)`` the entries at some positions only (with a ``ChangedPositions``
listening, the positions the last operations may have changed).

- ``Pip430Cache``: the PIP-430 text (pip-430.md at cf3d7d17d9): queue + stash, two TTLs, EVICTED.
- ``PulsarMasterCache``: as merged (apache/pulsar#24623): requeue, accessed flag, one TTL, duplicates refused.
- ``LegacyCache``: the pre-PIP per-ledger caches and proportional eviction policy (apache/pulsar at 8ce67b97b3^).
- ``SegmentedCache``: a ring of segments, as BookKeeper's ``ReadCache`` (BookKeeper ReadCache at 9590a97f67).

Building blocks: ``Pip430ReadCount`` / ``MergedReadCount`` (``_read_count``), ``ActiveCursors``
(``_cursors``), ``RemovalQueue`` / ``Stash`` / ``Wrapper`` (``_removal_queue``), ``RangeCaches``
(``_range_cache``), ``Config`` (``_config``), ``ChangedPositions`` (``_changes``) and the shared
``ReferenceCache`` base (``_base``).
"""

import typing as _typing

from ledgerspec.reference._errors import ReferenceCacheError
from ledgerspec.reference.cache._base import COUNTERS, EntryRow, ReferenceCache
from ledgerspec.reference.cache._changes import ChangedPositions
from ledgerspec.reference.cache._config import Config
from ledgerspec.reference.cache._cursors import ActiveCursors
from ledgerspec.reference.cache._legacy import LegacyCache
from ledgerspec.reference.cache._pip430 import Pip430Cache
from ledgerspec.reference.cache._pulsar_master import PulsarMasterCache
from ledgerspec.reference.cache._range_cache import RangeCaches
from ledgerspec.reference.cache._read_count import EVICTED, MergedReadCount, Pip430ReadCount
from ledgerspec.reference.cache._removal_queue import RemovalQueue, Stash, Wrapper
from ledgerspec.reference.cache._segmented import SegmentedCache

CACHES: dict[str, type[ReferenceCache[_typing.Any]]] = {
    "pip430": Pip430Cache,
    "pulsar-master": PulsarMasterCache,
    "legacy": LegacyCache,
    "segmented": SegmentedCache,
}
"""The reference cache of each profile, by the spec's profile name."""

__all__ = [
    "CACHES",
    "COUNTERS",
    "EVICTED",
    "ActiveCursors",
    "ChangedPositions",
    "Config",
    "EntryRow",
    "LegacyCache",
    "MergedReadCount",
    "Pip430Cache",
    "Pip430ReadCount",
    "PulsarMasterCache",
    "RangeCaches",
    "ReferenceCache",
    "ReferenceCacheError",
    "RemovalQueue",
    "SegmentedCache",
    "Stash",
    "Wrapper",
]

assert sorted(__all__) == sorted(name for name in dir() if not name.startswith("_")), (
    "__all__ must list exactly the public names"
)
assert all(name == cls.PROFILE for name, cls in CACHES.items()), "CACHES keys must be the profiles' names"
