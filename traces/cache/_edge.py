"""The ``edge`` workload's cases: what a correct cache must also get right and a buggy one gets wrong.

A mixin of the generator's ``Broker`` (``_generate.py``): racing readers inserting a position twice, the
executor running a size eviction when it is not needed (some with the size exactly on the trigger), TTL
passes at the exact moment an entry reaches its TTL, awaited entries spared by a TTL pass and released
before a later pass judges them again, passes asked for directly where the cache has them, ledgers
trimmed and deleted (and the cache cleared) while copies are held and replayed, the slowest cursor
skipping to near the tail, an entry cached behind the slowest cursor while another moves, and appends
to a managed ledger whose cursor comes and goes and which is closed, where the cache has the
managed-ledger operations. The cases are taken in turn, so a short trace has each of them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledgerspec.spec.cache import CacheConfig

if TYPE_CHECKING:
    from ledgerspec.traces.cache._generate import Topic

NANOS_PER_MICRO = 1000
LAST_JUMP = 2**62
"""The latest time a jump to an entry's TTL may land on: times are int64 (FORMAT.md) and ticks follow.

With a TTL near the int64 range (any ``ttl`` >= 0 is a valid config) the edge workload's jumps would
run the clock past it; a jump that would land past this mark is not made."""

ON_TRIGGER_MAX = 64 * 1024
"""The largest entry the edge workload writes to bring the size exactly to the trigger."""
ON_TRIGGER_INSERTS = 16
"""At most this many such entries, each up to :data:`ON_TRIGGER_MAX`, the last landing on the trigger."""
EDGE_CASES = (
    "duplicate",
    "unasked_size",
    "ttl_exact",
    "on_trigger",
    "duplicate",
    "trim",
    "spare",
    "ttl_exact",
    "explicit_pass",
    "churn",
    "skip",
    "feed",
    "behind",
)
"""The edge workload's cases, taken in turn (``Broker._<case>``)."""
FEED_STEPS = ("none", "reader", "leave", "reader", "close")
"""What changes before each append of a feed sequence, in turn: nothing (no cursor: not cached), a cursor
arrives, it leaves, it arrives again, the ledger closes (its cursor goes with it)."""
SPARE_ENDINGS = ("held", "bytes", "size", "ttl_max", "ttl")
"""How the edge workload's spare sequences end, in turn: a TTL pass past ``ttl_max`` while the copies are
held, one byte to free (a TTL pass now where the cache has no ``evict_bytes``), a size pass, a TTL pass
past ``ttl_max``, a TTL pass now."""
SPARE_SLACK = 1_000_000_000
"""Room past an entry's ``ttl_max`` left on the clock for the spare sequence's ticks (well within int64)."""


FEED_READER, FEED_CATCHUP = "feed-reader", "feed-catchup"
BEHIND_SLOW, BEHIND_FAST, BEHIND_SPAN = "behind-slow", "behind-fast", 6
"""The cursors of the ``behind`` case, and the positions each of its runs takes on its ledger."""


@dataclass
class Feed:
    """The edge workload's managed ledger: the next entry to append, and whether its cursor is active."""

    ledger: int
    tail: int = 0
    reading: bool = False


