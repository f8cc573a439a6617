"""Input past what the suite can check, and adapters that fail their handshake (a new user's report).

Each test reproduces one way the suite answered PASS having checked nothing, blamed ledgerspec ("a bug in
ledgerspec") for an adapter's or a case file's numbers, or left an adapter's process running.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from ledgerspec.conformance import InputError
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.conformance.cli import main

REFERENCE = f"{sys.executable} -m ledgerspec.conformance.cache.adapters.process_reference --profile pulsar-master"


def test_a_search_that_sent_no_operation_is_a_usage_error_not_a_pass():
    # --examples 1: Hypothesis's first example is the empty one; nothing was checked.
    with pytest.raises(InputError, match="nothing was checked: the search sent no operation in 1 example"):
        conform(lambda: ReferenceAdapter("pulsar-master"), examples=1, seed=1)
    assert conform(lambda: ReferenceAdapter("pulsar-master"), examples=3, seed=1).steps > 0


def test_a_run_where_no_invariant_is_checkable_is_a_usage_error_not_a_pass(monkeypatch):
    from ledgerspec.conformance.cache import _engine

    monkeypatch.setattr(_engine, "needs", lambda invariant, profile: frozenset({"telepathy"}))
    with pytest.raises(InputError, match="nothing to check: no invariant of profile pulsar-master is both claimed"):
        conform(lambda: ReferenceAdapter("pulsar-master"), examples=5, seed=1)


def test_the_cli_says_nothing_was_checked_with_exit_2(capsys):
    assert main(["conform", "--adapter", "reference-pulsar-master", "--examples", "1", "--plain"]) == 2
    assert "nothing was checked" in capsys.readouterr().err


def _case(tmp_path: Path, name: str, step: dict) -> Path:
    document = {
        "manifest": {"suite": "ledgerspec-entry-cache", "spec_version": "1", "preset": "minimal"},
        "description": "bounds",
        "profile": "pulsar-master",
        "config": {"max_size": 300, "ttl": 10, "ttl_max": 40, "max_requeue": 2},
        "steps": [step],
    }
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


INSERT = {"op": "insert", "now": 1, "ledger": 1, "entry": 0, "size": 10, "expected_reads": 0}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"size": -10}, "steps[0]: field 'size' of insert: must be >= 1, got -10"),
        ({"size": 0}, "steps[0]: field 'size' of insert: must be >= 1, got 0"),
        ({"entry": -5}, "steps[0]: field 'entry' of insert: must be >= 0, got -5"),
        ({"ledger": -1}, "steps[0]: field 'ledger' of insert: must be >= 0, got -1"),
        ({"expected_reads": -3}, "steps[0]: field 'expected_reads' of insert: must be >= 0, got -3"),
        ({"entry": 2**70}, f"steps[0]: field 'entry' of insert: {2**70} is outside a 64-bit signed integer"),
        ({"size": 2**63}, f"steps[0]: field 'size' of insert: {2**63} is outside a 64-bit signed integer"),
        (
            {"op": "get_range", "first": 5, "last": 2, "size": None},
            "steps[0]: get_range: first 5 is after last 2",
        ),
    ],
)
def test_a_case_step_outside_the_operations_domain_is_bad_input_naming_the_field(tmp_path, capsys, changes, message):
    step = {**INSERT, **changes}
    if step["op"] == "get_range":
        step = {key: step[key] for key in ("op", "now", "ledger", "first", "last")}
    path = _case(tmp_path, "case.json", step)
    assert main(["replay", str(path), "--adapter", "reference-pulsar-master"]) == 2
    assert f"{path}: {message}" in capsys.readouterr().err


def test_the_largest_long_is_still_an_id(tmp_path, capsys):
    path = _case(tmp_path, "case.json", {**INSERT, "ledger": 2**63 - 1, "entry": 2**63 - 1})
    assert main(["replay", str(path), "--adapter", "reference-pulsar-master"]) == 0


def _wrapper(tmp_path: Path, body: str) -> str:
    """An exec: adapter that runs the process reference and rewrites its replies with ``body``."""
    script = tmp_path / "wrap.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, subprocess, sys
            inner = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for line in sys.stdin:
                inner.stdin.write(line); inner.stdin.flush()
                reply = json.loads(inner.stdout.readline())
                request = json.loads(line)
            """
        )
        + textwrap.indent(textwrap.dedent(body), "    ")
        + "    print(json.dumps(reply), flush=True)\n"
    )
    return f"exec:{sys.executable} {script} {REFERENCE}"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("if request['cmd'] == 'apply': reply['result']['delta']['size'] = 10**30\n", "result.delta.size"),
        ("if request['cmd'] == 'apply': reply['result']['results'] = [2**70]\n", "result.results[0]"),
    ],
)
def test_an_integer_past_a_long_in_a_reply_is_an_adapter_fault_naming_its_field(tmp_path, capsys, body, field):
    adapter = _wrapper(tmp_path, body)
    code = main(["conform", "--adapter", adapter, "--seed", "1", "--cases-dir", str(tmp_path), "--plain"])
    out = capsys.readouterr().out
    assert code == 3
    assert f"reply field {field} = " in out
    assert "is outside a 64-bit signed integer" in out


def test_an_integer_past_a_long_from_an_in_process_adapter_is_its_fault(tmp_path):
    class Huge(ReferenceAdapter):
        def observe(self):
            return dataclasses.replace(super().observe(), size=10**30)

    report = conform(lambda: Huge("pulsar-master", name="huge"), settings="quick", seed=1)
    assert report.verdict == "ERROR"
    assert "outside a 64-bit signed integer" in (report.fault or "")


@pytest.mark.parametrize(
    "reply",
    [
        '{"seq": 99, "result": {}}',
        '{"seq": 1, "result": {"version": 2, "implementation": {}}}',
        "not json at all",
    ],
)
def test_a_process_that_fails_its_handshake_does_not_outlive_the_run(tmp_path, capsys, reply):
    pid_file = tmp_path / "pid"
    script = tmp_path / "bad_start.py"
    script.write_text(
        "import os, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "sys.stdin.readline()\n"
        f"print({reply!r}, flush=True)\n"
        "time.sleep(600)\n"
    )
    code = main(["conform", "--adapter", f"exec:{sys.executable} {script}", "--cases-dir", str(tmp_path), "--quiet"])
    assert code == 3
    pid = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    pytest.fail(f"the adapter's process {pid} outlived a failed handshake")
