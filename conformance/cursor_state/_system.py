"""The cursor-state system (PIP-381) as one ``System`` record: what every command reads of it.

Registered as ``cursor-state`` in the ``ledgerspec.systems`` entry points (pyproject.toml). Building it
imports the spec (pure Python) only; the search's machine (Hypothesis), the reference, the mutants,
the walk and the plots are imported when a command calls them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ledgerspec.conformance.systems import ProcessHooks, System
from ledgerspec.spec import cursor_state as spec
from ledgerspec.spec.cursor_state._events import VOCABULARY
from ledgerspec.spec.cursor_state._events import reported as reported_writes

NAME = "cursor-state"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / NAME / "v1"


def _machine(run: Any) -> type:
    from ledgerspec.conformance.cursor_state._machine import make_cursor_machine  # noqa: PLC0415 - Hypothesis

    return make_cursor_machine(run)


def _reference(profile: str) -> Any:
    from ledgerspec.conformance.cursor_state._reference_adapter import CursorStateAdapter  # noqa: PLC0415

    return CursorStateAdapter(profile)


def _mutants() -> Sequence[Any]:
    from ledgerspec.conformance.cursor_state._mutants import CURSOR_MUTANTS  # noqa: PLC0415

    return CURSOR_MUTANTS


def _hook(module: str, name: str) -> Any:
    """A function of this folder's ``module``, imported when first called."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib  # noqa: PLC0415

        return getattr(importlib.import_module(f"ledgerspec.conformance.cursor_state.{module}"), name)(*args, **kwargs)

    return call


def _harnesses() -> tuple[str, ...]:
    from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES  # noqa: PLC0415

    return tuple(name for name, (of, _) in SYSTEM_HARNESSES.items() if of == NAME)


@functools.cache
def system() -> System:
    """The record (the ``ledgerspec.systems`` entry point ``cursor-state``)."""
    return System(
        name=NAME,
        summary="a managed cursor's persisted acknowledgement state (PIP-381)",
        profiles=spec.PROFILES,
        init=spec.init,
        step=spec.step,
        claimed=spec.claimed,
        facts=spec.Step,
        capabilities=spec.CAPABILITIES,
        reported=lambda candidate: {"writes": reported_writes(candidate)},
        reads={"CURSOR-WRITES": "writes"},
        invariants=spec.INVARIANTS,
        config=spec.CursorConfig,
        op_from_dict=spec.op_from_dict,
        vocabulary=VOCABULARY,
        machine=_machine,
        reference=_reference,
        mutants=_mutants,
        process=ProcessHooks(SCHEMA_DIR, _hook("_process", "result_problem"), default_profile="pip381"),
        real=_harnesses,
        judge_real=_hook("_real", "judge_for_run"),
        real_rank=2,
        deviations=_hook("_real_section", "cursor_state_section"),
        findings="ledgerspec.conformance.cursor_state._findings",
        protocol_page=f"conformance/protocol/{NAME}.md",
        walk=_hook("_walk", "walk"),
        unclaimed=_hook("_walk", "unclaimed"),
        ends=_hook("_walk", "ends"),
        columns=("mark-delete", "acked ranges", "persisted (acknowledged)", "metadata store", "ledger entries"),
        describe=_hook("_story", "describe"),
        result_text=_hook("_story", "result_text"),
        plot=_hook("_story", "plot"),
    )
