"""DEVIATIONS.md's "Cursor state (PIP-381)" says what the JUnit cases run, and nothing they do not.

The cases themselves run in tests/slow/test_real_cursor_state.py (Maven); here, without Java: the
generated section is in DEVIATIONS.md verbatim, every case it names exists in the JUnit source, and
every module it runs on is built by the parent pom with its own CursorRecords.
"""

from __future__ import annotations

import re
from pathlib import Path

from ledgerspec.conformance.adapters._harness import SOURCE, pom_properties
from ledgerspec.conformance.cache._real_deviations import real_section
from ledgerspec.conformance.cursor_state._real_section import (
    CONTROLS,
    FINDINGS,
    RELEASES_RUN,
    TEST_CLASS,
    cursor_state_section,
)

ROOT = Path(__file__).resolve().parents[2]
JUNIT = SOURCE / "managed-cursor-common/src/test/java/org/apache/bookkeeper/mledger/impl" / f"{TEST_CLASS}.java"
MODULES = {"4.0.8": "managed-cursor-4.0", "4.2.4": "managed-cursor-4.2"}


def test_the_section_is_in_deviations_md_as_generated():
    section = real_section((ROOT / "DEVIATIONS.md").read_text(encoding="utf-8"))
    assert cursor_state_section() in section


def test_every_named_case_is_a_junit_test_and_every_junit_test_is_named():
    cases = set(re.findall(r"@Test\s+void (\w+)\(", JUNIT.read_text(encoding="utf-8")))
    named = {f.reproduction for f in FINDINGS} | {name for name, _ in CONTROLS}
    assert cases == named


def test_each_release_run_is_a_module_of_the_build_with_its_own_records():
    pom = (SOURCE / "pom.xml").read_text(encoding="utf-8")
    assert set(RELEASES_RUN) == set(MODULES)
    assert {
        pom_properties()["managed-ledger.legacy.version"],
        pom_properties()["managed-ledger.master.version"],
    } == set(RELEASES_RUN)
    for module in MODULES.values():
        assert f"<module>{module}</module>" in pom
        assert (SOURCE / module / "src/test/java/org/apache/bookkeeper/mledger/impl/CursorRecords.java").is_file()
