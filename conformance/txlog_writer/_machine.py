"""The txlog-writer lockstep machine.

Hypothesis interleaves adds of varied sizes, clock advances, write completions and failures, metric
reads and close, on a virtual clock (nothing sleeps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule
from ledgerspec.conformance.lockstep._engine import Lockstep, LockstepRun, Report, conform
from ledgerspec.conformance.txlog_writer._system import system
from ledgerspec.spec.txlog_writer import (
    CAPABILITIES,
    Add,
    Close,
    Complete,
    Fail,
    Metrics,
    Tick,
    WriterConfig,
)

TXLOG_WRITER = system()
"""The record (``conformance/txlog_writer/_system.py``)."""
CONFIGS = st.builds(
    WriterConfig,
    batch_enabled=st.sampled_from([True, True, True, False]),
    max_records=st.sampled_from([1, 2, 3, 4, 8]),
    max_size=st.sampled_from([16, 32, 64]),
    max_delay=st.sampled_from([1, 2, 5]),
)


def make_txlog_machine(run: LockstepRun) -> type[Lockstep]:
    """A machine class bound to one candidate and profile."""

    class TxlogLockstep(Lockstep):
        @initialize(config=CONFIGS)
        def start(self, config: WriterConfig) -> None:
            self.begin(config)

        @rule(data=st.data(), count=st.integers(1, 4))
        def add(self, data: st.DataObject, count: int) -> None:
            """Records of sizes around the thresholds (tiny, just under, at, over ``max_size``), some a tick apart."""
            limit = self.config.max_size
            for i in range(count):
                if i and data.draw(st.booleans(), label="a tick between"):
                    self.do(Tick(by=1))  # records of one batch added at different times
                size = data.draw(st.sampled_from([1, 3, limit // 2, limit - 1, limit, limit + 5]), label="size")
                self.do(Add(size=max(size, 1)))
            self.do(Metrics())  # a flush's metrics are read at once, before later flushes blur them

        @rule(by=st.sampled_from([1, 1, 2, 3, 5, 11]))
        def tick(self, by: int) -> None:
            self.do(Tick(by=by))
            self.do(Metrics())

        @rule(times=st.integers(1, 3), fail=st.sampled_from([False, False, False, True]))
        def finish(self, times: int, fail: bool) -> None:
            """The managed ledger completes (or fails) its oldest outstanding entries."""
            for _ in range(times):
                self.do(Fail() if fail else Complete())

        @precondition(lambda self: bool(self.model.batch) or not self.model.config.batching)
        @rule(now=st.sampled_from([False, False, True]))
        def close(self, now: bool) -> None:
            """Sometimes, with records buffered (or batching off): close fails them, and every record after it."""
            if now:
                self.do(Close())

    TxlogLockstep.run = run
    TxlogLockstep.__name__ = f"TxlogLockstep_{run.profile.replace('-', '_')}"
    return TxlogLockstep


def conform_txlog(
    factory: Any,
    profile: str,
    *,
    settings_name: str = "ci",
    seed: int = 0,
    invariants: tuple[str, ...] = (),
    capabilities: frozenset[str] = frozenset(CAPABILITIES),
    on_example: Callable[[int, int], None] | None = None,
) -> Report:
    """Search for a sequence of operations on which the candidate breaks one of the profile's invariants.

    ``capabilities`` are a process's claims (conformance/protocol/txlog-writer.md); they change what it
    may leave out of a result, never which operations are sent. Without ``metrics_delay`` a null delay is
    not compared; with it (every in-process candidate), a null delay is a wrong answer like any other.
    """
    return conform(
        TXLOG_WRITER,
        factory,
        profile,
        settings_name=settings_name,
        seed=seed,
        invariants=invariants,
        capabilities=capabilities,
        on_example=on_example,
    )
