"""``ledgerspec smoke``: is the adapter wired right? Never a conformance verdict.

Starts the adapter, runs one operation of every kind it supports and checks only the shapes: the
handshake, that each result has its operation's type and that every observation is well formed.
A cache that evicts wrongly passes; an adapter that crashes, hangs or answers in the wrong shape
does not.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ledgerspec.conformance._errors import AdapterFault, close_factory
from ledgerspec.conformance._presets import get_preset
from ledgerspec.conformance.adapters import AdapterFactory, result_problem
from ledgerspec.spec.cache import (
    Clear,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRemove,
    CursorSeek,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    Observation,
    Op,
    Release,
    ReplayIncrement,
)

SCRIPT: tuple[Op, ...] = (
    CursorAdd(now=1, ledger=1, cursor="smoke", entry=0),
    Insert(now=2, ledger=1, entry=0, size=10, expected_reads=1),
    Insert(now=3, ledger=1, entry=1, size=20),
    Insert(now=4, ledger=2, entry=0, size=30, expected_reads=2),
    Get(now=5, ledger=1, entry=0),
    Get(now=6, ledger=3, entry=9),
    GetRange(now=7, ledger=1, first=0, last=2),
    CursorSeek(now=8, ledger=1, cursor="smoke", entry=1),
    CursorCount(now=9, ledger=1, cursor="smoke"),
    Configure(now=10, ttl=5),
    EvictTimestamp(now=30),
    EvictSize(now=31),
    InvalidateBefore(now=32, ledger=1, entry=1),
    InvalidateLedger(now=33, ledger=2),
    Clear(now=34),
    CursorRemove(now=35, ledger=1, cursor="smoke"),
)
"""Every operation kind once; copies are released or replayed as the reads hand them out."""


@dataclass
class SmokeResult:
    """What was checked and the first problem, if any."""

    name: str = ""
    lines: list[str] = field(default_factory=list)
    problem: str | None = None


def smoke(factory: AdapterFactory) -> SmokeResult:
    """Run :data:`SCRIPT` (and a release/replay of each copy handed out) checking only shapes."""
    outcome = SmokeResult()
    adapter = None
    try:
        adapter = factory()
        info = adapter.info
        outcome.name = info.name
        outcome.lines.append(
            f"handshake: {info.name} {info.version} ({info.language}), profiles {', '.join(info.profiles)}, "
            f"capabilities {', '.join(sorted(info.capabilities)) or 'none'}"
        )
        adapter.start(get_preset("minimal").config)
        clock = 0
        for scripted in SCRIPT:
            clock = max(clock + 1, scripted.now)
            op = dataclasses.replace(scripted, now=clock)
            if not info.supports(op):
                outcome.lines.append(f"  skip {op.kind} (capability not claimed)")
                continue
            result = adapter.apply(op)
            _check(op, result, adapter.observe())
            outcome.lines.append(f"  ok   {op.describe()} -> {result!r}")
            copies = [result] if isinstance(result, int) and op.kind == "get" else []
            copies += [c for c in result if c is not None] if op.kind == "get_range" else []
            for copy in copies:
                follow: list[Op] = [Release(now=clock + 2, copy=copy)]
                if info.supports(ReplayIncrement(now=0, copy=copy)):
                    follow.insert(0, ReplayIncrement(now=clock + 1, copy=copy))
                for extra in follow:
                    _check(extra, adapter.apply(extra), adapter.observe())
                    outcome.lines.append(f"  ok   {extra.describe()}")
                clock += 2
    except AdapterFault as fault:
        outcome.problem = str(fault)
    finally:
        if adapter is not None:
            try:
                adapter.stop()
            except AdapterFault as fault:
                outcome.problem = outcome.problem or str(fault)
        stop_fault = close_factory(factory)  # a process's final ``stop``: a fault there fails the smoke too
        if stop_fault is not None:
            outcome.problem = outcome.problem or str(stop_fault)
    return outcome


def _check(op: Op, result: object, observation: object) -> None:
    problem = result_problem(op, result)
    if problem:
        raise AdapterFault(f"{op.describe()}: {problem}")
    if not isinstance(observation, Observation):
        raise AdapterFault(f"{op.describe()}: observe() returned {type(observation).__name__}, not an Observation")
