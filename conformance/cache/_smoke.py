"""``ledgerspec smoke``: is the adapter wired right? Never a conformance verdict.

Starts the adapter, runs one operation of every kind it supports and checks only the shapes: the
handshake, that each result has its operation's type and that every observation is well formed.
A cache that evicts wrongly passes; an adapter that crashes, hangs or answers in the wrong shape
does not. Two traps of adapter writers come first, so that they show in a second rather than after
a search: under pip430 an insert with ``expected_reads`` None (JSON null), and under legacy, for an
adapter that claims ``cursors``, the one rule smoke checks: cursor-driven invalidation (SPEC.md §3.2),
which an adapter written to an older protocol page applied only with ``managed_ledger``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledgerspec.conformance._errors import AdapterFault, close_factory
from ledgerspec.conformance.cache._presets import get_preset
from ledgerspec.conformance.cache.adapters import AdapterFactory, CacheAdapter, result_problem
from ledgerspec.spec.cache import (
    CacheConfig,
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
    get_profile,
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

NO_HANDLER = Insert(now=2, ledger=1, entry=2, size=5, expected_reads=None)
"""pip430's insert of an entry created without a read-count handler: ``"expected_reads": null``."""

RULE = "cursor-driven invalidation (spec/cache/SPEC.md §3.2, #cursor-driven-invalidation)"
RULE_SCRIPT: tuple[Op, ...] = (
    Insert(now=1, ledger=1, entry=0, size=10),
    Insert(now=2, ledger=1, entry=1, size=10),
    CursorAdd(now=3, ledger=1, cursor="smoke-rule", entry=0),
    CursorSeek(now=4, ledger=1, cursor="smoke-rule", entry=1),
    CursorRemove(now=5, ledger=1, cursor="smoke-rule"),
)
"""SPEC.md's example of the rule, on a fresh cache: the seek removes (1,0), the departure (1,1)."""


def script(profile: str) -> tuple[Op, ...]:
    """:data:`SCRIPT` for ``profile``: pip430's has :data:`NO_HANDLER` right after its first insert."""
    return (*SCRIPT[:2], NO_HANDLER, *SCRIPT[2:]) if profile == "pip430" else SCRIPT


@dataclass
class SmokeResult:
    """What was checked and the first problem, if any."""

    name: str = ""
    lines: list[str] = field(default_factory=list)
    problem: str | None = None
    rule_checked: bool = False
    """Whether :data:`RULE_SCRIPT` ran: then smoke said something about conformance after all."""


def smoke(factory: AdapterFactory, profile: str | None = None) -> SmokeResult:
    """Run the profile's :func:`script` (and a release/replay of each copy handed out) checking only shapes.

    ``profile``: as ``conform`` takes it, the adapter's first by default. Under legacy, with ``cursors``
    claimed, :data:`RULE_SCRIPT` follows on a fresh cache, compared with the model (:func:`_check_rule`).
    """
    outcome = SmokeResult()
    adapter = None
    try:
        adapter = factory()
        info = adapter.info
        outcome.name = info.name
        profile = profile or info.profiles[0]
        outcome.lines.append(
            f"handshake: {info.name} {info.version} ({info.language}), profiles {', '.join(info.profiles)}, "
            f"capabilities {', '.join(sorted(info.capabilities)) or 'none'}; smoked as {profile}"
        )
        config = get_preset("minimal").config
        adapter.start(config)
        outcome.lines += _play(adapter, script(profile))
        if profile == "legacy" and "cursors" in info.capabilities:
            outcome.lines.append(f"  rule {RULE}, on a fresh cache:")
            outcome.rule_checked = True
            outcome.lines += _check_rule(adapter, config)
    except (AdapterFault, RuleDisagreement) as fault:
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


