"""The cache policy simulator: what each profile's policy costs on Pulsar-like read patterns.

One run is (workload, profile, cache size, seed): the workload (``_workload``) drives the
profile's reference cache and a :class:`Meter`, the cache's listener, counts from the cache's own
events (traces/FORMAT.md) what matters to an operator:

* reads: entries the consumers asked for (cursor reads and Key_Shared redeliveries); the same number
  for every profile of a run;
* BookKeeper reads: the ``miss`` events, each one entry read from storage (legacy reads a partly
  cached range whole: every position is a miss), and their bytes; hit rate = 1 - misses / reads;
* evictions by reason: ``remove`` events by the kind of their pass (``size``, ``ttl``, ``invalidate``,
  ``clear``), and of them the *awaited* ones: the entry was still to be read, by an active cursor at
  or before it on its ledger or from a Key_Shared replay queue (what the consumers will read, known to
  the simulator whatever the profile's own read counts say);
* size evictions out of age order: entries a size pass removed while an entry inserted before them
  stayed in the cache (the insert's time, not a requeue's: what "oldest first" means to an operator);
* the reported cache size after every operation: its peak and its mean.

Every number of a run is a deterministic function of its four parameters: the local and the Spark
engines (``_sweep``) give the same numbers.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import CacheConfig
from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
from ledgerspec.traces.cache.simulate._workload import Workload, replay_ops

REASONS = ("size", "ttl", "invalidate", "clear")
"""Removal reasons the simulated brokers produce (the workloads trim nothing by hand: no ``bytes``, ...)."""
METRICS = (
    "events",
    "reads",
    "hit_rate",
    "bk_reads",
    "bk_bytes",
    "evicted",
    *(f"evicted_{reason}" for reason in REASONS),
    "awaited_evicted",
    "awaited_evicted_bytes",
    *(f"awaited_{reason}" for reason in REASONS),
    "younger_evicted",
    "peak_size",
    "mean_size",
)
"""Every number a run reports, in report order (all are also in the JSON, per run and per cell)."""


class Meter:
    """The cache's listener and the driver's counter: turns events into a run's metrics."""

    def __init__(self) -> None:
        self.sizes: dict[int, list[int]] = {}
        """Each ledger's stored entry sizes (set by the workload): the bytes of a read from storage."""
        self.reads = 0
        self.misses = 0
        self.miss_bytes = 0
        self.removed: Counter[str] = Counter()
        self.awaited: Counter[str] = Counter()
        self.awaited_bytes = 0
        self.cursors: dict[int, dict[str, int]] = {}
        self.pending: dict[int, Counter[int]] = {}
        """Per ledger, the positions waiting in Key_Shared replay queues (how many queues each)."""
        self.ops = 0
        self.size_sum = 0
        self.peak = 0
        self.inserted_at: dict[tuple[int, int], int] = {}
        self.by_age: list[tuple[int, int, int]] = []
        """(insert time, ledger, entry) of cached entries, a heap; stale items are skipped when met."""
        self.size_pass: list[int] | None = None
        """The insert times of what the size pass under way removed."""
        self.younger = 0

    def __call__(self, kind: str, now: int, fields: dict[str, Any]) -> None:  # noqa: ARG002 - the listener's signature
        """The cache's listener (``ReferenceCache.listen``)."""
        if kind == "miss":
            self.misses += 1
            self.miss_bytes += self.sizes[fields["ledger"]][fields["entry"]]
        elif kind == "insert":
            position = (fields["ledger"], fields["entry"])
            self.inserted_at[position] = fields["timestamp"]
            heapq.heappush(self.by_age, (fields["timestamp"], *position))
        elif kind == "remove":
            reason = fields.get("reason") or "other"
            self.removed[reason] += 1
            position = (fields["ledger"], fields["entry"])
            inserted = self.inserted_at.pop(position, None)
            if self.size_pass is not None and inserted is not None:
                self.size_pass.append(inserted)
            if self.is_awaited(*position):
                self.awaited[reason] += 1
                self.awaited_bytes += fields["size"]
        elif kind == "pass_start" and fields["reason"] == "size":
            self.size_pass = []
        elif kind == "pass_end" and self.size_pass is not None:
            oldest = self.oldest_cached()
            self.younger += sum(1 for inserted in self.size_pass if oldest is not None and inserted > oldest)
            self.size_pass = None
        elif kind in ("cursor_add", "cursor_seek"):
            self.cursors.setdefault(fields["ledger"], {})[fields["cursor"]] = fields["entry"]
        elif kind == "cursor_remove":
            self.cursors.get(fields["ledger"], {}).pop(fields["cursor"], None)

    def is_awaited(self, ledger: int, entry: int) -> bool:
        """Will a consumer still read the entry: an active cursor at or before it, or a replay queue holding it."""
        positions = self.cursors.get(ledger)
        if positions and min(positions.values()) <= entry:
            return True
        return self.pending.get(ledger, Counter())[entry] > 0

    def oldest_cached(self) -> int | None:
        """The insert time of the oldest entry cached, or None if the cache is empty."""
        heap = self.by_age
        while heap and self.inserted_at.get((heap[0][1], heap[0][2])) != heap[0][0]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def replay_add(self, ledger: int, entry: int) -> None:
        """A Key_Shared consumer put the position in its replay queue."""
        self.pending.setdefault(ledger, Counter())[entry] += 1

    def replay_done(self, ledger: int, entry: int) -> None:
        """The position was redelivered from the replay queue."""
        pending = self.pending[ledger]
        pending[entry] -= 1
        if not pending[entry]:
            del pending[entry]

    def after_op(self, size: int) -> None:
        """Sample the reported size after one operation."""
        self.ops += 1
        self.size_sum += size
        self.peak = max(self.peak, size)

    def metrics(self) -> dict[str, float]:
        """The run's numbers, keyed as :data:`METRICS`."""
        values: dict[str, float] = {
            "events": self.ops,
            "reads": self.reads,
            "hit_rate": 1 - self.misses / self.reads if self.reads else 0.0,
            "bk_reads": self.misses,
            "bk_bytes": self.miss_bytes,
            "evicted": sum(self.removed.values()),
            "awaited_evicted": sum(self.awaited.values()),
            "awaited_evicted_bytes": self.awaited_bytes,
            "younger_evicted": self.younger,
            "peak_size": self.peak,
            "mean_size": self.size_sum / self.ops if self.ops else 0.0,
        }
        for reason in REASONS:
            values[f"evicted_{reason}"] = self.removed[reason]
            values[f"awaited_{reason}"] = self.awaited[reason]
        return {name: values[name] for name in METRICS}


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """One run's parameters: everything its numbers depend on."""

    workload: str
    profile: str
    cache_size: int
    seed: int
    steps: int
    topics: int = 8

    def config(self) -> CacheConfig:
        """The broker's cache configuration: the trace generator's defaults at this cache size."""
        return DEFAULT_CONFIG.replace(max_size=self.cache_size)


