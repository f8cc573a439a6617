"""The broker-wide removal queue of the PIP-430 designs, and the PIP text's stash beside it.

:class:`RemovalQueue` is the ``RangeCacheRemovalQueue`` FIFO (pip-430.md at cf3d7d17d9; apache/pulsar#24623): a
``collections.deque`` of :class:`Wrapper` objects in offer order. A forced removal (invalidation,
clear) only marks the wrapper removed, in O(1); it stays queued as a tombstone until an eviction pass
finds it at the head and drops it (MISSING, apache/pulsar#24623): tombstones never stop a pass and never count towards
the size freed. A requeue (merged code, apache/pulsar#24623) moves the head to the tail.

:class:`Stash` is the PIP text's secondary list (pip-430.md at cf3d7d17d9; unmerged drafts of apache/pulsar#24623):
wrappers taken from the queue head, so it is in insertion order, which is also timestamp order (timestamps are insertion
times and the clock never goes back). The spec scans it in full; here two indexes make each scan pay only for what it
removes: the stash by insertion number (``SortedDict``), and the insertion numbers of the stashed entries that may be
evicted by their read count (``SortedList``), refreshed whenever a stashed entry's count changes. Entries past a
timestamp threshold are a prefix of the first index; entries removable by count are the head of the second.

Complexity: offer, peek, poll, requeue, tombstone O(1) amortized (each tombstone is dropped once);
stash add, discard, refresh, next removal O(log n); a stash expiry pass O((k + 1) log n) for k removed.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from sortedcontainers import SortedDict, SortedList

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class Wrapper:
    """``RangeCacheEntryWrapper``: one cached entry's place in the queue (apache/pulsar#24623).

    ``seq`` numbers insertions (stash order); ``requeues`` and ``accessed`` are the merged code's
    (apache/pulsar#24623); ``removed`` marks a tombstone; ``stashed`` says whether it is in the pip430 stash.
    ``handler`` is the shared read-count handler, or None.
    """

    __slots__ = (
        "accessed",
        "entry",
        "handler",
        "ledger",
        "removed",
        "requeues",
        "seq",
        "size",
        "stashed",
        "ts",
    )

    def __init__(self, ledger: int, entry: int, size: int, ts: int, handler: Any, *, seq: int = 0) -> None:
        self.ledger = ledger
        self.entry = entry
        self.size = size
        self.ts = ts
        self.handler = handler
        self.seq = seq
        self.requeues = 0
        self.accessed = False
        self.removed = False
        self.stashed = False

    def __repr__(self) -> str:
        return (
            f"Wrapper(({self.ledger}, {self.entry}), size={self.size}, ts={self.ts}, "
            f"handler={self.handler!r}, requeues={self.requeues}, accessed={self.accessed}, "
            f"removed={self.removed})"
        )


class RemovalQueue:
    """The global FIFO of wrappers, tombstones included, drained lazily from the head."""

    def __init__(self) -> None:
        self._queue: deque[Wrapper] = deque()

    def __len__(self) -> int:
        """Queued wrappers, tombstones included."""
        return len(self._queue)

    def __iter__(self) -> Iterator[Wrapper]:
        """Live wrappers in queue order (for tests and debugging)."""
        return (w for w in self._queue if not w.removed)

    def offer(self, wrapper: Wrapper) -> None:
        """Append at the tail (the queue is unbounded: an offer always succeeds, apache/pulsar#24623)."""
        self._queue.append(wrapper)

    def peek(self) -> Wrapper | None:
        """Return the live head, dropping the tombstones in front of it (MISSING, PR #24623); None if empty."""
        queue = self._queue
        while queue and queue[0].removed:
            queue.popleft()
        return queue[0] if queue else None

    def poll(self) -> Wrapper:
        """Take the head returned by the last :meth:`peek`."""
        return self._queue.popleft()

    def requeue(self, now: int) -> Wrapper:
        """``markRequeued()`` the head and move it to the tail: stamp ``now``, clear ``accessed`` (PR #24623)."""
        head = self._queue.popleft()
        head.ts = now
        head.accessed = False
        head.requeues += 1
        self._queue.append(head)
        return head

    @staticmethod
    def tombstone(wrapper: Wrapper) -> None:
        """Mark a forced removal: the wrapper stays queued, unmapped, until a pass drains it (apache/pulsar#24623)."""
        wrapper.removed = True

    def clear(self) -> None:
        """Drop every wrapper at once: only valid when every one of them is a tombstone (cache clear)."""
        self._queue.clear()


class Stash:
    """The PIP text's stash (pip-430.md at cf3d7d17d9), indexed by insertion number and by evictability.

    ``can_evict`` tells whether a wrapper may go by its read count (``CachedEntry.canEvict()``); the
    cache calls :meth:`refresh` after changing the count of a wrapper that may be stashed.
    """

    def __init__(self, can_evict: Callable[[Wrapper], bool]) -> None:
        self._can_evict = can_evict
        self._by_seq: SortedDict = SortedDict()
        self._evictable: SortedList = SortedList()

    def __len__(self) -> int:
        return len(self._by_seq)

    def __iter__(self) -> Iterator[Wrapper]:
        """Stashed wrappers in stash (insertion) order."""
        return iter(self._by_seq.values())

    def add(self, wrapper: Wrapper) -> None:
        """STASH: the wrapper leaves the queue head for the stash; its number is above every stashed one."""
        wrapper.stashed = True
        self._by_seq[wrapper.seq] = wrapper
        if self._can_evict(wrapper):
            self._evictable.add(wrapper.seq)

    def discard(self, wrapper: Wrapper) -> None:
        """Take a wrapper out of the stash, if it is there."""
        if wrapper.stashed:
            wrapper.stashed = False
            del self._by_seq[wrapper.seq]
            self._evictable.discard(wrapper.seq)

    def refresh(self, wrapper: Wrapper) -> None:
        """Re-file a stashed wrapper whose read count changed."""
        if not wrapper.stashed:
            return
        if self._can_evict(wrapper):
            if wrapper.seq not in self._evictable:
                self._evictable.add(wrapper.seq)
        else:
            self._evictable.discard(wrapper.seq)

    def take_expired(self, threshold: int, threshold_max: int) -> list[Wrapper]:
        """Remove and return every stashed wrapper the timestamp pass removes (pip-430.md at cf3d7d17d9, SPEC "pip430").

        REMOVE iff ``ts < threshold_max`` (past the long TTL: a prefix of the stash) or it may be
        evicted by count and ``ts < threshold`` (a prefix of the evictable index). The rest stay.
        """
        taken = []
        while self._by_seq:
            wrapper = self._by_seq.peekitem(0)[1]
            if not wrapper.ts < threshold_max:
                break
            self.discard(wrapper)
            taken.append(wrapper)
        while self._evictable:
            wrapper = self._by_seq[self._evictable[0]]
            if not wrapper.ts < threshold:
                break
            self.discard(wrapper)
            taken.append(wrapper)
        return taken

    def next_for_size(self, expiry: int) -> Wrapper | None:
        """Return the first stashed wrapper, in stash order, that the size pass removes; None if none.

        The size pass removes a stashed entry iff it may be evicted by count or ``ts < expiry``; the
        first such is the earlier of the stash head (if expired) and the evictable index's head.
        """
        best: Wrapper | None = None
        if self._by_seq:
            head = self._by_seq.peekitem(0)[1]
            if head.ts < expiry:
                best = head
        if self._evictable:
            seq = self._evictable_head()
            if best is None or seq < best.seq:
                best = self._by_seq[seq]
        return best

    def _evictable_head(self) -> int:
        """The insertion number of the oldest stashed wrapper its count lets go (the index is not empty)."""
        return int(self._evictable[0])
