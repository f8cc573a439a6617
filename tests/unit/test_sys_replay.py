"""``ledgerspec replay`` of a lockstep system's counterexample (a ``conform --system S --json`` report).

Before, such a report was refused ("'manifest' is a required property", the cache's case format), so
a fix could not be checked against the steps that showed the bug (found by an outside implementer).
"""

from __future__ import annotations

import json
import sys

import pytest
from ledgerspec.conformance.cli import main

CASE = {
    "system": "txlog-writer",
    "profile": "pip160",
    "invariant": "TXLOG-MODEL",
    "message": "Tick(by=1) gave [['write', 0, [1], True, 'max_delay']]; the profile gives []",
    "config": {"batch_enabled": True, "max_records": 2, "max_size": 16, "max_delay": 2},
    "steps": [{"op": "tick", "by": 1}, {"op": "add", "size": 1}, {"op": "tick", "by": 1}],
}
REPORT = {"system": "txlog-writer", "verdict": "FAIL", "counterexample": CASE}


@pytest.fixture
def report(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(REPORT))
    return str(path)


def test_the_steps_still_break_the_invariant_on_the_candidate_that_showed_it(report, capsys):
    assert main(["replay", report, "--adapter", "mutant:pip160-sweep-instead-of-deadline"]) == 1
    out = capsys.readouterr().out
    assert f"txlog-writer: 3 steps of {report} against mutant:pip160-sweep-instead-of-deadline / pip160" in out
    assert f"FAIL: TXLOG-MODEL: {CASE['message']}" in out


@pytest.mark.parametrize(
    "adapter", ["reference-pip160", f"exec:{sys.executable} -m ledgerspec.conformance.txlog_writer.process_reference"]
)
def test_a_correct_candidate_holds_on_every_step(report, capsys, adapter):
    process = adapter.startswith("exec:")
    argv = ["replay", report, "--adapter", adapter + (" --profile pip160" if process else ""), "--all"]
    assert main(argv) == 0
    assert "PASS: every step held (every claimed invariant; the case said: TXLOG-MODEL)" in capsys.readouterr().out


def test_the_case_alone_replays_too_and_a_bad_step_is_named(tmp_path, capsys):
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE))
    assert main(["replay", str(case), "--adapter", "reference-pip160"]) == 0
    case.write_text(json.dumps({**CASE, "steps": [*CASE["steps"], {"op": "add", "size": "big"}]}))
    assert main(["replay", str(case), "--adapter", "reference-pip160"]) == 2
    assert f"{case}: step 4 ('add'):" in capsys.readouterr().err
    case.write_text(json.dumps(CASE))
    assert main(["replay", str(case), "--adapter", "reference-pip999"]) == 2
    assert "txlog-writer adapters are reference-pip160" in capsys.readouterr().err
