"""The command line: output, exit codes, reports, and errors as diagnostics (never a traceback)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from ledgerspec.conformance.cache._engine import needs
from ledgerspec.conformance.cli import main
from ledgerspec.spec.cache import INVARIANTS


def test_spec_show_json_lists_the_catalogue(capsys):
    assert main(["spec", "show", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert len(document["invariants"]) >= 10
    assert {p for i in document["invariants"] for p in i["profiles"]} == set(document["profiles"])
    for invariant in document["invariants"]:
        assert invariant["statement"]
        assert invariant["source"]
        assert invariant["profiles"]


def test_spec_show_and_the_engine_read_each_invariants_declaration(capsys):
    assert main(["spec", "show", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    for shown in document["invariants"]:
        declared = INVARIANTS[shown["id"]]
        assert shown["source"] == declared.citation
        assert shown["checked_on_traces"] == declared.on_traces
        for profile in declared.profiles:
            assert set(shown["needs"][profile]) == declared.needs_for(profile) == needs(declared.id, profile)
            assert set(shown["events"][profile]) == declared.events_for(profile)
    assert needs("CACHE-READ-COUNT", "pip430") == {"observe_copies", "observe_counts"}
    assert needs("CACHE-TTL", "pulsar-master") == {"observe_timestamps"}


def test_spec_show_for_one_profile(capsys):
    assert main(["spec", "show", "--profile", "segmented"]) == 0
    out = capsys.readouterr().out
    assert "CACHE-SEGMENT-RING" in out
    assert "CACHE-TTL" not in out


def test_conform_pass_writes_json_and_junit(tmp_path, capsys):
    status = main(
        [
            "conform",
            "--adapter",
            "reference-segmented",
            "--seed",
            "3",
            "--examples",
            "20",
            "--json",
            str(tmp_path / "r.json"),
            "--junit-xml",
            str(tmp_path / "r.xml"),
            "--cases-dir",
            str(tmp_path / "cases"),
        ]
    )
    assert status == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["verdict"] == "PASS"
    assert {row["status"] for row in report["rows"]} == {"pass", "not claimed"}
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "0"
    assert "PASS: adapter reference-segmented" in capsys.readouterr().out
    assert not (tmp_path / "cases").exists()


def test_conform_fail_saves_replayable_cases(tmp_path, capsys):
    cases = tmp_path / "cases"
    status = main(
        [
            "conform",
            "--adapter",
            "reference-pulsar-master",
            "--profile",
            "pip430",
            "--seed",
            "1",
            "--invariant",
            "CACHE-DUPLICATE-MERGE",
            "--cases-dir",
            str(cases),
            "--junit-xml",
            str(tmp_path / "r.xml"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "CACHE-DUPLICATE-MERGE" in out
    assert "breaks here" in out
    saved = list(cases.glob("*.json"))
    assert len(saved) == 1
    failures = ET.parse(tmp_path / "r.xml").getroot().iter("failure")
    assert any("CACHE-DUPLICATE-MERGE" in (f.text or "") for f in failures)
    assert main(["replay", str(saved[0]), "--adapter", "reference-pulsar-master"]) == 1
    assert main(["replay", str(saved[0]), "--adapter", "reference-pip430"]) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["conform", "--adapter", "no-such-adapter"], "unknown adapter 'no-such-adapter'"),
        (["conform", "--adapter", "no_such_module:factory"], "cannot import module 'no_such_module'"),
        (["conform", "--adapter", "json:JSONDecoder"], "not a CacheAdapter"),
        (["conform", "--adapter", "json:dumps"], "its factory raised TypeError"),
        (["conform", "--adapter", "reference-pip430", "--invariant", "CACHE-NOPE"], "unknown invariant"),
        (["replay", "/nonexistent/case.json", "--adapter", "reference-pip430"], "cannot read the case"),
        # the cache's search options are refused by the lockstep systems, never silently ignored
        *(
            (["conform", "--system", system, "--adapter", "reference-pulsar-master", *given], message)
            for system in ("cursor-state", "txlog-writer")
            for given, message in (
                (["--examples", "3"], f"--examples 3: the {system} system does not take it (cache only: its search"),
                (["--config-preset", "tiny"], "--config-preset tiny: the"),
                (["--preset", "pulsar-defaults"], "--preset pulsar-defaults: the"),
                (["--junit-xml", "r.xml"], "--junit-xml r.xml: the"),
                (["--cases-dir", "cases"], "(cache only: its counterexample is printed, and kept in --json"),
            )
        ),
        # an empty exec: command is the same input error on every system (it once was an IndexError off the cache)
        *(
            (["conform", "--system", system, "--adapter", adapter], "--adapter exec: needs a command")
            for system in ("cache", "cursor-state", "txlog-writer")
            for adapter in ("exec:", "exec:  ")
        ),
    ],
)
def test_bad_input_is_a_diagnostic_with_exit_2(argv, message, capsys):
    assert main(argv) in (2, 3)
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert "internal-error" not in err


def test_bad_case_files_name_the_place(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text('{"description": "x", ')
    assert main(["replay", str(broken), "--adapter", "reference-pip430"]) == 2
    assert "line 1" in capsys.readouterr().err
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps(
            {
                "manifest": {"suite": "ledgerspec-entry-cache", "spec_version": "1"},
                "description": "x",
                "profile": "pip430",
                "config": {},
                "steps": [{"op": "insert", "now": 1, "ledger": 1, "entry": 0}],
            }
        )
    )
    assert main(["replay", str(wrong), "--adapter", "reference-pip430"]) == 2
    assert "steps/0" in capsys.readouterr().err


SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"
RUN = ["run", "--skip-real", "--engine", "local", "--plain"]


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        ('{"verdict": "OK", ', "pip430-ok.expected.json: not JSON: Expecting property name"),
        (None, "pip430-ok.expected.json: missing; each sample trace (pip430-ok.jsonl) needs"),
        ("[]", "pip430-ok.expected.json: must be a JSON object with 'verdict' and 'violations'"),
        ('{"verdict": "OK"}', "pip430-ok.expected.json: field 'violations': expected a list, got None"),
        ('{"verdict": "OK", "violations": [{"seq": 1}]}', "pip430-ok.expected.json: field 'violations/0':"),
    ],
    ids=["not-json", "missing", "not-an-object", "no-violations", "bad-violation"],
)
def test_run_names_a_bad_expected_file_before_part_1(tmp_path, capsys, expected, message):
    samples = tmp_path / "samples"
    samples.mkdir()
    shutil.copy(SAMPLES / "pip430-ok.jsonl", samples)
    if expected is not None:
        (samples / "pip430-ok.expected.json").write_text(expected, encoding="utf-8")
    assert main([*RUN, "--samples", str(samples)]) == 2
    captured = capsys.readouterr()
    assert f"error[input-error]: {samples / 'pip430-ok.expected.json'}" in captured.err
    assert message in captured.err
    assert "internal-error" not in captured.err
    assert "Conformance of the reference adapters" not in captured.out  # refused before part 1 ran


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: None, "no such folder"),
        (lambda path: path.write_text("x"), "not a folder"),
        (lambda path: path.mkdir(), "no sample traces (*.jsonl, *.parquet) in the folder"),
    ],
    ids=["missing", "a-file", "empty"],
)
def test_run_checks_the_samples_folder_before_part_1(tmp_path, capsys, make, message):
    samples = tmp_path / "samples"
    make(samples)
    assert main([*RUN, "--samples", str(samples)]) == 2
    captured = capsys.readouterr()
    assert f"error[input-error]: --samples {samples}: {message}" in captured.err
    assert "Conformance of the reference adapters" not in captured.out


TRACE = str(SAMPLES / "pulsar-master-ok.parquet")
SPARK = ["--engine", "spark", "--master"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["traces", "check", TRACE, *SPARK, "bogus://x"], "--master bogus://x: Spark cannot start on it: not a master"),
        (
            ["traces", "check", TRACE, *SPARK, "spark://127.0.0.1:1"],
            "--master spark://127.0.0.1:1: Spark could not reach",
        ),
        (["run", "--skip-real", *SPARK, "bogus://x", "--plain"], "--master bogus://x: Spark cannot start on it"),
        (["traces", "bench", TRACE, "--master", "bogus://x"], "--master bogus://x: Spark cannot start on it"),
        (["simulate", "--profiles", "legacy", *SPARK, "bogus://x"], "--master bogus://x: Spark cannot start on it"),
    ],
    ids=["check", "check-unreachable", "run", "bench", "simulate"],
)
def test_a_master_spark_cannot_use_is_one_line_naming_it(argv, message, capsys):
    """Once an internal error (PySpark's JAVA_GATEWAY_EXITED), or a Java stack trace after a minute."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error[input-error]: {message}"), captured.err
    assert len(captured.err.splitlines()) == 2  # the error and its hint
    assert "Conformance of the reference adapters" not in captured.out  # run: refused before part 1


def test_the_spark_engine_without_pyspark_is_one_line_naming_the_extra(monkeypatch, capsys):
    """Without the ``spark`` extra (the unit environment has none) a Spark check was "No module named 'pyspark'"."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a))
    assert main(["traces", "check", TRACE, *SPARK, "local[2]"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error[input-error]: the Spark engine needs PySpark, which is not installed: "), err
    assert "pip install 'ledgerspec[spark]'" in err


def test_adapters_lists_the_references(capsys):
    assert main(["adapters"]) == 0
    out = capsys.readouterr().out
    for profile in ("pip430", "pulsar-master", "legacy", "segmented"):
        assert f"reference-{profile}" in out


def test_adapters_lists_every_systems_adapters_under_the_system_they_are_for(capsys):
    from ledgerspec.conformance.systems import SYSTEMS, names

    assert main(["adapters"]) == 0
    out = capsys.readouterr().out
    sections = dict(section.split("\n", 1) for section in out.strip().split("\n\n"))
    assert list(sections) == [
        "system cache (the default; --system cache):",
        *(f"system {name} (--system {name}):" for name in names()[1:]),
    ]
    listed = {header.split()[1]: body for header, body in sections.items()}
    assert "reference-pip430: python" in listed["cache"]
    assert "txlog-writer-buffered-writer-4.2.4" not in listed["cache"]
    for name in names()[1:]:
        system, body = SYSTEMS[name], listed[name]
        for adapter, (profile, _) in system.references().items():
            assert f"  {adapter}: python reference, profile {profile}" in body
        assert f"capabilities: {', '.join(system.capabilities)}" in body
        assert f"exec:COMMAND: any language over process protocol v1 ({system.protocol_page}" in body
    assert "  reference-pip381: python reference, profile pip381" in listed["cursor-state"]
    assert "capabilities: metrics_delay" in listed["txlog-writer"]
    assert (
        "  txlog-writer-buffered-writer-4.2.4: java harness of org.apache.pulsar:pulsar-transaction-coordinator:"
        in listed["txlog-writer"]
    )


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["conform"])
    assert raised.value.code == 2
    assert "--adapter" in capsys.readouterr().err


def test_a_harness_renamed_in_issue_38_is_still_taken_by_its_old_name_with_a_note(capsys):
    from ledgerspec.conformance._names import RENAMED_ADAPTERS, adapter_name
    from ledgerspec.conformance.adapters._harness import HARNESSES, SYSTEM_HARNESSES
    from ledgerspec.conformance.cli._main import build_parser

    assert set(RENAMED_ADAPTERS.values()) == set(HARNESSES) | set(SYSTEM_HARNESSES)
    assert adapter_name("pulsar-range-cache") == "cache-range-cache-4.2.4"
    assert "now cache-range-cache-4.2.4" in capsys.readouterr().err
    assert adapter_name("reference-pip430") == "reference-pip430"
    assert capsys.readouterr().err == ""
    parsed = build_parser(None).parse_args(["replay", "case.json", "--adapter", "real-txlog-4.2.4"])
    assert parsed.adapter == "txlog-writer-buffered-writer-4.2.4"