class EdgeWorkload:
    """The edge cases, over the broker's cache, clock and random draws."""

    cache: Any
    rng: random.Random
    config: CacheConfig
    now: int
    recent: list[tuple[int, int, int]]
    spares: int
    edges: int
    feed: Feed
    behind: int
    """The first position of the ``behind`` case's next run."""

    if TYPE_CHECKING:

        def tick(self) -> int: ...

        def _churn(self, topic: Topic) -> None: ...

    def _edge(self, topic: Topic) -> None:
        """The next edge case (:data:`EDGE_CASES`, in turn: a short trace has each of them)."""
        case = EDGE_CASES[self.edges % len(EDGE_CASES)]
        self.edges += 1
        getattr(self, f"_{case}")(topic)

    def _duplicate(self, _topic: Topic) -> None:
        """A racing reader inserts a recent entry again, and reads what it inserted."""
        if not self.recent:
            return
        cache, rng = self.cache, self.rng
        ledger, entry, _ = rng.choice(self.recent)
        size = int(rng.lognormvariate(8.5, 1.0)) + 64
        cache.insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=rng.randint(0, 2))
        copy = cache.get(now=self.tick(), ledger=ledger, entry=entry)
        if copy is not None:
            cache.release(now=self.tick(), copy=copy)

    def _unasked_size(self, _topic: Topic) -> None:
        """The executor runs a size pass although nothing asked for it."""
        self.cache.evict_size(now=self.tick())

    def _ttl_exact(self, _topic: Topic) -> None:
        """A TTL pass exactly when a recent entry reaches its TTL."""
        if not self.recent:
            return
        _, _, stamp = self.rng.choice(self.recent)
        due = stamp + self.config.ttl
        if self.now < due <= LAST_JUMP:
            self.now = due
            self.cache.evict_timestamp(now=due)

    def supports(self, name: str) -> bool:
        """Whether the cache has the operation (an adapter: its profile has it and the adapter claims it)."""
        supports = getattr(self.cache, "supports", None)
        return bool(supports(name)) if supports is not None else hasattr(self.cache, name)

    def _explicit_pass(self, _topic: Topic) -> None:
        """Passes asked for directly, where the cache has them: free a few bytes; a cutoff at or before now."""
        cache, rng = self.cache, self.rng
        if self.supports("evict_bytes"):
            cache.evict_bytes(now=self.tick(), bytes=rng.choice([1, 1, 1024]))
        if self.supports("evict_before"):
            now = self.tick()
            cache.evict_before(now=now, cutoff=max(0, now - rng.choice([0, self.config.ttl // 2, self.config.ttl])))

    def _trim(self, topic: Topic) -> None:
        """The ledger is trimmed, deleted or the cache cleared under held copies, which are then replayed."""
        cache, choice = self.cache, self.rng.random()
        if choice < 0.6:
            cache.invalidate_before(now=self.tick(), ledger=topic.ledger, entry=max(topic.first, topic.tail - 8))
        elif choice < 0.85:
            cache.invalidate_ledger(now=self.tick(), ledger=topic.ledger)
        else:
            cache.clear(now=self.tick())
        for sub in topic.subscriptions:
            for copy in sub.held:  # Key_Shared redeliveries, some through a copy of a removed entry
                cache.replay_increment(now=self.tick(), copy=copy)

    def _skip(self, topic: Topic) -> None:
        """The slowest cursor skips ahead to near the tail (a backlog skipped, or a cursor reset).

        The slowest read position moves past cached entries: legacy mode invalidates them, tracking
        mode keeps them (CACHE-BELOW-SLOWEST). Its held copies stay held.
        """
        if not topic.subscriptions:
            return
        sub = min(topic.subscriptions, key=lambda s: s.position)
        sub.position = max(sub.position, topic.tail - self.rng.randint(0, 3))
        self.cache.cursor_seek(now=self.tick(), ledger=topic.ledger, cursor=sub.name, entry=sub.position)

    def _behind(self, _topic: Topic) -> None:
        """An entry cached behind the slowest active cursor, then the other cursor moves.

        The entry was read for a cursor that is not active. The slowest stays in place, so legacy mode
        invalidates nothing and the entry stays (``ManagedLedgerImpl.updateActiveCursor`` compares the
        slowest before and after, managed-ledger 4.2.4; CACHE-BELOW-SLOWEST). On a ledger of its own,
        whose cursors then leave.
        """
        cache, ledger, first = self.cache, self.feed.ledger + 1, self.behind
        self.behind += BEHIND_SPAN
        cache.cursor_add(now=self.tick(), ledger=ledger, cursor=BEHIND_SLOW, entry=first + 2)
        cache.cursor_add(now=self.tick(), ledger=ledger, cursor=BEHIND_FAST, entry=first + 4)
        size = int(self.rng.lognormvariate(8.5, 1.0)) + 64
        cache.insert(now=self.tick(), ledger=ledger, entry=first, size=size, expected_reads=self.rng.randint(0, 1))
        cache.cursor_seek(now=self.tick(), ledger=ledger, cursor=BEHIND_FAST, entry=first + 5)
        for cursor in (BEHIND_FAST, BEHIND_SLOW):
            cache.cursor_remove(now=self.tick(), ledger=ledger, cursor=cursor)

    def _feed(self, _topic: Topic) -> None:
        """The feed ledger's changes (:data:`FEED_STEPS`), each followed by an append.

        An append is cached only while the ledger has an active cursor, expecting one read per cursor
        with tracking on and none with it off (CACHE-APPEND-CACHING); the last cursor leaving (legacy
        mode) and a close leave nothing of the ledger cached (CACHE-LEDGER-CLOSE). Then a catch-up read.
        """
        if not self.supports("append"):
            return
        cache, feed = self.cache, self.feed
        for step in FEED_STEPS:
            if step == "reader" and not feed.reading:
                feed.reading = True
                cache.cursor_add(now=self.tick(), ledger=feed.ledger, cursor=FEED_READER, entry=feed.tail)
            elif step == "leave" and feed.reading:
                feed.reading = False
                cache.cursor_remove(now=self.tick(), ledger=feed.ledger, cursor=FEED_READER)
            elif step == "close" and self.supports("ledger_close"):
                feed.reading = False
                cache.ledger_close(now=self.tick(), ledger=feed.ledger)
            size = int(self.rng.lognormvariate(8.5, 1.0)) + 64
            cache.append(now=self.tick(), ledger=feed.ledger, entry=feed.tail, size=size)
            feed.tail += 1
        if self.supports("cursor_read"):
            self._catch_up()

    def _catch_up(self) -> None:
        """A cursor reads the feed ledger's last appends from before its close, some from storage.

        The read crosses the reopen, so it is two BookKeeper ledger reads, each counted at its start:
        another cursor sits between them, so the second counts two cursors (CACHE-BACKLOG-CACHING).
        """
        cache, feed, ledger = self.cache, self.feed, self.feed.ledger
        if feed.reading:
            cache.cursor_remove(now=self.tick(), ledger=ledger, cursor=FEED_READER)
        start = max(0, feed.tail - len(FEED_STEPS) - 1)
        cache.cursor_add(now=self.tick(), ledger=ledger, cursor=FEED_CATCHUP, entry=start)
        cache.cursor_add(now=self.tick(), ledger=ledger, cursor=FEED_READER, entry=feed.tail - 2)
        cache.cursor_read(now=self.tick(), ledger=ledger, cursor=FEED_CATCHUP, last=feed.tail - 1)
        cache.cursor_remove(now=self.tick(), ledger=ledger, cursor=FEED_CATCHUP)
        cache.cursor_remove(now=self.tick(), ledger=ledger, cursor=FEED_READER)
        feed.reading = False

    def _on_trigger(self, topic: Topic) -> None:
        """The executor runs a size pass after new entries brought the size exactly to the trigger.

        Where the size was below the trigger, the entries (the last one sized to fit) land it there: not
        above it, so that pass may free nothing (unless legacy had scheduled one already). Where it was
        above, the pass just runs.
        """
        for _ in range(ON_TRIGGER_INSERTS):
            gap = self.config.trigger_size - self.cache.reported_size()
            if gap <= 0:
                break
            self.cache.insert(
                now=self.tick(),
                ledger=topic.ledger,
                entry=topic.tail,
                size=min(gap, ON_TRIGGER_MAX),
                expected_reads=self.cache.active_cursors(topic.ledger),
            )
            topic.tail += 1
        self.cache.evict_size(now=self.tick())

    def _spare(self, topic: Topic) -> None:
        """Awaited entries read, spared by a TTL pass, released, then judged again by a later pass.

        What a pass spares (stashed in pip430, requeued in pulsar-master) is out of the queue's order
        until a later pass meets it after the protection is gone: a stash that kept a released entry
        out of reach, put a merged one back in the queue, or took the newest first shows only then.
        Each time the sequence ends differently (:data:`SPARE_ENDINGS`, in turn, so a short trace has
        every one); every other time, just before the entries' ``ttl_max``, a newer entry is written
        and each spared one is inserted again (a racing reader) before the releases.
        """
        cache, config = self.cache, self.config
        if self.now + config.ttl_max + SPARE_SLACK > LAST_JUMP:
            return
        turn, self.spares = self.spares, self.spares + 1
        ending = SPARE_ENDINGS[(turn // 2) % len(SPARE_ENDINGS)]
        entries = range(topic.tail, topic.tail + 3 - (turn // 10) % 2)
        topic.tail += len(entries)
        size = self.rng.randint(64, 512)
        reads = 2 if turn % 7 == 3 else 1
        for entry in entries:
            cache.insert(now=self.tick(), ledger=topic.ledger, entry=entry, size=size, expected_reads=reads)
        copies = [cache.get(now=self.tick(), ledger=topic.ledger, entry=entry) for entry in entries]
        written = self.now
        self.now = max(self.now + 1, written + config.ttl + self.rng.randint(0, 3) * NANOS_PER_MICRO)
        cache.evict_timestamp(now=self.now)
        if turn % 2:  # just before ttl_max: the newer entry is young at the last pass
            self.now = max(self.now, written + config.ttl_max - 2)
            cache.insert(now=self.tick(), ledger=topic.ledger, entry=topic.tail, size=size, expected_reads=0)
            topic.tail += 1
            for entry in entries:
                cache.insert(now=self.tick(), ledger=topic.ledger, entry=entry, size=size, expected_reads=1)
        self._spare_ending(ending, written, [copy for copy in copies if copy is not None])

    def _spare_ending(self, ending: str, written: int, held: list[int]) -> None:
        """The releases and the pass that judges the spared entries again (:data:`SPARE_ENDINGS`)."""
        cache = self.cache
        if ending == "held":  # past ttl_max with the copies held: the entries go, then a redelivery through each
            self._past_ttl_max(written)
            for copy in held:
                cache.replay_increment(now=self.tick(), copy=copy)
        for copy in held:
            cache.release(now=self.tick(), copy=copy)
        if ending == "bytes" and self.supports("evict_bytes"):  # one byte: exactly the oldest evictable entry goes
            cache.evict_bytes(now=self.tick(), bytes=1)
        elif ending == "size":
            cache.evict_size(now=self.tick())
        elif ending == "ttl_max":
            self._past_ttl_max(written)
        elif ending != "held":
            cache.evict_timestamp(now=self.tick())

    def _past_ttl_max(self, written: int) -> None:
        """A TTL pass just after what was written at ``written`` reaches ``ttl_max``."""
        self.now = max(self.now + 1, written + self.config.ttl_max + 1)
        self.cache.evict_timestamp(now=self.now)
