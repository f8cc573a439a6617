"""An adapter fault in a lockstep search (cursor-state, txlog-writer): an ERROR naming where, never Hypothesis's error.

A fault that depends on the candidate's past (a process that dies at its fifth ``apply``, whichever example
that falls in) used to go through Hypothesis as an ordinary failure: its replay went differently, and
``conform`` reported ``FlakyStrategyDefinition`` as a bug in ledgerspec, exit 2, the adapter's stderr lost.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from ledgerspec.conformance.adapters._transport import AdapterCrashed
from ledgerspec.conformance.lockstep._engine import conform
from ledgerspec.conformance.lockstep._views import fault_table, section
from ledgerspec.conformance.render._html import HtmlReport
from ledgerspec.conformance.systems import SYSTEMS

STDERR = "  stderr (last lines):\n    adapter: simulated crash"


class DiesAt:
    """A stand-in for one process serving every example: the ``at``-th ``apply`` it gets (or ``start``) faults."""

    def __init__(self, make: Any, *, at: int = 0, start: bool = False, stop: bool = False) -> None:
        self.make, self.at, self.start, self.stop, self.applies = make, at, start, stop, 0

    def __call__(self) -> Any:
        return _Handle(self, self.make())


class _Handle:
    def __init__(self, owner: DiesAt, inner: Any) -> None:
        self.owner, self.inner = owner, inner

    def start(self, config: Any) -> None:
        if self.owner.start:
            raise AdapterCrashed(f"configure (seq 2): the process closed stdout (exit 7)\n{STDERR}")
        self.inner.start(config)

    def apply(self, op: Any) -> Any:
        self.owner.applies += 1
        if self.owner.applies == self.owner.at:
            raise AdapterCrashed(f"apply of {op.describe()} (seq 9): the process closed stdout (exit 9)\n{STDERR}")
        return self.inner.apply(op)

    def stop(self) -> None:
        if self.owner.stop and self.owner.applies >= self.owner.at:
            raise AdapterCrashed("stop (seq 10): the process closed stdout (exit 9)")
        self.inner.stop()


def search(system: str, candidate: DiesAt) -> Any:
    chosen = SYSTEMS[system]
    profile = chosen.profiles[-1]
    return conform(chosen, candidate, profile, settings_name="quick", seed=1)


@pytest.mark.parametrize("system", ["cursor-state", "txlog-writer"])
def test_a_crash_at_the_fifth_apply_is_an_error_naming_the_step_with_the_stderr(system):
    profile = SYSTEMS[system].profiles[-1]
    report = search(system, DiesAt(SYSTEMS[system].references()[f"reference-{profile}"][1], at=5))
    assert report.verdict.value == "ERROR"
    assert report.violation is None
    assert report.fault.startswith("apply of ")
    assert report.fault.endswith(STDERR)
    assert report.fault_step == len(report.fault_steps) == 5
    assert re.match(r"adapter fault in example \d+, at step 5 \(config \{", report.fault_at), report.fault_at
    text = report.render()
    assert f"  5. {report.fault_steps[-1].describe()}   <- faulted" in text
    assert "adapter: simulated crash" in text
    assert text.endswith("verdict: ERROR")
    statuses = set(report.statuses().values())
    assert "pass" not in statuses  # the search stopped at the fault: what held until then says so
    assert "adapter fault (held until then; the search stopped there)" in {row.detail for row in report.rows()}


@pytest.mark.parametrize("system", ["cursor-state", "txlog-writer"])
def test_a_stop_that_faults_after_a_step_fault_does_not_hide_the_step(system):
    """Hypothesis stops the candidate in a ``finally``: a stop that faults there raised over the step's
    fault, and the report said "at stop", the faulted step lost (an in-process adapter's stop may fault)."""
    profile = SYSTEMS[system].profiles[-1]
    report = search(system, DiesAt(SYSTEMS[system].references()[f"reference-{profile}"][1], at=5, stop=True))
    assert report.fault.startswith("apply of ")
    assert report.fault_step == len(report.fault_steps) == 5


@pytest.mark.parametrize("system", ["cursor-state", "txlog-writer"])
def test_a_fault_at_configure_is_an_error_before_the_first_step(system):
    profile = SYSTEMS[system].profiles[-1]
    report = search(system, DiesAt(SYSTEMS[system].references()[f"reference-{profile}"][1], start=True))
    assert report.verdict.value == "ERROR"
    assert report.fault_steps == []
    assert report.fault_step is None
    assert report.fault_at.startswith("adapter fault in example 1, before its first step (at start or configure;")
    assert report.examples == 1, "a fault ends the search"


def test_the_terminal_and_html_show_the_steps_and_the_stderr():
    from rich.console import Console

    report = search("txlog-writer", DiesAt(SYSTEMS["txlog-writer"].references()["reference-pulsar-master"][1], at=5))
    console = Console(width=200, record=True)
    console.print(fault_table(report))
    shown = console.export_text()
    assert "at step 5" in shown
    assert "5 ◀" in shown
    assert "adapter: simulated crash" in shown
    page = HtmlReport("faulted")
    section(page, report, "exec:crashes")
    html = page.render()
    assert "at step 5" in html
    assert "adapter: simulated crash" in html
