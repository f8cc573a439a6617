"""R2: managed-ledger 4.2.4 miscounts a cursor group after its tail cursor moves in place (README "R2").

``ActiveManagedCursorContainerImpl.moveNodeToNewPosition`` leaves the shared counters alone when the moved
cursor is the list's tail and stays in its place, so ``getNumberOfCursorsAtSamePositionOrBefore`` (the
expected read count of every backlog read) is one too few or one too many for the cursors of a position.
Two committed cases (conformance/cases/real/r2-*.json, seven steps each) fail on both 4.2.4 harnesses that
drive the real container and pass on the profile's reference; ``ActiveCursorCountTest`` (``ledgerspec harness
test``) shows the same on the class alone.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from ledgerspec.conformance.adapters._harness import build
from ledgerspec.conformance.cache._case import Case, load_case
from ledgerspec.conformance.cache._real import REAL_TARGETS, RealTarget, surprises
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import load_adapter

CASES = sorted((Path(__file__).resolve().parents[2] / "conformance" / "cases" / "real").glob("r2-*.json"))
HARNESSES = ("cache-entry-cache-manager-4.2.4", "cache-managed-ledger-4.2.4")


def test_both_cases_are_committed():
    assert [case.name for case in CASES] == ["r2-tail-moved-back.json", "r2-tail-moved-forward.json"]


@pytest.mark.parametrize("path", CASES, ids=[case.stem for case in CASES])
@pytest.mark.parametrize("harness", HARNESSES)
def test_the_release_miscounts_at_the_last_step(path: Path, harness: str) -> None:
    build()
    case = load_case(path)
    outcome = replay(case, load_adapter(harness), every_invariant=True)
    assert outcome.fault is None, outcome.render()
    assert outcome.verdict == "FAIL", outcome.render()
    assert {v.invariant for v in outcome.violations} == {"CACHE-CURSOR-COUNT", "CACHE-MODEL"}, outcome.render()
    assert len(outcome.history) == len(case.steps), outcome.render()
    right = load_adapter("reference-pulsar-master")
    expected = replay(case, right, every_invariant=True).history[-1].result
    assert abs(outcome.history[-1].result - expected) == 1, outcome.render()


@pytest.mark.parametrize("path", CASES, ids=[case.stem for case in CASES])
def test_the_reference_passes(path: Path) -> None:
    outcome = replay(load_case(path), load_adapter("reference-pulsar-master"), every_invariant=True)
    assert outcome.verdict == "PASS", outcome.render()


def _report(*rows: tuple[str, Case]) -> SimpleNamespace:
    """The part of a conformance report that ``surprises`` reads: its fault and its failed rows."""
    failed = [SimpleNamespace(invariant=invariant, detail="", case=case) for invariant, case in rows]
    return SimpleNamespace(fault=None, failed=lambda: failed)


def test_the_model_difference_r2_also_shows_is_declared_with_it_and_no_other() -> None:
    build()
    case = load_case(CASES[0])
    declaring = next(target for target in REAL_TARGETS if target.adapter == "cache-managed-ledger-4.2.4")
    assert [d.key for d in declaring.deviations] == ["R2"]
    both = _report(("CACHE-MODEL", case), ("CACHE-CURSOR-COUNT", case))
    assert surprises(declaring, both) == []
    assert len(surprises(RealTarget("cache-managed-ledger-4.2.4", "pulsar-master"), both)) == 2
    passing = Case(description="no R2", profile=case.profile, config=case.config, steps=case.steps[:4])
    assert len(surprises(declaring, _report(("CACHE-MODEL", passing)))) == 1
