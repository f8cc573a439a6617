"""The txlog-writer system (PIP-160) as one ``System`` record: what every command reads of it.

Registered as ``txlog-writer`` in the ``ledgerspec.systems`` entry points (pyproject.toml); the Python
package keeps the shorter name ``txlog``. Building it imports the spec (pure Python) only; the search's
machine (Hypothesis), the reference, the mutants, the walk and the plots are imported when called.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ledgerspec.conformance.systems import ProcessHooks, System
from ledgerspec.spec import txlog as spec
from ledgerspec.spec.txlog._events import VOCABULARY

NAME = "txlog-writer"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / NAME / "v1"


def _machine(run: Any) -> type:
    from ledgerspec.conformance.txlog._machine import make_txlog_machine  # noqa: PLC0415 - Hypothesis

    return make_txlog_machine(run)


def _reference(profile: str) -> Any:
    from ledgerspec.conformance.txlog._reference_adapter import TxlogAdapter  # noqa: PLC0415

    return TxlogAdapter(profile)


def _mutants() -> Sequence[Any]:
    from ledgerspec.conformance.txlog._mutants import TXLOG_MUTANTS  # noqa: PLC0415

    return TXLOG_MUTANTS


def _hook(module: str, name: str) -> Any:
    """A function of this folder's ``module``, imported when first called."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib  # noqa: PLC0415

        return getattr(importlib.import_module(f"ledgerspec.conformance.txlog.{module}"), name)(*args, **kwargs)

    return call


def _facts(capabilities: frozenset[str]) -> Callable[..., Any]:
    """Without ``metrics_delay`` a null delay is not compared; with it (every in-process candidate), it is."""
    return functools.partial(spec.Step, delay_measured="metrics_delay" in capabilities)


def _harnesses() -> tuple[str, ...]:
    from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES  # noqa: PLC0415

    return tuple(name for name, (of, _) in SYSTEM_HARNESSES.items() if of == NAME)


@functools.cache
def system() -> System:
    """The record (the ``ledgerspec.systems`` entry point ``txlog-writer``)."""
    return System(
        name=NAME,
        summary="the transaction-log buffered writer (PIP-160)",
        profiles=spec.PROFILES,
        init=spec.init,
        step=spec.step,
        claimed=spec.claimed,
        facts=spec.Step,
        capabilities=spec.CAPABILITIES,
        invariants=spec.INVARIANTS,
        config=spec.WriterConfig,
        op_from_dict=spec.op_from_dict,
        vocabulary=VOCABULARY,
        run_facts=_facts,
        machine=_machine,
        reference=_reference,
        mutants=_mutants,
        process=ProcessHooks(
            SCHEMA_DIR,
            _hook("_process", "hook_problem"),
            where=lambda step, op, seq: f"step {step}, {op.describe()} (seq {seq})",
            count_error="expected one result in results",
            default_profile="pulsar-master",
        ),
        real=_harnesses,
        judge_real=_hook("_real", "judge_for_run"),
        real_rank=1,
        deviations=_hook("_real_section", "txlog_writer_section"),
        protocol_page=f"conformance/protocol/{NAME}.md",
        walk=_hook("_walk", "walk"),
        columns=("clock", "buffered records", "buffered bytes", "pending writes", "callbacks done", "timer"),
        describe=_hook("_story", "describe"),
        plot=_hook("_story", "plot"),
    )
