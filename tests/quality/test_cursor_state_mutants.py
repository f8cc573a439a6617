"""The cursor-state kill matrix: every mutant of the reference cursor is killed, with a short
counterexample that kills it again on replay, and the references pass under the same search."""

from __future__ import annotations

import pytest
from ledgerspec.conformance.cursor_state import CursorStateAdapter, conform_cursor
from ledgerspec.conformance.cursor_state._mutants import CURSOR_MUTANTS, CursorMutant
from ledgerspec.conformance.lockstep._engine import Violation
from ledgerspec.spec.cursor_state import PROFILES, CursorConfig, Step, claimed, init, op_from_dict, step
from ledgerspec.spec.cursor_state._events import reported

SEED = 1


def _replay(case: dict, adapter: CursorStateAdapter) -> str | None:
    """The invariant the case's steps break on this adapter, if any (the same checks, no search)."""
    config = CursorConfig.from_dict(case["config"])
    model = init(case["profile"], config)
    adapter.start(config)
    for data in case["steps"]:
        op = op_from_dict(data)
        before = model
        model, expected = step(before, op)
        result = adapter.apply(op)
        made = reported(adapter)
        for inv in claimed(case["profile"]):
            if inv.check(Step(before, model, op, result, expected, made)) is not None:
                return inv.id
    return None


@pytest.mark.parametrize("mutant", CURSOR_MUTANTS, ids=[m.name for m in CURSOR_MUTANTS])
def test_mutant_is_killed_and_its_counterexample_replays(mutant: CursorMutant) -> None:
    report = conform_cursor(mutant.adapter, mutant.profile, settings_name="ci", seed=SEED)
    assert report.fault is None, report.fault
    assert isinstance(report.violation, Violation), f"{mutant.name} survived ({mutant.description})"
    case = report.case()
    assert case is not None
    assert len(case["steps"]) <= 12, report.render()
    assert _replay(case, mutant.adapter()) == report.violation.invariant
    assert _replay(case, CursorStateAdapter(mutant.profile)) is None


@pytest.mark.parametrize("profile", PROFILES)
def test_reference_passes_with_the_same_search(profile: str) -> None:
    report = conform_cursor(lambda: CursorStateAdapter(profile), profile, settings_name="ci", seed=SEED)
    assert report.verdict == "PASS", report.render()
    assert set(report.checked) == {inv.id for inv in claimed(profile)}


def test_every_profile_has_mutants_and_every_mutant_a_docstring() -> None:
    assert len(CURSOR_MUTANTS) >= 12
    assert {m.profile for m in CURSOR_MUTANTS} == set(PROFILES)
    assert len({m.name for m in CURSOR_MUTANTS}) == len(CURSOR_MUTANTS)
    for mutant in CURSOR_MUTANTS:
        assert mutant.name.startswith(f"{mutant.profile}-")
        assert mutant.description
