"""The committed conformance cases: valid, linted, in step with the spec, and still reproducing.

Every case under conformance/cases/ is replayed twice: against the reference of its profile, which
must pass it, and against the adapter that broke it (``found_with``), which must still break the
recorded invariant. A case is a permanent, language-neutral regression.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ledgerspec.conformance.cache._case import SCHEMA_PATH, build_schema, expected_observations, load_case
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import installed_adapters, load_adapter
from ledgerspec.spec.cache import OPERATIONS

CASES_DIR = Path(__file__).resolve().parents[2] / "conformance" / "cases"
CASE_FILES = sorted(CASES_DIR.rglob("*.json"))
FINDINGS = [path for path in CASE_FILES if json.loads(path.read_text()).get("found_with")]
FORBIDDEN = re.compile(r"\b(should|test that)\b", re.IGNORECASE)


def test_schema_file_is_generated_from_the_code():
    assert json.loads(SCHEMA_PATH.read_text()) == build_schema()


def test_there_are_committed_cases():
    assert len(CASE_FILES) >= 5


def test_descriptions_are_unique_and_worded_as_facts():
    descriptions = [json.loads(path.read_text())["description"] for path in CASE_FILES]
    assert len(descriptions) == len(set(descriptions))
    for description in descriptions:
        assert not FORBIDDEN.search(description), description


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case_is_valid_and_expected_is_current(path: Path):
    case = load_case(path)
    assert all(op.kind in OPERATIONS for op in case.steps)
    if case.expected is not None:
        assert case.expected == expected_observations(case.profile, case.config, case.steps)


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_reference_of_the_profile_passes(path: Path):
    case = load_case(path)
    outcome = replay(case, load_adapter(f"reference-{case.profile}"), every_invariant=True)
    assert outcome.verdict == "PASS", outcome.render()


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_finding_still_reproduces(path: Path):
    case = load_case(path)
    assert case.found_with in installed_adapters(), "committed findings name an installed adapter"
    outcome = replay(case, load_adapter(case.found_with))
    assert outcome.verdict == "FAIL", outcome.render()
    assert case.invariant in {v.invariant for v in outcome.violations}, outcome.render()
    assert len(outcome.history) == case.failing_step


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"op": "insert", "now": 2, "ledger": 1, "entry": 9, "size": "120"}, "at steps/0/size: '120' is not of type"),
        ({"op": "get", "now": 2, "ledger": 1, "entry": 9, "bogus": 1}, "at steps/0: Additional properties"),
        ({"op": "teleport", "now": 2}, "at steps/0/op: 'teleport' is not an operation; known: append, clear,"),
    ],
)
def test_a_bad_step_is_named_by_its_field_within_its_operation(tmp_path, step, message):
    """The schema offers one branch per operation; a step that fits none was only "not valid under any of
    the given schemas". The error is now its own operation's, naming the field."""
    from ledgerspec.conformance import InputError

    case = json.loads(CASE_FILES[0].read_text())
    path = tmp_path / "case.json"
    path.write_text(json.dumps({**case, "steps": [step]}))
    with pytest.raises(InputError) as raised:
        load_case(path)
    assert message in str(raised.value)
    assert "not valid under any" not in str(raised.value)
