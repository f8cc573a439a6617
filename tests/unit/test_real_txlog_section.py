"""DEVIATIONS.md's "Transaction-log writer (PIP-160)" says what the JUnit cases run, and nothing they do not.

The cases run in tests/slow/test_real_txlog_writer.py (Maven); here, without Java: the generated section is
in DEVIATIONS.md verbatim, every case it names is a JUnit test and every JUnit test is named, each finding has
a disagreeing case, the module is built by the parent pom at the pinned release, and the profile's
events the cases assert are the model's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ledgerspec.conformance.adapters._harness import SOURCE, pom_properties
from ledgerspec.conformance.cache._real_deviations import real_section
from ledgerspec.conformance.txlog_writer._real_section import (
    CASES,
    FINDINGS,
    MODULE,
    RELEASES_RUN,
    TEST_CLASS,
    txlog_writer_section,
)
from ledgerspec.spec.txlog_writer import Add, Close, Complete, Fail, Metrics, Tick, WriterConfig, WriterOp, init, step

ROOT = Path(__file__).resolve().parents[2]
CONFIG = WriterConfig(max_records=3, max_size=50, max_delay=5)
"""The configuration of every JUnit case."""
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


def _model_events(ops: tuple[WriterOp, ...], config: WriterConfig = CONFIG) -> list[Any]:
    model, events = init("pulsar-master", config), []
    for op in ops:
        model, result = step(model, op)
        events += result if isinstance(result, list) else [result]
    return events


def test_the_profile_column_is_the_models_answer_for_the_cases_the_spec_can_express():
    # aTimerIsASweep...: the sweep takes record 1 after 1 tick, a count flush does not reset it
    ops = (Tick(by=4), Add(size=1), Tick(by=1), Tick(by=20), *[Add(size=1)] * 4, Tick(by=5), Complete())
    assert _model_events(ops) == [
        ["write", 0, [1], True, "max_delay"],
        ["write", 1, [2, 3, 4], True, "max_records"],
        ["write", 2, [5], True, "max_delay"],
        ["done", 1, 0, 1, 0],
    ]
    # aRecordOfExactlyMaxSizeIsLarge... and theSizeTrigger...
    assert _model_events((Add(size=50), Metrics()))[0] == ["write", 0, [1], False, None]
    assert _model_events((Add(size=30), Add(size=25)))[0] == ["write", 0, [1, 2], True, "max_size"]
    # aFailedWriteFailsEveryRecordInIt...: entry 0 fails, entry 1 completes
    events = _model_events((*[Add(size=10)] * 6, Fail(), Complete()))
    assert events[2:] == [
        ["failed", 1],
        ["failed", 2],
        ["failed", 3],
        ["done", 4, 1, 3, 0],
        ["done", 5, 1, 3, 1],
        ["done", 6, 1, 3, 2],
    ]
    # closeFailsWhatIsBuffered...: no sweep after close; written entries complete
    events = _model_events((*[Add(size=10)] * 4, Close(), Add(size=1), Tick(by=50), Complete(), Close()))
    assert events[1:] == [
        ["failed", 4],
        ["failed", 5],
        ["done", 1, 0, 3, 0],
        ["done", 2, 0, 3, 1],
        ["done", 3, 0, 3, 2],
    ]
