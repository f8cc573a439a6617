"""The broker entry cache (PIP-430) as a ``System`` record: the default system, searched by an engine of its own.

Registered as ``cache`` in the ``ledgerspec.systems`` entry points (pyproject.toml). Its spec answers a
step with the set of outcomes a profile allows, judged by an observation monitor (``spec/cache``), not
with one expected answer: so its record brings its commands (``commands``) instead of the lockstep
engine's ``init``/``step``/``facts`` (its profile models' ``step`` already returns the set of allowed
outcomes: ``spec/cache/<profile>.py``). Building the record imports nothing heavy: every hook loads its
module when a command calls it.
"""

from __future__ import annotations

import functools
from typing import Any, NoReturn

from ledgerspec.conformance._names import CACHE_PROFILES
from ledgerspec.conformance.systems import Commands, System, lazy

NAME = "cache"
HERE = "ledgerspec.conformance.cache"


def _not_lockstep(*_: Any, **__: Any) -> NoReturn:
    """The lockstep engine's hooks: never called for a system with commands of its own."""
    raise TypeError("the cache is searched by its observation monitor (conformance/cache/_engine.py), not lockstep")


def _commands() -> Commands:
    return Commands(
        conform=lazy(f"{HERE}._cli:run_conform"),
        replay=lazy(f"{HERE}._cli:run_replay"),
        smoke=lazy(f"{HERE}._cli:run_smoke"),
        matrix=lazy(f"{HERE}._cli:run_matrix"),
        mutants=lazy(f"{HERE}._mutants_cli:run_mutants"),
        show=lazy(f"{HERE}._spec_show:show"),
        record=lazy("ledgerspec.traces.cache._record_cli:run_record"),
        adapters=lazy(f"{HERE}._cli:adapter_lines"),
        check_trace=lazy("ledgerspec.traces.cache._traces_cli:check_trace"),
        trace_rows=lazy("ledgerspec.traces.cache._traces_cli:rows_in"),
        generate=lazy("ledgerspec.traces.cache._traces_cli:run_generate"),
        bench_traces=lazy("ledgerspec.traces.cache._traces_cli:run_bench"),
        bench=lazy(f"{HERE}._bench:run_bench"),
        deviations=lazy(f"{HERE}._deviations_run:run_deviations"),
    )


def _judge_real(say: Any, *, settings: str, seed: int, record: Any) -> bool:
    """``ledgerspec run``'s part 3 for the cache's real code: every target on the ``minimal`` preset."""
    judge_all = lazy(f"{HERE}._real:judge_all")
    return bool(judge_all(say, settings=settings, seed=seed, presets=("minimal",), record=record))


@functools.cache
def system() -> System:
    """The record (the ``ledgerspec.systems`` entry point ``cache``)."""
    return System(
        name=NAME,
        profiles=CACHE_PROFILES,
        init=_not_lockstep,
        step=_not_lockstep,
        claimed=lazy("ledgerspec.spec.cache:claimed"),
        facts=_not_lockstep,
        commands=_commands,
        client=lazy(f"{HERE}.adapters._process:process_factory"),
        is_default=True,
        check_references=lazy(f"{HERE}._run_part:check_references"),
        judge_real=_judge_real,
        real_rank=-1,
    )
