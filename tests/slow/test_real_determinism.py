"""Same seed, same verdict, on a loaded machine (issue 37, item 1).

Every real harness settles a step by running what the step set going to quiescence (the cursor harness's
``World``: its brokers', bookies' and store's tasks on one counted worker; the cache harnesses run their
executors by hand), never by sleeping or timing. So a search repeated beside processes that keep every core
busy must give the same verdict, the same counts and the same counterexample each time: the twelve pinned
cursor-state-managed-cursor searches three times each, and every other real target three times at one seed. Before, the
cursor harness slept and compared, and on a busy machine the same search ended in FAIL, then ERROR ("the
same steps gave different answers").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from ledgerspec.conformance.adapters._harness import build
from ledgerspec.conformance.cache._real import REAL_TARGETS, run_target
from ledgerspec.conformance.cursor_state._real import CURSOR_VERDICTS, ci_search
from ledgerspec.conformance.txlog_writer._real import run_real

RUNS = 3


@pytest.fixture(scope="module")
def busy() -> Iterator[None]:
    """Processes that keep every core busy for the module's tests (killed at its end, whatever happens)."""
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"
    build()  # before the load: the build is not what is measured
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)
    ]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _lockstep(report: Any) -> tuple[Any, ...]:
    found = report.violation
    return (
        report.verdict.value,
        report.examples,
        report.steps,
        report.fault,
        None if found is None else (found.invariant, found.message, repr(found.config), [repr(s) for s in found.steps]),
    )


def _cache(report: Any) -> tuple[Any, ...]:
    rows = [(row.invariant, row.status.value, row.detail) for row in report.rows]
    cases = [(row.invariant, [repr(s) for s in row.case.steps]) for row in report.rows if row.case is not None]
    return (report.verdict, report.examples, report.steps, report.fault, rows, cases)


@pytest.mark.parametrize("verdict", CURSOR_VERDICTS, ids=[f"{v.adapter}-{v.invariant}" for v in CURSOR_VERDICTS])
def test_a_pinned_real_cursor_search_repeats_exactly_on_a_busy_machine(verdict, busy):
    runs = [_lockstep(ci_search(verdict)) for _ in range(RUNS)]
    assert runs[0][3] is None, f"adapter fault: {runs[0][3]}"
    assert runs[0][0] == verdict.verdict
    assert runs.count(runs[0]) == RUNS, runs


@pytest.mark.parametrize("target", REAL_TARGETS, ids=[t.label for t in REAL_TARGETS])
def test_a_real_cache_target_repeats_exactly_on_a_busy_machine(target, busy):
    runs = [_cache(run_target(target, preset="minimal", settings="quick", seed=1)) for _ in range(RUNS)]
    assert runs[0][3] is None, f"adapter fault: {runs[0][3]}"
    assert runs.count(runs[0]) == RUNS, runs


def test_the_real_txlog_writer_repeats_exactly_on_a_busy_machine(busy):
    runs = [_lockstep(run_real(settings="quick", seed=1)) for _ in range(RUNS)]
    assert runs[0][3] is None, f"adapter fault: {runs[0][3]}"
    assert runs.count(runs[0]) == RUNS, runs
