"""An option a run would accept and then ignore is a usage error naming it (issue 17).

Each case once ran to exit 0, the option silently dropped: a cache workload on a lockstep system's
record, ``simulate --bench`` with the files it never writes or the seeds it never runs, ``--master``
with the local engine.
"""

from __future__ import annotations

import json

import pytest
from ledgerspec.conformance.cli import main

RECORD = ["traces", "record", "--adapter", "reference-pulsar-master"]
SIMULATE = ["simulate", "--profiles", "legacy", "--cache-sizes", "1M", "--steps", "200"]


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *named: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for text in named:
        assert text in err, err
    return err


@pytest.mark.parametrize("system", ["cursor-state", "txlog-writer"])
def test_record_of_a_lockstep_system_refuses_a_cache_workload(tmp_path, capsys, system):
    out = tmp_path / "t.jsonl"
    argv = [*RECORD, "--system", system, "--workload", "mixed", "--out", str(out)]
    refused(capsys, argv, "--workload mixed: the cache's workload generator", f"a {system} trace is a random walk")
    assert not out.exists()


@pytest.mark.parametrize(
    ("option", "value"), [("--config", "{}"), ("--events", "10"), ("--histories", "2"), ("--seed", "3")]
)
def test_record_of_a_case_refuses_what_the_case_fixes(tmp_path, capsys, option, value):
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"config": {}, "steps": [{"op": "persist", "value": 0}]}), encoding="utf-8")
    argv = [*RECORD, "--system", "cursor-state", "--case", str(case), option, value, "--out", str(tmp_path / "t.jsonl")]
    refused(capsys, argv, f"{option} {value}: not with --case")


@pytest.mark.parametrize(("option", "value"), [("--histories", "2"), ("--case", "case.json")])
def test_record_of_the_cache_refuses_the_lockstep_options(tmp_path, capsys, option, value):
    argv = ["traces", "record", "--adapter", "reference-pip430", option, value, "--out", str(tmp_path / "t.jsonl")]
    refused(capsys, argv, f"{option} {value}: lockstep systems only")


@pytest.mark.parametrize(
    ("option", "value"),
    [("--json", "s.json"), ("--html", "s.html"), ("--seeds", "2"), ("--engine", "spark")],
)
def test_simulate_bench_refuses_what_it_does_not_use(tmp_path, capsys, option, value):
    path = str(tmp_path / value) if option in ("--json", "--html") else value
    named = f"error[simulate-option]: {option} {path}: not with --bench"
    refused(capsys, [*SIMULATE, "--bench", option, path], named)
    assert not list(tmp_path.iterdir())


def test_simulate_refuses_master_with_the_local_engine(capsys):
    named = "error[simulate-option]: --master local[1]: only with --engine spark"
    refused(capsys, [*SIMULATE, "--master", "local[1]"], named)
    refused(capsys, [*SIMULATE, "--engine", "local", "--master", "local[1]", "--bench"], named)


def test_traces_check_refuses_master_with_the_local_engine(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    assert main([*RECORD, "--system", "txlog-writer", "--out", str(trace)]) == 0
    capsys.readouterr()
    refused(capsys, ["traces", "check", str(trace), "--master", "spark://x:7077"], "--master spark://x:7077: only with")


def test_the_defaults_still_run(tmp_path, capsys):
    """The refusals look at what was given, not at the defaults."""
    assert main([*SIMULATE, "--bench"]) == 0
    assert main([*SIMULATE, "--seeds", "1", "--quiet", "--json", str(tmp_path / "s.json")]) == 0
    assert main([*RECORD, "--system", "cursor-state", "--events", "20", "--out", str(tmp_path / "c.jsonl")]) == 0
    cache = ["traces", "record", "--adapter", "reference-pip430", "--events", "50"]
    assert main([*cache, "--out", str(tmp_path / "t.jsonl")]) == 0
    capsys.readouterr()


def test_run_refuses_master_with_the_local_engine(capsys):
    named = "error[input-error]: --master local[1]: only with --engine spark"
    refused(capsys, ["run", "--skip-real", "--engine", "local", "--master", "local[1]"], named)


def test_an_unknown_injection_is_an_option_error(tmp_path, capsys):
    argv = ["traces", "generate", "--events", "100", "--inject", "NOSUCH", "--out", str(tmp_path / "t.jsonl")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error[input-error]: --inject NOSUCH: not an invariant the pulsar-master profile checks")
    assert "not a valid ledgerspec trace" not in err  # the hint of a bad trace file, which this is not
