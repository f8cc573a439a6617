"""The real ManagedCursorImpl behind the cursor-state protocol gets the verdicts DEVIATIONS.md declares (issue 17).

Each invariant of ``pulsar-master`` is searched alone on ``real-cursor-4.2.4`` and ``real-cursor-4.0.8`` (the
harness is built by Maven on first use) at the pinned settings and seed: the verdict must be the declared
one, and a FAIL's counterexample must be one a documented finding explains (its operations), must fail again on
the real code and must pass on the profile's reference: no violation that no finding explains.
"""

from __future__ import annotations

import shutil

import pytest
from ledgerspec.conformance._lockstep import LockstepRun, replay
from ledgerspec.conformance.cursor_state import CursorStateAdapter
from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE
from ledgerspec.conformance.cursor_state._process import CursorProcessFactory
from ledgerspec.conformance.cursor_state._real import (
    CURSOR_CASES,
    CURSOR_VERDICTS,
    REAL_CURSORS,
    SEED,
    SETTINGS,
    real_cursor_command,
    replay_case,
    search,
    surprise,
)


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"


@pytest.mark.parametrize("verdict", CURSOR_VERDICTS, ids=[f"{v.adapter}-{v.invariant}" for v in CURSOR_VERDICTS])
def test_the_real_cursor_gets_the_declared_verdict(verdict):
    report = search(verdict, settings=SETTINGS, seed=SEED)
    assert surprise(verdict, report) is None
    if report.violation is None:
        return
    found = report.violation
    real = CursorProcessFactory(real_cursor_command(verdict.adapter))
    try:
        again = replay(
            LockstepRun(CURSOR_STATE, real, "pulsar-master", (verdict.invariant,)), found.config, found.steps
        )
    finally:
        real.close()
    assert again is not None
    assert again[0] == verdict.invariant
    reference = LockstepRun(CURSOR_STATE, lambda: CursorStateAdapter("pulsar-master"), "pulsar-master")
    assert replay(reference, found.config, found.steps) is None


@pytest.mark.parametrize("case", CURSOR_CASES, ids=[c.finding for c in CURSOR_CASES])
@pytest.mark.parametrize("adapter", sorted(REAL_CURSORS))
def test_each_pinned_counterexample_breaks_its_invariant_on_both_releases(case, adapter):
    broken = replay_case(case, adapter)
    assert broken is not None
    assert broken[0] == case.invariant
