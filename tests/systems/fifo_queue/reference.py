"""The reference bounded queue, its in-process adapter, and two mutants that each break one invariant."""

from __future__ import annotations

from collections import deque
from typing import Any

from ledgerspec.conformance.systems import ReferenceMutant

from fifo_queue.spec import Offer, Poll, QueueConfig


class BoundedQueue:
    """A ring of ``capacity`` items (``ArrayBlockingQueue`` without the locks)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.items: deque[int] = deque()

    def offer(self, value: int) -> bool:
        if len(self.items) >= self.capacity:
            return False
        self.items.append(value)
        return True

    def poll(self) -> int | None:
        return self.items.popleft() if self.items else None

    def size(self) -> int:
        return len(self.items)


class LastInFirstOut(BoundedQueue):
    """poll takes the newest item, as a stack. Breaks QUEUE-FIFO."""

    def poll(self) -> int | None:
        return self.items.pop() if self.items else None


class OneOverCapacity(BoundedQueue):
    """offer checks ``len > capacity``, so a full queue takes one more. Breaks QUEUE-BOUND."""

    def offer(self, value: int) -> bool:
        if len(self.items) > self.capacity:
            return False
        self.items.append(value)
        return True


class QueueAdapter:
    """The in-process candidate: a fresh queue per ``start``, the spec's operations in, answers out."""

    queue_class: type[BoundedQueue] = BoundedQueue
    capabilities: tuple[str, ...] = ()

    def __init__(self, profile: str = "fifo") -> None:
        self.profile = profile
        self.queue = self.queue_class(1)

    def start(self, config: QueueConfig) -> None:
        self.queue = self.queue_class(config.capacity)

    def apply(self, op: Any) -> Any:
        if isinstance(op, Offer):
            return self.queue.offer(op.value)
        if isinstance(op, Poll):
            return self.queue.poll()
        return self.queue.size()

    def stop(self) -> None:
        """Nothing to release."""


class QueueMutant(ReferenceMutant):
    """A named mutant of the reference queue (``conformance/systems.ReferenceMutant``)."""

    reference = QueueAdapter
    slot = "queue_class"


MUTANTS = (
    QueueMutant("fifo-last-in-first-out", "fifo", LastInFirstOut),
    QueueMutant("fifo-one-over-capacity", "fifo", OneOverCapacity),
)
