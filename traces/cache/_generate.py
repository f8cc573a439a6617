"""The workload generator: Pulsar-like producers and consumers driving a reference cache per broker.

Each broker runs one instrumented reference cache (``ReferenceCache.listen``) of the trace's profile,
so the events are exactly what the cache did. Topics are spread over brokers (one ledger per topic);
producers append entries expected by every active cursor; consumers read with tailing cursors,
slow (catch-up) cursors that miss and read from storage, Key_Shared consumers that send entries to the
replay queue, and fan-out subscriptions. The eviction executor runs the size eviction when an insert
leaves the cache above the trigger, and a timer runs the TTL pass. Everything is deterministic by seed:
brokers are generated independently, each from ``seed`` and its index.

The ``edge`` workload is ``mixed`` plus the edge cases of ``_edge.py``, and a topic without cursors;
its topics' entry ids start at 0 or just below 2^31 or 2^32 (``EDGE_FIRST_ENTRIES``), in turn, and its
managed ledger is ledger 2^31 - 1 (``EDGE_FEED_LEDGER``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance._verdict import Verdict
from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import CacheConfig
from ledgerspec.traces.cache._edge import NANOS_PER_MICRO, EdgeWorkload, Feed
from ledgerspec.traces.cache._format import COLUMNS, PASS_KINDS

WORKLOADS = ("tailing", "catchup", "key-shared", "fanout", "mixed", "edge")
EDGE_FIRST_ENTRIES = (0, 2**31 - 16, 2**32 - 16)
"""Where the edge workload's topics start their entry ids, in turn: an implementation that casts an entry id
to ``int`` or packs it into 32 bits goes wrong once a topic writes past the boundary."""
EDGE_FEED_LEDGER = 2**31 - 1
"""The edge workload's managed ledger (appended to, closed, read across its reopen): the last ledger whose
packed keys (``ledgerId << 32 | entryId``) are positive, and whose end, ``(ledgerId + 1) << 32``, overflows
a long. A cache that removes a ledger as that key range keeps this one on its close."""
EXECUTOR_DELAY = 1_000_000
"""Triggers within 1 ms of a size eviction join it (``triggerEvictionWhenNeeded`` and its future)."""
DEFAULT_CONFIG = CacheConfig(
    max_size=64 * 1024 * 1024,
    watermark=0.9,
    trigger=0.98,
    ttl=1_000_000_000,
    ttl_max=5_000_000_000,
    max_requeue=5,
    extend_ttl=True,
    segment_size_max=16 * 1024 * 1024,
)
"""A broker cache small enough that size eviction happens in a few thousand events per broker."""


class Recorder:
    """Collects one broker's events as columns; the cache's listener."""

    def __init__(self, broker: str) -> None:
        self.broker = broker
        self.columns: dict[str, list[Any]] = {c: [] for c in COLUMNS}
        self.seq = 0

    def __call__(self, kind: str, now: int, fields: dict[str, Any]) -> None:
        self.seq += 1
        columns = self.columns
        columns["broker"].append(self.broker)
        columns["seq"].append(self.seq)
        columns["time"].append(now)
        columns["kind"].append(kind)
        for name in ("ledger", "entry", "size", "count", "timestamp", "reason", "copy", "cursor", "value", "result"):
            columns[name].append(fields.get(name))

    def __len__(self) -> int:
        return self.seq

    def take(self) -> dict[str, list[Any]]:
        """The events collected since the last take."""
        taken, self.columns = self.columns, {c: [] for c in COLUMNS}
        return taken


@dataclass
class Subscription:
    """A cursor and its consumer's habits."""

    name: str
    position: int
    lag: int
    """How far behind the tail the consumer wants to stay (0: tailing)."""
    key_shared: bool = False
    held: list[int] = field(default_factory=list)
    """Copies dispatched but not released yet (in flight to a consumer)."""


