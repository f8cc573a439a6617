"""The queue's lockstep machine: Hypothesis interleaves offers, polls and size reads on small queues."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, rule
from ledgerspec.conformance.lockstep._engine import Lockstep

from fifo_queue.spec import Offer, Poll, QueueConfig, Size


def make_machine(run: Any) -> type[Lockstep]:
    """A machine class bound to one run (``System.machine``)."""

    class QueueLockstep(Lockstep):
        @initialize(config=st.builds(QueueConfig, capacity=st.integers(1, 4)))
        def start(self, config: QueueConfig) -> None:
            self.begin(config)

        @rule(value=st.integers(0, 9), times=st.integers(1, 5))
        def offer(self, value: int, times: int) -> None:
            """Bursts of offers: a small queue fills within one."""
            for i in range(times):
                self.do(Offer(value=value + i))

        @rule()
        def poll(self) -> None:
            self.do(Poll())

        @rule()
        def size(self) -> None:
            self.do(Size())

    QueueLockstep.run = run
    return QueueLockstep
