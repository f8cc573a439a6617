"""Process protocol v1, runner side: the Python process adapter agrees with in-process, and every
broken fake is reported as its own adapter fault with exit code 3, never as a verdict."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest
from ledgerspec.conformance.cache._bench import round_trips
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.conformance.cli import main

FAKE = Path(__file__).parent / "fakes" / "fake_adapter.py"
PYTHON = shlex.quote(sys.executable)


def process_reference(profile: str) -> str:
    return f"exec:{PYTHON} -m ledgerspec.conformance.cache.adapters.process_reference --profile {profile}"


def statuses(report):
    return [
        (row.invariant, row.status, [op.describe() for op in row.case.steps] if row.case else None)
        for row in report.rows
    ]


@pytest.mark.parametrize(
    ("profile", "checked", "invariants"),
    [
        ("pip430", "pip430", None),
        ("segmented", "segmented", None),
        ("pulsar-master", "pip430", ["CACHE-DUPLICATE-MERGE", "CACHE-EVICTED-FINAL"]),
        ("pulsar-master", "pulsar-master", None),  # evict_bytes, evict_before, remove_range, statistics
        ("legacy", "legacy", None),  # evict_before, remove_range
    ],
)
def test_process_adapter_gives_the_in_process_verdicts(profile, checked, invariants):
    kwargs = {"profile": checked, "settings": "quick", "examples": 40, "seed": 7, "invariants": invariants}
    in_process = conform(load_adapter(f"reference-{profile}"), **kwargs)
    over_pipes = conform(load_adapter(process_reference(profile), validate_protocol=True), **kwargs)
    assert over_pipes.verdict == in_process.verdict
    assert statuses(over_pipes) == statuses(in_process)


@pytest.mark.parametrize(
    ("mode", "fault", "message"),
    [
        ("crash", "AdapterCrashed", "the process closed stdout"),
        ("hang", "AdapterTimeout", "no reply within 2 s"),
        ("malformed", "ProtocolViolation", "reply is not JSON"),
        ("wrong-seq", "ProtocolViolation", "reply seq"),
        ("bad-observation", "ProtocolViolation", "malformed delta"),
        ("lying", "CapabilityLie", "skipped"),
        ("errored", "AdapterErrored", "eviction failed"),
        ("nondeterministic", "Nondeterministic", "the same steps"),
        # Unvalidated too: an unknown key is ignored, but not bytes that are not text or nesting past the parser.
        ("deep-100000-extra", "ProtocolViolation", "reply nests too deeply to parse"),
        ("deep-900-results", "ProtocolViolation", "more characters)"),  # a result nested 900 deep, cut
        ("non-utf8", "ProtocolViolation", "reply is not UTF-8 (byte "),
    ],
)
def test_broken_fake_is_an_adapter_fault(mode, fault, message, capsys, tmp_path):
    adapter = f"exec:{PYTHON} {shlex.quote(str(FAKE))} {mode}"
    status = main(["conform", "--adapter", adapter, "--timeout", "2", "--seed", "1", "--cases-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 3, out
    assert f"ADAPTER FAULT: {fault}" in out
    assert "FAIL " not in out.split("ADAPTER FAULT")[0]  # no invariant reported as failed
    fault_line = next(line for line in out.splitlines() if line.startswith("ADAPTER FAULT: "))
    assert message in fault_line
    assert len(fault_line) < 700, "the offending line is shown cut"
    if mode != "nondeterministic":  # found by replaying steps, not in one request
        assert re.search(r"apply of .* \(seq \d+\): ", fault_line), "the fault names the request and its seq"


def test_a_wrong_delta_is_caught_by_validate_protocol(capsys, tmp_path):
    adapter = f"exec:{PYTHON} {shlex.quote(str(FAKE))} stale-delta"
    args = ["conform", "--adapter", adapter, "--seed", "1", "--settings", "quick", "--cases-dir", str(tmp_path)]
    # Unvalidated, the runner trusts the deltas: the entries they fail to remove look cached.
    assert main(args) == 1
    assert "FAIL " in capsys.readouterr().out
    assert main([*args, "--validate-protocol"]) == 3
    out = capsys.readouterr().out
    assert "ADAPTER FAULT: ProtocolViolation" in out
    assert "differs from a full observe" in out


def test_full_observations_without_deltas_give_the_same_verdicts():
    kwargs = {"profile": "pip430", "settings": "quick", "examples": 40, "seed": 7}
    in_process = conform(load_adapter("reference-pip430"), **kwargs)
    full = conform(load_adapter(process_reference("pip430") + " --full-observations"), **kwargs)
    assert full.verdict == in_process.verdict == "PASS"
    assert statuses(full) == statuses(in_process)


def test_crash_report_carries_stderr_and_the_terminal_a_summary(capsys, tmp_path):
    adapter = f"exec:{PYTHON} {shlex.quote(str(FAKE))} crash"
    report = tmp_path / "report.json"
    main(["conform", "--adapter", adapter, "--seed", "1", "--cases-dir", str(tmp_path), "--json", str(report)])
    out = capsys.readouterr().out
    assert "simulated crash in native code" in json.loads(report.read_text())["fault"]
    saved = [p for p in tmp_path.glob("*.json") if p != report]
    assert len(saved) == 1
    assert "simulated crash in native code" in saved[0].read_text()
    assert "simulated crash in native code" in out, "the terminal shows the adapter's stderr with the fault"


def test_a_huge_adapter_message_is_shown_once_and_cut(capsys, tmp_path):
    adapter = f"exec:{PYTHON} {shlex.quote(str(FAKE))} huge-errored"
    report = tmp_path / "report.json"
    argv = [
        "conform",
        "--adapter",
        adapter,
        "--seed",
        "1",
        "--cases-dir",
        str(tmp_path / "cases"),
        "--json",
        str(report),
    ]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert out.count("OutOfMemoryError") == 1, "the table shows the fault; the fault case does not repeat it"
    assert len(out) < 5_000
    assert "more characters)" in out
    fault = json.loads(report.read_text())["fault"]
    assert fault.startswith("AdapterErrored: apply of ")
    assert 20_000 < len(fault) < 25_000, "the report keeps the first 20,000 characters of each field"


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie (an orphan's zombie waits for a reaper)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    return fields[0] != "Z"


@pytest.mark.parametrize(("mode", "status"), [("grandchild", 3), ("orphan", 0)])
def test_a_timeout_or_the_end_kills_what_the_adapter_started(mode, status, tmp_path, capsys):
    # grandchild: the adapter hangs after starting a process; orphan: it leaves one running at stop.
    pid_file = tmp_path / "grandchild.pid"
    adapter = f"exec:env FAKE_PID_FILE={shlex.quote(str(pid_file))} {PYTHON} {shlex.quote(str(FAKE))} {mode}"
    argv = ["conform", "--adapter", adapter, "--timeout", "2", "--seed", "1", "--cases-dir", str(tmp_path)]
    try:
        assert main([*argv, "--examples", "5"]) == status, capsys.readouterr().out
        grandchild = int(pid_file.read_text())
        deadline = time.monotonic() + 5
        while _running(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(grandchild), "the process the adapter started outlived it"
    finally:
        if pid_file.exists() and _running(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_fault_case_ends_with_the_request_that_faulted(tmp_path, capsys):
    # The fake crashes on its third apply: the case holds three steps, and replaying it by the printed
    # hint (the adapter's command holds quotes and spaces) crashes again.
    fake = tmp_path / "a fake's adapter.py"
    fake.write_text(FAKE.read_text())
    adapter = f"exec:{PYTHON} {shlex.quote(str(fake))} crash"
    assert main(["conform", "--adapter", adapter, "--seed", "1", "--cases-dir", str(tmp_path)]) == 3
    (saved,) = tmp_path.glob("*.json")
    case = json.loads(saved.read_text())
    assert len(case["steps"]) == case["failing_step"] == 3
    hint = next(line for line in capsys.readouterr().out.splitlines() if "replay: " in line)
    argv = shlex.split(hint.split("replay: ", 1)[1])
    assert argv == ["ledgerspec", "replay", str(saved), "--adapter", adapter]
    assert main(argv[1:]) == 3
    assert "AdapterCrashed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("mode", "fault"),
    [
        ("crash-at-configure", "AdapterCrashed"),
        ("hang-at-configure", "AdapterTimeout"),
        ("wrong-seq-at-configure", "ProtocolViolation"),
    ],
)
def test_a_fault_before_the_first_step_saves_a_case_the_printed_command_replays(mode, fault, tmp_path, capsys):
    # The case has no steps (failing_step 0); once it was refused as "steps: [] should be non-empty", exit 2.
    adapter = f"exec:{PYTHON} {shlex.quote(str(FAKE))} {mode}"
    # a timeout well above a loaded machine's Python start-up: the fault must come at configure, not at start
    argv = ["conform", "--adapter", adapter, "--timeout", "5", "--seed", "1", "--cases-dir", str(tmp_path)]
    assert main(argv) == 3
    (saved,) = tmp_path.glob("*.json")
    case = json.loads(saved.read_text())
    assert (case["steps"], case["failing_step"], "invariant" in case) == ([], 0, False)
    out = capsys.readouterr().out
    assert "no steps: the adapter faulted with no step taken (at start or configure, or at stop)" in out
    hint = next(line for line in out.splitlines() if "replay: " in line)
    argv = shlex.split(hint.split("replay: ", 1)[1])
    assert argv[:3] == ["ledgerspec", "replay", str(saved)]
    assert main([*argv[1:], "--timeout", "5"]) == 3
    captured = capsys.readouterr()
    assert f"adapter fault: {fault}: configure (seq 2): " in captured.out
    assert "input-error" not in captured.err
    if mode == "crash-at-configure":
        assert "fake: simulated crash at configure" in captured.out
    assert main(["replay", str(saved), "--adapter", "reference-pip430"]) == 0, "a fixed adapter passes it"


def test_schema_violation_needs_validate_protocol(capsys, tmp_path):
    adapter = f"exec:{PYTHON} {shlex.quote(str(FAKE))} schema"
    assert main(["smoke", "--adapter", adapter]) == 0
    assert main(["smoke", "--adapter", adapter, "--validate-protocol"]) == 3
    assert "breaks the v1 schema" in capsys.readouterr().out


def test_smoke_checks_wiring_not_conformance(capsys):
    # The merged code is not a pip430 cache, but it is wired right.
    assert main(["smoke", "--adapter", process_reference("pulsar-master"), "--validate-protocol"]) == 0
    assert "SMOKE OK" in capsys.readouterr().out
    crash = f"exec:{PYTHON} {shlex.quote(str(FAKE))} crash"
    assert main(["smoke", "--adapter", crash]) == 3


def test_smoke_sends_pip430_a_null_expected_reads_first(capsys):
    # An adapter that parses expected_reads as an int dies on pip430's first null: smoke shows it, naming the insert.
    crash = f"exec:{PYTHON} {shlex.quote(str(FAKE))} null-reads"
    assert main(["smoke", "--adapter", crash, "--profile", "pip430"]) == 3
    out = capsys.readouterr().out
    assert "SMOKE FAILED (python-reference-pip430): apply of Insert(now=3, ledger=1, entry=2, size=5, " in out
    assert "expected_reads=None) (seq 5): the process closed stdout (exit 1)" in out
    assert "fake: int(None): TypeError" in out


def test_unknown_command_is_a_usage_error(capsys):
    assert main(["smoke", "--adapter", "exec:/nonexistent/adapter --x"]) == 2
    assert "cannot start it" in capsys.readouterr().err


@pytest.mark.parametrize("preset", ["minimal", "pulsar-defaults"])
def test_round_trip_bench_times_every_step(preset):
    figures = round_trips(load_adapter(process_reference("pip430")), steps=60, warmup=10, preset=preset)
    assert 0 < figures["median_us"] <= figures["p90_us"] <= figures["p99_us"]
    assert figures["steps_per_second"] > 0
