"""The adapter protocol, its metadata, capability masking and discovery."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from ledgerspec.conformance._errors import AdapterFault, InputError, clip
from ledgerspec.conformance.adapters._transport import NO_COMMAND, Info
from ledgerspec.spec.cache import (
    PROFILES,
    Append,
    CacheConfig,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRead,
    CursorRemove,
    CursorSeek,
    EvictBefore,
    EvictBytes,
    GetRange,
    LedgerClose,
    Observation,
    Op,
    RemoveRange,
    ReplayIncrement,
)

CAPABILITIES: dict[str, str] = {
    "cursors": "cursor_add/remove/seek/count: the active-cursor container",
    "configure": "run-time configuration changes",
    "switch_track_reads": (
        "configure may switch track_reads (cacheEvictionByExpectedReadCount), also while managed ledgers are "
        "open: Pulsar fixes it when one is created"
    ),
    "get_range": "range reads",
    "replay_increment": "Key_Shared replay increments through a dispatched copy",
    "evict_bytes": "evict_bytes: a size eviction of a given number of bytes (evictLeastAccessedEntries)",
    "evict_before": "evict_before: a TTL pass with an explicit cutoff (evictLEntriesBeforeTimestamp)",
    "remove_range": "remove_range: removal of a range of one ledger (RangeCache.removeRange)",
    "observe_counts": "observations carry each entry's expected read count",
    "observe_timestamps": "observations carry each entry's queue timestamp",
    "observe_copies": "observations list the open dispatched copies with their counts",
    "observe_evictions": "observations carry the counter evictions (size-eviction runs that had bytes to free)",
    "observe_hit_bytes": "observations carry the counter hit_bytes (the bytes of every hit)",
    "observe_queue_length": "observations carry queue_length: the removal queue's wrappers, tombstones included",
    "observe_requeues": "observations carry each entry's requeues (the wrapper's requeueCount)",
    "observe_accessed": "observations carry each entry's accessed flag (set by a read, cleared by a requeue)",
    "observe_non_evictable_size": "observations carry non_evictable_size (getNonEvictableSize's bytes)",
    "managed_ledger": "append, cursor_read, ledger_close: the managed-ledger layer in front of the cache",
}
"""What an adapter may support. The engine sends only supported operations and compares only
observed fields; invariants that need a missing capability are reported as not checkable."""

NEEDS_BY_OPERATION: dict[type[Op], str] = {
    CursorAdd: "cursors",
    CursorRemove: "cursors",
    CursorSeek: "cursors",
    CursorCount: "cursors",
    Configure: "configure",
    GetRange: "get_range",
    ReplayIncrement: "replay_increment",
    EvictBytes: "evict_bytes",
    EvictBefore: "evict_before",
    RemoveRange: "remove_range",
    Append: "managed_ledger",
    CursorRead: "managed_ledger",
    LedgerClose: "managed_ledger",
}


_NO_QUEUE = frozenset({"observe_queue_length", "observe_requeues", "observe_accessed", "observe_non_evictable_size"})
NOT_OBSERVED = {
    "pip430": frozenset({"observe_queue_length", "observe_requeues", "observe_accessed"}),
    "legacy": frozenset({"observe_counts", "observe_evictions", "observe_hit_bytes"}) | _NO_QUEUE,
    "segmented": frozenset({"observe_counts", "observe_timestamps", "observe_evictions", "observe_hit_bytes"})
    | _NO_QUEUE,
}
"""What a profile's cache does not have at all: legacy keeps no read counts; the ring no timestamps; neither
has the merged factory's statistics (``ManagedLedgerFactoryMBeanImpl``, apache/pulsar#24623) nor a removal
queue. pip430 has no requeue count or accessed flag (the merged code's, apache/pulsar#24623), and its queue
length is left open: the PIP text does not say how the stash holds removed entries nor when a pass drops
one it finds (pip-430.md at cf3d7d17d9, "MISSING")."""


@dataclass(frozen=True)
class AdapterInfo(Info):
    """Who the candidate is and what it claims: sent in the handshake, printed in reports."""

    def __post_init__(self) -> None:
        unknown_profiles = [p for p in self.profiles if p not in PROFILES]
        if not self.profiles or unknown_profiles:
            raise AdapterFault(
                f"adapter {self.name!r} claims profiles {list(self.profiles)}; known: {', '.join(PROFILES)}"
            )
        unknown = sorted(self.capabilities - set(CAPABILITIES))
        if unknown:
            raise AdapterFault(f"adapter {self.name!r} claims unknown capabilities {unknown}")

    def supports(self, op: Op) -> bool:
        """Whether the engine may send this operation."""
        return self.supports_kind(type(op))

    def supports_kind(self, kind: type[Op]) -> bool:
        """Whether operations of this kind may be sent: the adapter claims what they need, if anything."""
        need = NEEDS_BY_OPERATION.get(kind)
        return need is None or need in self.capabilities

    def observed_in(self, profile: str) -> frozenset[str]:
        """The claims an observation is compared by under ``profile``: less what its cache does not have.

        Checked against another profile (pulsar-master's cache against pip430, say), a field that profile
        lacks (the queue's length) would differ at every step: it is blanked on both sides, like a field
        the adapter does not observe (``mask``).
        """
        return self.capabilities - NOT_OBSERVED.get(profile, frozenset())



@runtime_checkable
class CacheAdapter(Protocol):
    """A candidate entry cache, driven one operation at a time.

    ``start`` gives a fresh, empty cache with the configuration; ``apply`` performs one operation
    and returns its result as the spec defines it; ``observe`` reports the state; ``stop`` releases
    resources. Raise :class:`ledgerspec.conformance.AdapterFault` for anything that is the
    adapter's fault rather than the cache's behaviour.
    """

    info: AdapterInfo

    def start(self, config: CacheConfig) -> None: ...

    def apply(self, op: Op) -> Any: ...

    def observe(self) -> Observation: ...

    def stop(self) -> None: ...


AdapterFactory = Callable[[], CacheAdapter]


def mask(observation: Observation, capabilities: frozenset[str]) -> Observation:
    """Blank the fields an adapter does not observe, so both sides compare alike."""
    counts = "observe_counts" in capabilities
    stamps = "observe_timestamps" in capabilities
    if counts and stamps and capabilities >= _ALL_OBSERVED:
        return observation
    requeues, accessed = "observe_requeues" in capabilities, "observe_accessed" in capabilities
    entries = tuple(
        dataclasses.replace(
            entry,
            count=entry.count if counts else None,
            timestamp=entry.timestamp if stamps else None,
            requeues=entry.requeues if requeues else None,
            accessed=entry.accessed if accessed else None,
        )
        for entry in observation.entries
    )
    copies = observation.copies if "observe_copies" in capabilities else ()
    if copies and not counts:
        copies = tuple((copy, None) for copy, _ in copies)
    stats: dict[str, Any] = {name: None for name, need in _STATS.items() if need not in capabilities}
    counters = dataclasses.replace(observation.counters, **stats) if stats else observation.counters
    blanks: dict[str, Any] = {name: None for name, need in _QUEUE.items() if need not in capabilities}
    return dataclasses.replace(observation, entries=entries, copies=copies, counters=counters, **blanks)


_STATS = {"evictions": "observe_evictions", "hit_bytes": "observe_hit_bytes"}
"""The counters an adapter shows only with a capability, and that capability."""
_QUEUE = {"queue_length": "observe_queue_length", "non_evictable_size": "observe_non_evictable_size"}
"""The observation's fields about the removal queue, and the capability that shows each."""
_ALL_OBSERVED = frozenset(
    {"observe_copies", "observe_requeues", "observe_accessed", *_STATS.values(), *_QUEUE.values()}
)


_RESULT_TYPES: dict[str, tuple[type, ...]] = {
    "insert": (bool,),
    "get": (int, type(None)),
    "get_range": (list, tuple),
    "replay_increment": (bool, type(None)),
    "cursor_count": (int,),
    "evict_bytes": (list, tuple),
    "evict_before": (list, tuple),
    "remove_range": (list, tuple),
    "append": (bool,),
    "cursor_read": (list, tuple),
}
_FREED = frozenset({"evict_bytes", "evict_before", "remove_range"})
"""Operations whose result is what they freed: ``[entries, bytes]`` (``RangeCacheRemovalCounters``)."""


def result_problem(op: Op, result: Any) -> str | None:
    """What is wrong with the *type* of an operation's result (spec/cache/SPEC.md §3), if anything."""
    allowed = _RESULT_TYPES.get(op.kind, (type(None),))
    if (isinstance(result, bool) and bool not in allowed) or not isinstance(result, allowed):
        names = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
        return f"result of {op.kind} must be {names}, got {clip(repr(result), 300)}"
    if op.kind in _FREED:
        pair: list[Any] = list(result) if isinstance(result, list | tuple) else []
        if len(pair) != 2 or not all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in pair):
            shown = clip(repr(result), 300)
            return f"result of {op.kind} must be [entries, bytes] freed, two integers >= 0, got {shown}"
        return None
    if isinstance(result, list | tuple) and not all(
        r is None or (isinstance(r, int) and not isinstance(r, bool)) for r in result
    ):
        return f"result of {op.kind} must list copy ids and nulls, got {clip(repr(result), 300)}"
    return None


"""Said wherever an ``exec:`` adapter comes without one (every system's process transport)."""


def installed_adapters(*, load: bool = False) -> dict[str, Any]:
    """Installed adapter names and the object each entry point names (loaded, with ``load``)."""
    found = sorted(entry_points(group="ledgerspec.adapters"), key=lambda e: e.name)
    return {ep.name: ep.load() if load else ep.value for ep in found}


def load_adapter(name: str, *, timeout: float | None = None, validate_protocol: bool = False) -> AdapterFactory:
    """Resolve an adapter name to a factory; bad names are an :class:`InputError` naming the choices."""
    if name.startswith("exec:"):
        from ledgerspec.conformance.cache.adapters._process import process_factory  # noqa: PLC0415 - optional path

        command = name.removeprefix("exec:").strip()
        if not command:
            raise InputError(NO_COMMAND)
        return process_factory(command, timeout=timeout, validate_protocol=validate_protocol)
    installed = {ep.name: ep for ep in entry_points(group="ledgerspec.adapters")}
    if name in installed:
        from ledgerspec.conformance.adapters._harness import Harness  # noqa: PLC0415 - keeps subprocess code lazy

        target = installed[name].load()
        if isinstance(target, Harness):
            harness: AdapterFactory = target.factory(timeout=timeout, validate_protocol=validate_protocol)
            return harness
        return _checked_factory(target, name)
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise InputError(f"adapter {name!r}: cannot import module {module_name!r}: {error}") from None
        try:
            target = getattr(module, attr)
        except AttributeError:
            raise InputError(f"adapter {name!r}: module {module_name!r} has no attribute {attr!r}") from None
        return _checked_factory(target, name)
    known = ", ".join(sorted(installed)) or "none"
    raise InputError(f"unknown adapter {name!r}; installed: {known}; or use module:attr or exec:COMMAND")


def _checked_factory(target: Any, name: str) -> AdapterFactory:
    if not callable(target):
        raise InputError(f"adapter {name!r} names {target!r}, which is not a factory (a zero-argument callable)")

    def factory() -> CacheAdapter:
        try:
            adapter = target()
        except AdapterFault:
            raise
        except Exception as error:
            raise AdapterFault(f"adapter {name!r}: its factory raised {type(error).__name__}: {error}") from error
        if not isinstance(adapter, CacheAdapter):
            raise AdapterFault(f"adapter {name!r}: its factory returned {type(adapter).__name__}, not a CacheAdapter")
        return adapter

    return factory