def _play(adapter: CacheAdapter, steps: tuple[Op, ...]) -> list[str]:
    """The steps the adapter supports, each read's copies replayed (if claimed) and released; shapes only."""
    lines = []
    clock = 0
    for scripted in steps:
        clock = max(clock + 1, scripted.now)
        op = dataclasses.replace(scripted, now=clock)
        if not adapter.info.supports(op):
            lines.append(f"  skip {op.kind} (capability not claimed)")
            continue
        result = _apply(adapter, op)
        _observe(adapter, op, result)
        lines.append(f"  ok   {op.describe()} -> {result!r}")
        copies = [result] if isinstance(result, int) and op.kind == "get" else []
        copies += [c for c in result if c is not None] if op.kind == "get_range" else []
        for copy in copies:
            follow: list[Op] = [Release(now=clock + 2, copy=copy)]
            if adapter.info.supports(ReplayIncrement(now=0, copy=copy)):
                follow.insert(0, ReplayIncrement(now=clock + 1, copy=copy))
            for extra in follow:
                _observe(adapter, extra, _apply(adapter, extra))
                lines.append(f"  ok   {extra.describe()}")
            clock += 2
    return lines


class RuleDisagreement(Exception):  # noqa: N818 - a disagreement, not an error of ledgerspec's
    """The adapter's cache differs from the legacy model on :data:`RULE_SCRIPT`: smoke fails naming the rule.

    Not an :class:`AdapterFault`: the adapter is wired right, its cache breaks the one rule smoke checks.
    """


def _check_rule(adapter: CacheAdapter, config: CacheConfig) -> list[str]:
    """Play :data:`RULE_SCRIPT` and compare the cached positions after each step with the legacy model's."""
    model = get_profile("legacy")
    adapter.start(config)
    states = [model.init(config)]
    lines = []
    for op in RULE_SCRIPT:
        observation = _observe(adapter, op, _apply(adapter, op))
        seen = _positions(observation.entries)
        after = [outcome.state for state in states for outcome in model.step(state, op)]
        states = [state for state in after if _positions(model.observe(state).entries) == seen]
        if not states:
            expected = " or ".join(sorted({_shown(_positions(model.observe(state).entries)) for state in after}))
            raise RuleDisagreement(
                f"{RULE}: after {op.describe()} the adapter caches {_shown(seen)}, the legacy profile {expected}; "
                "a legacy cache that claims cursors invalidates below its slowest cursor, managed_ledger or not"
            )
        lines.append(f"  ok   {op.describe()} -> cached {_shown(seen)}")
    return lines


def _positions(entries: Iterable[Any]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((entry.ledger, entry.entry) for entry in entries))


def _shown(positions: tuple[tuple[int, int], ...]) -> str:
    return "[" + ", ".join(f"({ledger},{entry})" for ledger, entry in positions) + "]"


def _apply(adapter: CacheAdapter, op: Op) -> Any:
    """``adapter.apply``; an in-process adapter's own exception is a fault naming the step, not a traceback."""
    try:
        return adapter.apply(op)
    except AdapterFault:
        raise
    except Exception as error:
        raise AdapterFault(f"{op.describe()}: the adapter raised {type(error).__name__}: {error}") from error


def _observe(adapter: CacheAdapter, op: Op, result: object) -> Observation:
    """``adapter.observe`` after ``op``, its exceptions named as :func:`_apply` names them; ``result`` checked too."""
    try:
        observation = adapter.observe()
    except AdapterFault:
        raise
    except Exception as error:
        raise AdapterFault(
            f"observe after {op.describe()}: the adapter raised {type(error).__name__}: {error}"
        ) from error
    _check(op, result, observation)
    return observation


def _check(op: Op, result: object, observation: object) -> None:
    """The shapes: the result's type for its operation, and an :class:`Observation`."""
    problem = result_problem(op, result)
    if problem:
        raise AdapterFault(f"{op.describe()}: {problem}")
    if not isinstance(observation, Observation):
        raise AdapterFault(f"{op.describe()}: observe() returned {type(observation).__name__}, not an Observation")
