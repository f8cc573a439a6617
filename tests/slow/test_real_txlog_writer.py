"""The real TxnLogBufferedWriter (pulsar-transaction-coordinator 4.2.4) to a verdict: its JUnit cases run.

They are DEVIATIONS.md's "Transaction-log writer (PIP-160)", run by ``ledgerspec harness test``; each asserts
what the real code does, so a pass means every agreement and deviation is still there, and a failure means
the release behaves otherwise now.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from ledgerspec.conformance.adapters._harness import build_dir
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.txlog_writer._real_section import CASES, MODULE, TEST_CLASS

REPORT = f"TEST-org.apache.pulsar.transaction.coordinator.impl.{TEST_CLASS}.xml"


@pytest.fixture(scope="module")
def ran() -> Path:
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"
    assert main(["harness", "test"]) == 0, "mvn test failed: a case no longer shows what it asserts"
    return build_dir() / "real"


def test_the_real_writer_runs_every_case_to_a_pass(ran):
    suite = ET.parse(ran / MODULE / "target" / "surefire-reports" / REPORT).getroot()
    assert {case.get("name") for case in suite.iter("testcase")} == {c.method for c in CASES}
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "0")
