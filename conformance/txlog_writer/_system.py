"""The txlog-writer system (PIP-160) as one ``System`` record: what every command reads of it.

Registered as ``txlog-writer`` in the ``ledgerspec.systems`` entry points (pyproject.toml); its Python
packages are ``txlog_writer`` (one name per system: hyphenated on the command line, snake_case in
Python). Building the record imports the spec (pure Python) only; everything else is imported when a
command calls it (``lazy``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledgerspec.conformance.systems import ProcessHooks, System, lazy, load
from ledgerspec.spec import txlog_writer as spec
from ledgerspec.spec.txlog_writer._events import VOCABULARY

NAME = "txlog-writer"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / NAME / "v1"
HERE = "ledgerspec.conformance.txlog_writer"


def _facts(capabilities: frozenset[str]) -> Callable[..., Any]:
    """Without ``metrics_delay`` a null delay is not compared; with it (every in-process candidate), it is."""
    return functools.partial(spec.Step, delay_measured="metrics_delay" in capabilities)


def _where(step: int, op: Any, seq: Any) -> str:
    """How a process fault names the step (``step 3, Add(size=5) (seq 9)``)."""
    return f"step {step}, {op.describe()} (seq {seq})"


@functools.cache
def system() -> System:
    """The record (the ``ledgerspec.systems`` entry point ``txlog-writer``)."""
    return System.from_spec(
        NAME,
        spec,
        config=spec.WriterConfig,
        vocabulary=VOCABULARY,
        run_facts=_facts,
        machine=lazy(f"{HERE}._machine:make_txlog_machine"),
        reference=lazy(f"{HERE}._reference_adapter:TxlogAdapter"),
        mutants=functools.partial(load, f"{HERE}._mutants:TXLOG_MUTANTS"),
        process=ProcessHooks(
            SCHEMA_DIR,
            lazy(f"{HERE}._process:hook_problem"),
            where=_where,
            count_error="expected one result in results",
            default_profile="pulsar-master",
        ),
        real=functools.partial(lazy("ledgerspec.conformance.adapters._harness:harnesses_of"), NAME),
        judge_real=lazy(f"{HERE}._real:judge_for_run"),
        real_rank=1,
        deviations=lazy(f"{HERE}._real_section:txlog_writer_section"),
        protocol_page=f"conformance/protocol/{NAME}.md",
        walk=lazy(f"{HERE}._walk:walk"),
        columns=("clock", "buffered records", "buffered bytes", "pending writes", "callbacks done", "timer"),
        describe=lazy(f"{HERE}._story:describe"),
        plot=lazy(f"{HERE}._story:plot"),
    )
