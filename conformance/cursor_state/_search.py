"""Run the cursor-state machine against a candidate and report PASS or the shrunk counterexample."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import get_state_machine_test
from ledgerspec.conformance._engine import no_local_constants
from ledgerspec.conformance._errors import AdapterFault
from ledgerspec.conformance._presets import get_settings
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cursor_state._machine import (
    CursorCandidate,
    CursorRun,
    CursorViolation,
    make_cursor_machine,
)
from ledgerspec.spec.cursor_state import CAPABILITIES, claimed


@dataclass
class CursorReport:
    """One search's verdict: PASS with what was checked, or FAIL with a replayable counterexample."""

    profile: str
    seed: int
    settings: str
    invariants: list[str]
    examples: int = 0
    steps: int = 0
    violation: CursorViolation | None = None
    fault: str | None = None
    """The candidate faulted (crashed, timed out, broke the protocol): no verdict on the invariants."""
    checked: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        if self.fault is not None:
            return Verdict.ERROR
        return Verdict.FAIL if self.violation is not None else Verdict.PASS

    def case(self) -> dict[str, Any] | None:
        """The counterexample as data: profile, config, steps (replayable with ``replay_cursor``)."""
        if self.violation is None:
            return None
        return {
            "system": "cursor-state",
            "profile": self.profile,
            "invariant": self.violation.invariant,
            "message": self.violation.message,
            "config": self.violation.config.to_dict(),
            "steps": [op.to_dict() for op in self.violation.steps],
        }

    def render(self) -> str:
        lines = [
            (
                f"cursor-state, profile {self.profile}, settings {self.settings}, seed {self.seed}: "
                f"{self.examples} examples, {self.steps} steps"
            ),
        ]
        for inv in self.invariants:
            broken = self.violation is not None and self.violation.invariant == inv
            status = "violated" if broken else ("held" if inv in self.checked else "not checked (no step reached it)")
            lines.append(f"  {inv:<30} {status}")
        if self.fault is not None:
            lines.append(f"adapter fault: {self.fault}")
        if self.violation is not None:
            config = json.dumps(self.violation.config.to_dict())
            lines.append(f"counterexample ({len(self.violation.steps)} steps, config {config}):")
            lines += [f"  {i}. {op.describe()}" for i, op in enumerate(self.violation.steps, 1)]
            lines.append(f"  {self.violation.invariant}: {self.violation.message}")
        lines.append(f"verdict: {self.verdict.value}")
        return "\n".join(lines)


def conform_cursor(
    factory: Callable[[], CursorCandidate],
    profile: str,
    *,
    settings_name: str = "ci",
    seed: int = 0,
    invariants: tuple[str, ...] = (),
    capabilities: frozenset[str] = frozenset(CAPABILITIES),
) -> CursorReport:
    """Search for a sequence of operations on which the candidate breaks one of the profile's invariants."""
    search = get_settings(settings_name)
    run = CursorRun(factory, profile, invariants, capabilities)
    test = get_state_machine_test(
        make_cursor_machine(run),
        settings=settings(
            max_examples=search.examples,
            stateful_step_count=search.steps,
            deadline=None,
            database=None,
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
            phases=(Phase.explicit, Phase.generate, Phase.shrink),
            suppress_health_check=list(HealthCheck),
        ),
    )
    names = [inv.id for inv in claimed(profile) if not invariants or inv.id in invariants]
    report = CursorReport(profile, seed, settings_name, names)
    try:
        with no_local_constants():
            hypothesis_seed(seed)(test)()
    except CursorViolation as found:
        report.violation = found
    except AdapterFault as fault:
        report.fault = str(fault)
    report.examples, report.steps, report.checked = run.examples, run.steps, sorted(run.checked)
    return report