@dataclass
class Topic:
    """One topic: its ledger, the next entry id, and its subscriptions."""

    ledger: int
    first: int = 0
    """The first entry id (``EDGE_FIRST_ENTRIES``)."""
    tail: int = 0
    subscriptions: list[Subscription] = field(default_factory=list)


class Broker(EdgeWorkload):
    """One broker's simulation: a reference cache, its topics and the clock (the edge cases: ``_edge.py``)."""

    def __init__(self, name: str, cache: Any, config: CacheConfig, workload: str, topics: list[int], seed: int) -> None:
        """``cache`` is a reference cache, or anything with its methods and ``listen`` (the recorder's shim)."""
        self.rng = random.Random(seed)
        self.recorder = Recorder(name)
        self.cache = cache
        self.cache.listen(self.recorder)
        self.config = config
        self.now = 1
        self.next_ttl_pass = config.ttl // 10 or 1
        self.last_size_pass = -EXECUTOR_DELAY
        self.serial = 0
        self.spares = 0
        """Spare sequences played so far (the edge workload)."""
        self.edges = 0
        """Edge cases played so far."""
        self.behind = 0
        self.edge = workload == "edge"
        self.recent: list[tuple[int, int, int]] = []
        """(ledger, entry, time) of the last inserts (the edge workload)."""
        firsts = EDGE_FIRST_ENTRIES if self.edge else (0,)
        self.topics = [
            self._topic(ledger, "mixed" if self.edge else workload, firsts[i % len(firsts)])
            for i, ledger in enumerate(topics)
        ]
        if self.edge:
            self.topics.append(Topic(ledger=max(topics) + 1))  # a topic nobody reads: entries with no reads
        self.feed = Feed(ledger=EDGE_FEED_LEDGER if self.edge else max(topics) + 2)
        for topic in self.topics:
            for sub in topic.subscriptions:
                self.cache.cursor_add(now=self.tick(), ledger=topic.ledger, cursor=sub.name, entry=sub.position)

    def _topic(self, ledger: int, workload: str, first: int) -> Topic:
        topic = Topic(ledger=ledger, first=first, tail=first)
        rng = self.rng
        kind = rng.choice(["tailing", "catchup", "key-shared", "fanout"]) if workload == "mixed" else workload
        count = {"fanout": rng.randint(4, 12), "tailing": rng.randint(1, 2)}.get(kind, rng.randint(1, 3))
        for _ in range(count):
            self.serial += 1
            lag = 0 if kind in ("tailing", "fanout") and rng.random() < 0.7 else rng.randint(5, 400)
            topic.subscriptions.append(
                Subscription(name=f"sub-{self.serial}", position=first, lag=lag, key_shared=kind == "key-shared")
            )
        return topic

    def tick(self) -> int:
        self.now += self.rng.randint(20, 200) * NANOS_PER_MICRO
        return self.now

    def run(self, events: int) -> None:
        """Simulate until the broker has produced ``events`` events (a few more at most)."""
        cache, rng = self.cache, self.rng
        while len(self.recorder) < events:
            topic = rng.choice(self.topics)
            action = rng.random()
            if action < 0.45 or not topic.subscriptions:
                self._produce(topic)
            else:
                self._consume(topic, rng.choice(topic.subscriptions))
            if self.edge and rng.random() < 0.08:
                self._edge(topic)
            if self.now >= self.next_ttl_pass:
                cache.evict_timestamp(now=self.tick())
                self.next_ttl_pass = self.now + max(1, self.config.ttl // 10)
                self.recorder("size_sample", self.now, {"size": cache.reported_size()})
            if rng.random() < 0.0005:
                self._churn(topic)

    def _produce(self, topic: Topic) -> None:
        """OpAddEntry: cache the new entry, expected by every active cursor; evict when over the trigger."""
        cache = self.cache
        size = int(self.rng.lognormvariate(8.5, 1.0)) + 64
        cache.insert(
            now=self.tick(),
            ledger=topic.ledger,
            entry=topic.tail,
            size=size,
            expected_reads=cache.active_cursors(topic.ledger),
        )
        if self.edge:
            self.recent = [*self.recent[-31:], (topic.ledger, topic.tail, self.now)]
        topic.tail += 1
        if cache.reported_size() > self.config.trigger_size and self.now - self.last_size_pass > EXECUTOR_DELAY:
            cache.evict_size(now=self.tick())
            self.last_size_pass = self.now

    def _consume(self, topic: Topic, sub: Subscription) -> None:
        """Read the cursor's next entry (if it is far enough behind the tail), dispatch, maybe replay."""
        cache, rng = self.cache, self.rng
        if sub.held and (rng.random() < 0.6 or len(sub.held) > 8):
            copy = sub.held.pop(0)
            if sub.key_shared and rng.random() < 0.2:
                cache.replay_increment(now=self.tick(), copy=copy)
            cache.release(now=self.tick(), copy=copy)
            return
        if sub.position >= topic.tail - sub.lag:
            return
        copy = cache.get(now=self.tick(), ledger=topic.ledger, entry=sub.position)
        if copy is None:
            count = cache.cursor_count(now=self.tick(), ledger=topic.ledger, cursor=sub.name)
            if count > 1:
                size = int(rng.lognormvariate(8.5, 1.0)) + 64
                cache.insert(
                    now=self.tick(), ledger=topic.ledger, entry=sub.position, size=size, expected_reads=count - 1
                )
        else:
            sub.held.append(copy)
        sub.position += 1
        cache.cursor_seek(now=self.tick(), ledger=topic.ledger, cursor=sub.name, entry=sub.position)
        if sub.lag and rng.random() < 0.01:
            sub.lag = rng.randint(0, 400)

    def _churn(self, topic: Topic) -> None:
        """Rare: a consumer goes and comes back, or a ledger is deleted under a new one."""
        cache, rng = self.cache, self.rng
        if not topic.subscriptions:  # nobody reads it: the ledger is trimmed
            cache.invalidate_before(now=self.tick(), ledger=topic.ledger, entry=(topic.first + topic.tail) // 2)
            return
        sub = rng.choice(topic.subscriptions)
        if rng.random() < 0.5:
            for copy in sub.held:
                cache.release(now=self.tick(), copy=copy)
            sub.held.clear()
            cache.cursor_remove(now=self.tick(), ledger=topic.ledger, cursor=sub.name)
            sub.position = max(topic.first, topic.tail - rng.randint(0, 50))
            cache.cursor_add(now=self.tick(), ledger=topic.ledger, cursor=sub.name, entry=sub.position)
        else:
            slowest = min(s.position for s in topic.subscriptions)
            cache.invalidate_before(now=self.tick(), ledger=topic.ledger, entry=slowest)


def broker_events(
    name: str,
    profile: str,
    config: CacheConfig,
    workload: str,
    topics: list[int],
    seed: int,
    events: int,
    sink: Callable[[dict[str, list[Any]]], None],
) -> int:
    """Simulate one broker and hand its events to ``sink`` in chunks; returns how many there were."""
    broker = Broker(name, CACHES[profile](**config.to_dict()), config, workload, topics, seed)
    return run_broker(broker, events, sink)


def run_broker(broker: Broker, events: int, sink: Callable[[dict[str, list[Any]]], None]) -> int:
    """Run a broker's simulation to ``events`` events, handing them to ``sink`` in chunks."""
    total = 0
    chunk = 1 << 16
    while total < events:
        broker.run(min(events, total + chunk))
        taken = broker.recorder.take()
        total += len(taken["kind"])
        sink(taken)
    return total


def topics_of(broker: int, brokers: int, topics: int) -> list[int]:
    """The ledgers (topics) a broker owns: round robin, at least one each."""
    owned = [t + 1 for t in range(topics) if t % brokers == broker]
    return owned or [broker + 1]


assert set(PASS_KINDS[:6]) == {"size", "ttl", "invalidate", "clear", "bytes", "cutoff"}  # it makes these passes only


@dataclass
class Generated:
    """What ``generate_trace`` wrote: counts, and the injected violations with where they are."""

    path: str
    events: int = 0
    brokers: int = 0
    injected: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def expected(self) -> dict[str, Any]:
        """The expected verdict: OK without injections, else VIOLATION at the injected events."""
        return {
            "verdict": Verdict.VIOLATION if self.injected else Verdict.OK,
            "violations": sorted(self.injected, key=lambda v: (v["invariant"], v["broker"], v["seq"])),
        }


def _broker_part(job: tuple[Any, ...]) -> tuple[str, int]:
    """Worker: one broker's events into a Parquet part file."""
    from ledgerspec.traces.cache._format import Header  # noqa: PLC0415 - in the worker process
    from ledgerspec.traces.cache._io import TraceWriter  # noqa: PLC0415

    part, name, profile, config, workload, topics, seed, events = job
    with TraceWriter(part, Header(profile=profile, config=config.to_dict())) as writer:
        count = broker_events(name, profile, config, workload, topics, seed, events, writer.write_columns)
    return part, count


def generate_trace(
    out: str,
    *,
    workload: str = "mixed",
    brokers: int = 2,
    topics: int = 8,
    events: int = 100_000,
    seed: int = 0,
    profile: str = "pulsar-master",
    config: CacheConfig = DEFAULT_CONFIG,
    inject: list[str] | None = None,
    processes: int = 1,
    on_broker: Callable[[int], None] | None = None,
) -> Generated:
    """Write a trace of ``events`` events over ``brokers`` brokers, plus one broker per injection.

    ``on_broker`` sees the events of each broker once it is written (a progress bar's feed).
    """
    import tempfile  # noqa: PLC0415
    import time  # noqa: PLC0415
    from multiprocessing import get_context  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    import pyarrow.parquet as pq  # noqa: PLC0415
    from ledgerspec.traces.cache._format import Header  # noqa: PLC0415
    from ledgerspec.traces.cache._inject import inject as make_violation  # noqa: PLC0415
    from ledgerspec.traces.cache._io import TraceWriter  # noqa: PLC0415

    started = time.perf_counter()
    if workload not in WORKLOADS:
        raise ValueError(f"unknown workload {workload!r}; choose one of {', '.join(WORKLOADS)}")
    per_broker = max(1, events // max(1, brokers))
    description = f"workload {workload}, {brokers} brokers, {topics} topics, seed {seed}"
    result = Generated(path=out, brokers=brokers)
    header = Header(profile=profile, config=config.to_dict(), description=description)
    jobs = [
        (
            None,
            f"broker-{b}",
            profile,
            config,
            workload,
            topics_of(b, brokers, topics),
            seed * 1_000_003 + b,
            per_broker,
        )
        for b in range(brokers)
    ]
    with TraceWriter(out, header) as writer:
        if processes > 1 and writer.format == "parquet":
            with tempfile.TemporaryDirectory() as scratch:
                parts = [(str(Path(scratch) / f"part-{i}.parquet"), *job[1:]) for i, job in enumerate(jobs)]
                with get_context("spawn").Pool(processes) as pool:
                    for part, count in pool.imap(_broker_part, parts):
                        result.events += count
                        if on_broker is not None:
                            on_broker(count)
                        for batch in pq.ParquetFile(part).iter_batches(batch_size=1 << 17):
                            writer.write_columns(batch.to_pydict())
        else:
            for job in jobs:
                count = broker_events(*job[1:], writer.write_columns)
                result.events += count
                if on_broker is not None:
                    on_broker(count)
        for invariant in inject or []:
            events_of, seq = make_violation(invariant, profile, config)
            writer.write_columns(events_of)
            result.events += len(events_of["kind"])
            result.brokers += 1
            result.injected.append({"invariant": invariant, "broker": events_of["broker"][0], "seq": seq})
    result.seconds = time.perf_counter() - started
    return result
