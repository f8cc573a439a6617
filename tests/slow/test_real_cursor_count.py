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

import pytest
from ledgerspec.conformance._case import load_case
from ledgerspec.conformance._replay import replay
from ledgerspec.conformance.adapters import load_adapter
from ledgerspec.conformance.adapters._harness import build

CASES = sorted((Path(__file__).resolve().parents[2] / "conformance" / "cases" / "real").glob("r2-*.json"))
HARNESSES = ("pulsar-entry-cache-manager", "pulsar-managed-ledger")


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
