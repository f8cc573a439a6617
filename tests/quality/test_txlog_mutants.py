"""The txlog-writer kill matrix: every mutant of the reference writer is killed with a short
counterexample, and the references pass under the same search."""

from __future__ import annotations

import pytest
from ledgerspec.conformance.lockstep._engine import Violation
from ledgerspec.conformance.txlog_writer import TxlogAdapter, conform_txlog
from ledgerspec.conformance.txlog_writer._mutants import TXLOG_MUTANTS, TxlogMutant
from ledgerspec.spec.txlog_writer import PROFILES, claimed

SEED = 1


@pytest.mark.parametrize("mutant", TXLOG_MUTANTS, ids=[m.name for m in TXLOG_MUTANTS])
def test_mutant_is_killed_with_a_short_counterexample(mutant: TxlogMutant) -> None:
    report = conform_txlog(mutant.adapter, mutant.profile, settings_name="ci", seed=SEED)
    assert report.fault is None, report.fault
    assert isinstance(report.violation, Violation), f"{mutant.name} survived ({mutant.description})"
    assert len(report.violation.steps) <= 14, report.render()


@pytest.mark.parametrize("profile", PROFILES)
def test_reference_passes_with_the_same_search(profile: str) -> None:
    report = conform_txlog(lambda: TxlogAdapter(profile), profile, settings_name="ci", seed=SEED)
    assert report.verdict == "PASS", report.render()
    assert set(report.checked) == {inv.id for inv in claimed(profile)}


def test_at_least_ten_mutants_over_both_profiles() -> None:
    assert len(TXLOG_MUTANTS) >= 10
    assert {m.profile for m in TXLOG_MUTANTS} == set(PROFILES)
    assert len({m.name for m in TXLOG_MUTANTS}) == len(TXLOG_MUTANTS)
    assert all(m.name.startswith(f"{m.profile}-") and m.description for m in TXLOG_MUTANTS)
