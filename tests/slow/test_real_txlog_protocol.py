"""The real TxnLogBufferedWriter (pulsar-transaction-coordinator 4.2.4) over the txlog-writer protocol, to a verdict.

``txlog-writer-buffered-writer-4.2.4`` is built with the other harnesses (Maven; a cold ~/.m2 fetches only
pulsar-transaction-coordinator, Mockito and what they need) and judged against ``pulsar-master`` at the
seed DEVIATIONS.md states: the verdict, examples and steps must be the declared ones. Against ``pip160`` it
must fail, with a short counterexample: the harness can report what the real code does wrong, so its pass
is not vacuous.
"""

from __future__ import annotations

import json
import shutil

import pytest
from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES, build, pom_properties
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.txlog_writer._real import run_real, surprises
from ledgerspec.conformance.txlog_writer._real_section import ADAPTER, PROFILE, PROTOCOL_VERDICT


@pytest.fixture(scope="module")
def built():
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"
    return build()


def test_the_real_writer_gets_the_verdict_deviations_md_declares(built):
    v = PROTOCOL_VERDICT
    report = run_real(settings=v.settings, seed=v.seed)
    assert surprises(report) == []
    assert (report.verdict.value, report.examples, report.steps) == (v.verdict, v.examples, v.steps)
    assert report.checked == sorted(report.invariants), "every invariant of the profile was reached"


def test_the_harness_names_the_release_it_drives_and_every_line_keeps_the_schema(built, tmp_path, capsys):
    system, harness = SYSTEM_HARNESSES[ADAPTER]
    assert (system, harness.profile, harness.version) == ("txlog-writer", PROFILE, "4.2.4")
    assert harness.version == pom_properties()["transaction-coordinator.version"]
    out = tmp_path / "r.json"
    argv = ["conform", "--system", system, "--adapter", ADAPTER, "--settings", "quick", "--seed", "3"]
    assert main([*argv, "--validate-protocol", "--json", str(out)]) == 0, capsys.readouterr().out
    assert json.loads(out.read_text())["verdict"] == "PASS"


def test_against_the_pip160_text_the_real_writer_fails_with_a_short_counterexample(built, tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["conform", "--system", "txlog-writer", "--adapter", ADAPTER, "--profile", "pip160"]
    assert main([*argv, "--settings", "quick", "--seed", "0", "--json", str(out)]) == 1, capsys.readouterr().out
    case = json.loads(out.read_text())["counterexample"]
    assert case["invariant"] == "TXLOG-MODEL"
    assert len(case["steps"]) <= 3


def test_a_request_the_harness_cannot_act_on_is_an_errored_reply_with_its_java_stack_trace(built):
    from ledgerspec.conformance.adapters._transport import AdapterErrored
    from ledgerspec.conformance.txlog_writer._process import TxlogProcess

    _, harness = SYSTEM_HARNESSES[ADAPTER]
    process = TxlogProcess(harness.command(), timeout=30, validate=False, restart="crash")
    try:
        # the Java start reply spells its name and release out: they must be the pom's, not a stale copy
        assert (process.info.name, process.info.version) == (ADAPTER, harness.version)
        assert (process.info.profiles, process.info.capabilities) == ((PROFILE,), frozenset())
        config = {"batch_enabled": True, "max_records": 3, "max_size": 50, "max_delay": 5}
        process.request("configure", config=config)
        with pytest.raises(AdapterErrored) as raised:
            process.request("apply", ops=[{"op": "add", "size": 0}])
        assert "size: want an integer > 0, got 0" in str(raised.value)
        assert "at org.apache.pulsar.transaction.coordinator.impl.TxlogWriterHarness" in str(raised.value)
        # the loop goes on: the next request is served
        assert process.request("apply", ops=[{"op": "add", "size": 60}]) == {
            "results": [[["write", 0, [1], False, None]]]
        }
    finally:
        process.close()
