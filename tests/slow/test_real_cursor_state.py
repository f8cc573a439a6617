"""The real ManagedCursorImpl (managed-ledger 4.0.8 and 4.2.4) to a verdict: its JUnit reproductions run.

They are the cursor-state findings of DEVIATIONS.md ("Cursor state (PIP-381)"), run by
``ledgerspec harness test``; each asserts what the real code does, so a pass means the deviation is
still there and a failure means the release behaves otherwise now.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from ledgerspec.conformance.adapters._harness import build_dir
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.cursor_state._real_section import CONTROLS, FINDINGS

MODULES = ("managed-cursor-4.0", "managed-cursor-4.2")
REPORT = "TEST-org.apache.bookkeeper.mledger.impl.CursorStateRecoveryTest.xml"
CASES = {f.reproduction for f in FINDINGS} | {name for name, _ in CONTROLS}


@pytest.fixture(scope="module")
def ran() -> Path:
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"
    assert main(["harness", "test"]) == 0, "mvn test failed: a reproduction no longer reproduces"
    return build_dir() / "real"


@pytest.mark.parametrize("module", MODULES)
def test_each_release_runs_every_cursor_case_to_a_pass(ran, module):
    suite = ET.parse(ran / module / "target" / "surefire-reports" / REPORT).getroot()
    names = {case.get("name") for case in suite.iter("testcase")}
    assert names == CASES
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "0")
