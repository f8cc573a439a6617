"""A fault at the final ``stop`` is an adapter fault (exit 3) naming ``stop``, never a PASS, on every system.

The search passes (the reference answers every other request); only the last request of the run goes
wrong: an ``errored`` reply, a reply that is not JSON, no reply (a hang), or exit status 3 after it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from ledgerspec.conformance.cli import main

FAKE = Path(__file__).parent / "fakes" / "stop_fault.py"
MODES = [("errored", "errored"), ("garbage", "not JSON"), ("hang", "no reply within 5 s"), ("exit-3", "status 3")]
CACHE = (["--examples", "3"], "cache.adapters", "pip430")
CURSOR = (["--system", "cursor-state"], "cursor_state", "pip381")
TXLOG = (["--system", "txlog-writer"], "txlog_writer", "pulsar-master")
CASES = [
    *((*CACHE, *mode) for mode in MODES),  # every way a stop goes wrong, on the cache's transport
    *((*system, *mode) for system in (CURSOR, TXLOG) for mode in (MODES[0], MODES[3])),  # theirs shares close()
]


def adapter(package: str, profile: str, mode: str) -> str:
    return f"exec:{sys.executable} {FAKE} {package} {profile} {mode}"


@pytest.mark.parametrize(("options", "package", "profile", "mode", "says"), CASES)
def test_conform_ends_in_an_adapter_fault_naming_stop(tmp_path, capsys, options, package, profile, mode, says):
    report = tmp_path / "r.json"
    argv = ["conform", *options, "--adapter", adapter(package, profile, mode), "--timeout", "5", "--seed", "1"]
    cases = ["--cases-dir", str(tmp_path)] if package == "cache.adapters" else []
    status = main([*argv, *cases, "--json", str(report)])
    out = capsys.readouterr().out
    assert status == 3, out
    assert "stop (seq " in out, out
    assert says in out, out
    assert json.loads(report.read_text())["verdict"] == "ERROR"


@pytest.mark.parametrize(("mode", "says"), MODES)
def test_smoke_fails_on_a_fault_at_stop(capsys, mode, says):
    status = main(["smoke", "--adapter", adapter("cache.adapters", "pip430", mode), "--timeout", "5"])
    out = capsys.readouterr().out
    assert status == 3, out
    assert "SMOKE FAILED" in out
    assert "stop (seq " in out, out
    assert says in out, out
