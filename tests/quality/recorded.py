"""Recordings of every reference adapter and catalogue mutant through ``traces record``, with what
``conform`` says of the same steps.

Each candidate is recorded with the ``edge`` workload (duplicate inserts, spurious size passes, some with
the size exactly on the trigger, awaited entries spared by a TTL pass and released, TTL
passes on the exact TTL boundary, passes freeing a few bytes or with a cutoff, ledgers trimmed and
deleted under held copies, the slowest cursor skipping ahead, a managed ledger appended to, closed and
read across its reopen) under several configurations, one with a
small ``max_size``, one with ``track_reads`` off (legacy invalidation mode in pip430 and pulsar-master),
and two seeds. While ``traces record`` drives it, every
step (operation, result, observation as the adapter shows it) is kept, and the conformance monitor
judges those same steps with every invariant the profile claims and the adapter can be checked on,
as ``ledgerspec conform`` does. tests/quality/test_trace_agreement.py compares that verdict with the
local checker's on the recorded trace; tests/slow/test_trace_agreement_spark.py with Spark's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance.cache._mutants import factory_for, load_mutants
from ledgerspec.conformance.cache.adapters import mask
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.spec.cache import PROFILES, CacheConfig, Monitor, Op, claimed
from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
from ledgerspec.traces.cache._record import record_trace

CONFIGS = {
    "small": DEFAULT_CONFIG.replace(max_size=512 * 1024, segment_size_max=64 * 1024),
    "tiny": DEFAULT_CONFIG.replace(
        max_size=64 * 1024, ttl=2_000_000, ttl_max=10_000_000, max_requeue=2, segment_size_max=16 * 1024
    ),
    "medium-untracked": DEFAULT_CONFIG.replace(
        max_size=1024 * 1024, ttl=20_000_000, ttl_max=100_000_000, track_reads=False
    ),
}
SEEDS = (0, 1)
EVENTS = 1200
WORKLOAD = "edge"
MUTANTS = load_mutants()


@dataclass(frozen=True)
class Candidate:
    """A reference adapter or a mutant, and the profile it is checked against."""

    name: str
    profile: str
    factory: Callable[[], Any]

    @property
    def reference(self) -> bool:
        """True for a reference adapter (which must pass everywhere)."""
        return self.name.startswith("reference-")


NOT_IN_TRACES = {
    "pip430-hit-not-counted": "counters: a trace carries events, not the counters",
    "pulsar-master-miss-not-counted": "counters: a trace carries events, not the counters",
    "legacy-clear-not-counted": "counters: a trace carries events, not the counters",
    "segmented-hit-not-counted": "counters: a trace carries events, not the counters",
    "segmented-fits-exclusive": "the edge workload never fills a segment to the byte",
    "pulsar-master-extend-ttl-ignored": "the edge workload never turns extend_ttl off",
    "pulsar-master-tombstone-not-queued": "the queue's length is an observation: no event shows a tombstone",
    "pulsar-master-non-evictable-pip-way": "non_evictable_size is an observation, not an event",
    "pulsar-master-free-stops-before-tombstones": "the queue's length is an observation: no event shows a tombstone",
    "pulsar-master-access-requeue-free": "a requeue's count is an observation: its event is the same either way, and"
    " the edge workload requeues no entry for an access and then for its reads past the budget",
}
"""Mutants (issue 16) whose bug the recorded traces cannot show, with why; conformance kills each of them."""

CANDIDATES = [Candidate(f"reference-{p}", p, lambda p=p: ReferenceAdapter(p)) for p in sorted(PROFILES)] + [
    Candidate(m.name, m.profile, factory_for(m)) for m in MUTANTS if m.name not in NOT_IN_TRACES
]


@dataclass
class Recording:
    """One recorded trace and, if asked, the invariants ``conform`` found broken on its steps."""

    candidate: Candidate
    config: str
    seed: int
    path: Path
    broken: dict[str, str] | None = None
    """Invariant -> its first violation message (empty: PASS); None if not judged."""

    @property
    def label(self) -> str:
        """``candidate/config/seed``."""
        return f"{self.candidate.name}/{self.config}/{self.seed}"


class _Capturing:
    """An adapter that keeps every step as the adapter shows it (observations masked as conform masks them)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.info = inner, inner.info
        self.steps: list[tuple[Op, Any, Any]] = []

    def start(self, config: CacheConfig) -> None:
        self.inner.start(config)

    def stop(self) -> None:
        self.inner.stop()

    def observe(self) -> Any:
        return self.inner.observe()

    def apply(self, op: Op) -> Any:
        result = self.inner.apply(op)
        self.steps.append((op, result, mask(self.inner.observe(), self.info.capabilities)))
        return result


def record(candidate: Candidate, config: str, seed: int, directory: Path, *, judge: bool = True) -> Recording:
    """Record one trace with ``traces record``; with ``judge``, run the conformance monitor on its steps."""
    made: list[_Capturing] = []

    def factory() -> _Capturing:
        made.append(_Capturing(candidate.factory()))
        return made[-1]

    path = directory / f"{candidate.name}-{config}-{seed}.jsonl"
    settings = CONFIGS[config]
    record_trace(
        factory, str(path), workload=WORKLOAD, events=EVENTS, seed=seed, profile=candidate.profile, config=settings
    )
    recording = Recording(candidate, config, seed, path)
    if judge:
        (adapter,) = made
        capabilities = adapter.info.capabilities
        checkable = [i.id for i in claimed(candidate.profile) if i.needs_for(candidate.profile) <= capabilities]
        monitor = Monitor(candidate.profile, settings, invariants=checkable, project=lambda o: mask(o, capabilities))
        broken: dict[str, str] = {}
        for op, result, observation in adapter.steps:
            for violation in monitor.check(op, result, observation):
                broken.setdefault(violation.invariant, violation.message)
        recording.broken = broken
    return recording


_MADE: dict[str, tuple[bool, list[Recording]]] = {}
"""The recordings made in this session, by candidate, and whether the monitor judged them."""


def record_all(candidate: Candidate, directory: Path, *, judge: bool = True) -> list[Recording]:
    """Every configuration and seed of one candidate (recorded once per session, judged if asked)."""
    made = _MADE.get(candidate.name)
    if made is None or (judge and not made[0]):
        recordings = [record(candidate, config, seed, directory, judge=judge) for config in CONFIGS for seed in SEEDS]
        made = _MADE[candidate.name] = (judge, recordings)
    return made[1]
