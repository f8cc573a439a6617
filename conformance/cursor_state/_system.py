"""The cursor-state system (PIP-381) as one ``System`` record: what every command reads of it.

Registered as ``cursor-state`` in the ``ledgerspec.systems`` entry points (pyproject.toml). Building it
imports the spec (pure Python) only; the search's machine (Hypothesis), the reference, the mutants,
the walk, the plots and the real code are imported when a command calls them (``lazy``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from ledgerspec.conformance.systems import ProcessHooks, System, lazy, load
from ledgerspec.spec import cursor_state as spec
from ledgerspec.spec.cursor_state._events import VOCABULARY
from ledgerspec.spec.cursor_state._events import reported as reported_writes

NAME = "cursor-state"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "protocol" / NAME / "v1"
HERE = "ledgerspec.conformance.cursor_state"


@functools.cache
def system() -> System:
    """The record (the ``ledgerspec.systems`` entry point ``cursor-state``)."""
    return System.from_spec(
        NAME,
        spec,
        config=spec.CursorConfig,
        reported=lambda candidate: {"writes": reported_writes(candidate)},
        reads={"CURSOR-WRITES": "writes"},
        vocabulary=VOCABULARY,
        machine=lazy(f"{HERE}._machine:make_cursor_machine"),
        reference=lazy(f"{HERE}._reference_adapter:CursorStateAdapter"),
        mutants=functools.partial(load, f"{HERE}._mutants:CURSOR_MUTANTS"),
        process=ProcessHooks(SCHEMA_DIR, lazy(f"{HERE}._process:result_problem"), default_profile="pip381"),
        real=functools.partial(lazy("ledgerspec.conformance.adapters._harness:harnesses_of"), NAME),
        judge_real=lazy(f"{HERE}._real:judge_for_run"),
        real_rank=2,
        deviations=lazy(f"{HERE}._real_section:cursor_state_section"),
        findings=f"{HERE}._findings",
        protocol_page=f"conformance/protocol/{NAME}.md",
        walk=lazy(f"{HERE}._walk:walk"),
        unclaimed=lazy(f"{HERE}._walk:unclaimed"),
        ends=lazy(f"{HERE}._walk:ends"),
        columns=("mark-delete", "acked ranges", "persisted (acknowledged)", "metadata store", "ledger entries"),
        describe=lazy(f"{HERE}._story:describe"),
        result_text=lazy(f"{HERE}._story:result_text"),
        plot=lazy(f"{HERE}._story:plot"),
    )