def build(spec: RunSpec, *, record: bool = False) -> tuple[Workload, Meter]:
    """The run's cache, meter and workload, ready to run."""
    meter = Meter()
    cache = CACHES[spec.profile](**spec.config().to_dict())
    cache.listen(meter)
    workload = Workload(cache, spec.workload, topics=spec.topics, seed=spec.seed, meter=meter, record=record)
    return workload, meter


def simulate_one(spec: RunSpec) -> dict[str, float]:
    """Run one (workload, profile, cache size, seed) and return its metrics."""
    workload, meter = build(spec)
    workload.run(spec.steps)
    return meter.metrics()


@dataclass(frozen=True)
class Speed:
    """The simulator's speed on one run against the reference driven alone on the same operations."""

    events: int
    simulated_seconds: float
    alone_seconds: float

    @property
    def ratio(self) -> float:
        """Simulated events per second over the reference's alone (1.0: the simulator costs nothing)."""
        return self.alone_seconds / self.simulated_seconds


def measure_speed(spec: RunSpec) -> Speed:
    """Time one run, then the same recorded operations on a fresh cache with no listener (same process)."""
    workload, meter = build(spec)
    started = time.perf_counter()
    workload.run(spec.steps)
    simulated = time.perf_counter() - started
    recorder, _ = build(spec, record=True)
    recorder.run(spec.steps)
    ops = recorder.log or []
    alone = CACHES[spec.profile](**spec.config().to_dict())
    started = time.perf_counter()
    replay_ops(alone, ops)
    return Speed(events=meter.ops, simulated_seconds=simulated, alone_seconds=time.perf_counter() - started)
