"""DEVIATIONS.md's "Transaction-log writer (PIP-160)" says what the JUnit cases run, and nothing they do not.

The cases run in tests/slow/test_real_txlog_writer.py (Maven); here, without Java: the generated section is
in DEVIATIONS.md verbatim, every case it names is a JUnit test and every JUnit test is named, each finding has
a disagreeing case, and the module is built by the parent pom at the pinned release.
"""

from __future__ import annotations

import re
from pathlib import Path

from ledgerspec.conformance._real_txlog import CASES, FINDINGS, MODULE, RELEASES_RUN, TEST_CLASS, txlog_writer_section
from ledgerspec.conformance.adapters._harness import SOURCE, pom_properties
from ledgerspec.conformance.cli._real_deviations import real_section

ROOT = Path(__file__).resolve().parents[2]
JUNIT = SOURCE / MODULE / "src/test/java/org/apache/pulsar/transaction/coordinator/impl" / f"{TEST_CLASS}.java"


def test_the_section_is_in_deviations_md_as_generated():
    section = real_section((ROOT / "DEVIATIONS.md").read_text(encoding="utf-8"))
    assert txlog_writer_section() in section


def test_every_named_case_is_a_junit_test_and_every_junit_test_is_named():
    cases = set(re.findall(r"@Test\s+void (\w+)\(", JUNIT.read_text(encoding="utf-8")))
    assert cases == {c.method for c in CASES}
    assert len(CASES) == len(cases)


def test_each_finding_is_a_case_that_disagrees_and_only_those_disagree():
    assert {f.reproduction for f in FINDINGS} == {c.method for c in CASES if not c.agrees}


def test_the_release_run_is_a_module_of_the_build():
    assert f"<module>{MODULE}</module>" in (SOURCE / "pom.xml").read_text(encoding="utf-8")
    assert (pom_properties()["transaction-coordinator.version"],) == RELEASES_RUN
