"""``--system`` where a command reads the system from its input: replay, traces check, run (issue 38)."""

from __future__ import annotations

from pathlib import Path

from ledgerspec.conformance.cli import main
from ledgerspec.traces import _main_job

ROOT = Path(__file__).resolve().parents[2]
CURSOR_CASE = ROOT / "conformance" / "cursor_state" / "findings" / "p3-later-chunk-skips-unacknowledged.json"
SAMPLES = ROOT / "traces" / "samples"


def test_replay_refuses_a_case_of_another_system_than_the_one_asked(capsys):
    assert main(["replay", str(CURSOR_CASE), "--adapter", "reference-pip381", "--system", "cache"]) == 2
    assert "is a case of the cursor-state system" in capsys.readouterr().err
    assert main(["replay", str(CURSOR_CASE), "--adapter", "reference-pip381", "--system", "cursor-state"]) == 1


def test_traces_check_gives_a_trace_of_another_system_an_error_naming_both(capsys):
    trace = SAMPLES / "pip430-ok.jsonl"
    assert main(["traces", "check", "--system", "cursor-state", str(trace)]) == 2
    err = capsys.readouterr().err
    assert "not a trace of the cursor-state system (--system): its header names no system, as a cache trace" in err
    assert main(["traces", "check", "--system", "cache", str(trace), "--quiet"]) == 0
    missing = str(trace.with_name("no-such-trace.jsonl"))
    assert main(["traces", "check", "--system", "cursor-state", missing]) == 2
    assert "trace-not-found" in capsys.readouterr().err  # the reader's own error, not a wrong system


def test_run_keeps_the_samples_of_the_system_asked_and_refuses_to_check_nothing(capsys):
    samples = _main_job.sample_expectations(SAMPLES)
    assert _main_job._of_system(samples, "cache") == samples
    assert _main_job._of_system(samples, "txlog-writer") == {}
    assert main(["run", "--system", "txlog-writer", "--skip-real", "--engine", "local"]) == 2
    assert "--system txlog-writer: run has nothing of it to check" in capsys.readouterr().err
