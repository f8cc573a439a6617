"""The simulator's workloads: producers and consumers driving one broker's cache through its managed ledgers.

A run drives one reference cache (``ledgerspec.reference.cache``) the way a broker's managed ledgers
drive Pulsar's: producers ``append`` (``OpAddEntry``), consumers ``cursor_read`` batches of up to 100
entries (``dispatcherMaxReadBatchSize``, apache/pulsar ``ServiceConfiguration``) and release their
copies when the batch is acknowledged, Key_Shared consumers put entries in the replay queue
(``replay_increment``, then a ``get`` of the position when it is redelivered), catch-up subscriptions
are rewound into the backlog (a cursor reset) and read it in batches. So the expected read counts and
the legacy invalidation below the slowest cursor come from the managed-ledger layer's own cursors
(spec/cache/SPEC.md §3.2), not from the driver. ``segmented`` (BookKeeper's ``ReadCache``) has no
managed ledger: the driver does what the layer would (an append cached iff a cursor is active, an
entry read from storage cached for the reader), with the same operations.

Fairness between profiles: what is produced, read, replayed and rewound depends only on the seed,
never on what the cache answered (a replay decision is a hash of the position), so every profile of a
run sees the same reads and the numbers differ only by what each cache kept. The clock moves per step
(20-200 us, twice) and each operation of a step adds 1 ns, so time is the same for all profiles too.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

WORKLOADS = ("tailing", "catchup", "key-shared", "fanout", "mixed")
"""The read patterns (the trace generator's workloads, traces/cache/_generate.py, without its ``edge``)."""
NANOS_PER_MICRO = 1000
BATCH = 100
"""Entries per cursor read at most: ``dispatcherMaxReadBatchSize`` (Pulsar's default 100)."""
EXECUTOR_DELAY = 1_000_000
"""A size eviction is run at most once per ms (``triggerEvictionWhenNeeded`` joins the pending one)."""
REPLAY_PER_MILLE = 200
"""Key_Shared: this many entries in 1000 go to the replay queue once (a consumer without permits)."""


@dataclass
class Reader:
    """One subscription's cursor and its consumer."""

    name: str
    lag: int = 0
    """How far behind the tail the consumer stays (0: tailing)."""
    catchup: bool = False
    """Rewound into the backlog now and then, with the feed's other catch-up readers."""
    key_shared: bool = False
    position: int = 0
    held: list[int] = field(default_factory=list)
    """Copies of the last batch, released (acknowledged) at the reader's next turn."""
    replays: deque[tuple[int, int]] = field(default_factory=deque)
    """(step due, entry) of the entries in the replay queue, in order."""


@dataclass
class Feed:
    """One topic: its ledger, how many entries it has, its readers, when its catch-up readers rewind next."""

    ledger: int
    tail: int = 0
    readers: list[Reader] = field(default_factory=list)
    rewind_at: int = 0


def replayed(seed: int, ledger: int, entry: int) -> int:
    """Steps until a Key_Shared redelivery of the position, or 0 if it is not replayed (a hash, not the rng)."""
    mixed = ((ledger * 1_000_003 + entry) * 2_654_435_761 + seed * 97) % 4_294_967_291
    return 50 + mixed % 450 if mixed % 1000 < REPLAY_PER_MILLE else 0


class Workload:
    """Drives one cache by steps; ``op`` is the one way to the cache (counted, clocked, maybe recorded)."""

    def __init__(
        self,
        cache: Any,
        kind: str,
        *,
        topics: int,
        seed: int,
        meter: Any,
        record: bool = False,
        feeds: list[Feed] | None = None,
    ) -> None:
        """``feeds`` replaces the workload's own topics (a hand-made scenario: ``kind``, ``topics`` unused)."""
        if kind not in WORKLOADS:
            raise ValueError(f"unknown workload {kind!r}; choose one of {', '.join(WORKLOADS)}")
        self.cache, self.meter, self.seed = cache, meter, seed
        self.rng = random.Random(seed)
        self.managed = hasattr(cache, "cursor_read")
        self.config = cache.config
        self.sizes: dict[int, list[int]] = {}
        """Each ledger's stored entry sizes (its BookKeeper ledger): what a read from storage costs."""
        self.log: list[tuple[str, dict[str, Any]]] | None = [] if record else None
        self.step = 0
        self.now = 1
        self.offset = 0
        self.next_ttl_pass = max(1, self.config.ttl // 10)
        self.last_size_pass = -EXECUTOR_DELAY
        self.serial = 0
        self.feeds = [self._feed(ledger + 1, kind) for ledger in range(topics)] if feeds is None else feeds
        meter.sizes = self.sizes
        for feed in self.feeds:
            self.sizes[feed.ledger] = []
            for reader in feed.readers:
                self.op("cursor_add", ledger=feed.ledger, cursor=reader.name, entry=reader.position)

    def _feed(self, ledger: int, kind: str) -> Feed:
        rng = self.rng
        kind = rng.choice(WORKLOADS[:4]) if kind == "mixed" else kind
        feed = Feed(ledger=ledger, rewind_at=rng.randint(300, 1500))
        if kind == "tailing":
            feed.readers = [self._reader() for _ in range(rng.randint(1, 2))]
        elif kind == "catchup":
            feed.readers = [self._reader(), *(self._reader(catchup=True) for _ in range(2))]
        elif kind == "key-shared":
            feed.readers = [self._reader(lag=rng.randint(0, 200), key_shared=True) for _ in range(rng.randint(1, 3))]
        else:  # fanout
            count = rng.randint(4, 12)
            feed.readers = [self._reader(lag=0 if rng.random() < 0.7 else rng.randint(5, 400)) for _ in range(count)]
        return feed

    def _reader(self, **habits: Any) -> Reader:
        self.serial += 1
        return Reader(name=f"sub-{self.serial}", **habits)

    def op(self, name: str, **kwargs: Any) -> Any:
        """Apply one operation to the cache at the step's clock; the meter samples the size after it."""
        self.offset += 1
        kwargs["now"] = self.now + self.offset
        if self.log is not None:
            self.log.append((name, dict(kwargs)))
        result = getattr(self.cache, name)(**kwargs)
        self.meter.after_op(self.cache.reported_size())
        return result

    def run(self, steps: int) -> None:
        """Run ``steps`` steps: each produces one entry or gives one reader its turn, then runs the timers."""
        rng = self.rng
        for _ in range(steps):
            self.tick((rng.randint(20, 200) + rng.randint(20, 200)) * NANOS_PER_MICRO)
            feed = rng.choice(self.feeds)
            if rng.random() < 0.45:
                self.produce(feed, int(rng.lognormvariate(8.5, 1.0)) + 64)
            else:
                self.turn(feed, rng.choice(feed.readers))
            self.timers()

    def tick(self, nanos: int) -> None:
        """Start the next step, ``nanos`` later."""
        self.step += 1
        self.now += nanos
        self.offset = 0

    def timers(self) -> None:
        """The executor's size eviction if needed, and the TTL pass when its timer is due."""
        self.evict_if_needed()
        if self.now >= self.next_ttl_pass:
            self.op("evict_timestamp")
            self.next_ttl_pass = self.now + max(1, self.config.ttl // 10)

    def join(self, feed: Feed, reader: Reader) -> None:
        """A new subscription's cursor appears at the reader's position."""
        feed.readers.append(reader)
        self.op("cursor_add", ledger=feed.ledger, cursor=reader.name, entry=reader.position)

    def evict_if_needed(self) -> None:
        """The executor's size eviction, when the cache is over its trigger (legacy: if an insert scheduled it)."""
        if self.cache.reported_size() > self.config.trigger_size and self.now - self.last_size_pass > EXECUTOR_DELAY:
            self.op("evict_size")
            self.last_size_pass = self.now

    def produce(self, feed: Feed, size: int) -> None:
        """A producer's entry of ``size`` bytes is appended (and cached as the profile decides)."""
        self.sizes[feed.ledger].append(size)
        if self.managed:
            self.op("append", ledger=feed.ledger, entry=feed.tail, size=size)
        elif self.cache.active_cursors(feed.ledger) > 0:  # what OpAddEntry does, for a cache without the layer
            self.op("insert", ledger=feed.ledger, entry=feed.tail, size=size, expected_reads=None)
        feed.tail += 1

    def turn(self, feed: Feed, reader: Reader) -> None:
        """The reader acknowledges its last batch, then redelivers a due replay or reads its next batch."""
        for copy in reader.held:
            self.op("release", copy=copy)
        reader.held = []
        if reader.replays and reader.replays[0][0] <= self.step:
            self._redeliver(feed, reader)
            return
        if reader.catchup:
            self._maybe_rewind(feed)
        last = min(feed.tail - 1 - reader.lag, reader.position + BATCH - 1)
        if last >= reader.position:
            self._read_batch(feed, reader, last)

    def _redeliver(self, feed: Feed, reader: Reader) -> None:
        """The first due entry of the replay queue is read again (``get``): a hit is dispatched, a miss is storage."""
        _, entry = reader.replays.popleft()
        self.meter.replay_done(feed.ledger, entry)
        self.meter.reads += 1
        copy = self.op("get", ledger=feed.ledger, entry=entry)
        if copy is not None:
            reader.held.append(copy)

    def _read_batch(self, feed: Feed, reader: Reader, last: int) -> None:
        """The cursor reads up to ``last``; Key_Shared sends some entries to the replay queue, the rest are held."""
        first = reader.position
        delays = [replayed(self.seed, feed.ledger, e) if reader.key_shared else 0 for e in range(first, last + 1)]
        for entry, delay in zip(range(first, last + 1), delays, strict=True):
            if delay:  # awaited from now on: legacy invalidates it as the cursor moves, before the dispatch
                self.meter.replay_add(feed.ledger, entry)
        copies = self._read(feed.ledger, reader.name, first, last)
        self.meter.reads += last - first + 1
        reader.position = last + 1
        for entry, copy, delay in zip(range(first, last + 1), copies, delays, strict=True):
            if delay:  # to the replay queue: incrementExpectedReadCount, then the dispatch copy is released
                reader.replays.append((self.step + delay, entry))
                if copy is not None:
                    self.op("replay_increment", copy=copy)
                    self.op("release", copy=copy)
            elif copy is not None:
                reader.held.append(copy)

    def _read(self, ledger: int, cursor: str, first: int, last: int) -> tuple[int | None, ...]:
        if self.managed:
            copies: tuple[int | None, ...] = self.op("cursor_read", ledger=ledger, cursor=cursor, last=last)
            return copies
        copies = self.op("get_range", ledger=ledger, first=first, last=last)
        sizes = self.sizes[ledger]
        for entry, copy in zip(range(first, last + 1), copies, strict=True):
            if copy is None:  # read from storage: ReadCache keeps what the entry log gave
                self.op("insert", ledger=ledger, entry=entry, size=sizes[entry], expected_reads=None)
        self.op("cursor_seek", ledger=ledger, cursor=cursor, entry=last + 1)
        return copies

    def _maybe_rewind(self, feed: Feed) -> None:
        """Once the feed's catch-up readers are all at the tail and it has grown enough: rewind them together."""
        readers = [r for r in feed.readers if r.catchup]
        if feed.tail < feed.rewind_at or any(r.position < feed.tail for r in readers):
            return
        rng = self.rng
        start = max(0, feed.tail - rng.randint(300, 2000))
        for reader in readers:
            reader.position = min(feed.tail, start + rng.randint(0, 20))
            self.op("cursor_seek", ledger=feed.ledger, cursor=reader.name, entry=reader.position)
        feed.rewind_at = feed.tail + rng.randint(500, 2500)


Op = tuple[str, dict[str, Any]]
Replay = Callable[[Any, list[Op]], None]


def replay_ops(cache: Any, ops: list[Op]) -> None:
    """Apply recorded operations to a cache with nothing listening: the reference driven alone."""
    for name, kwargs in ops:
        getattr(cache, name)(**kwargs)
