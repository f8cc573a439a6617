"""The test-only FIFO queue's traces on the Spark engine: the same verdicts as the local engine.

tests/unit/test_fourth_system.py is the local side; here ``traces check --engine spark`` runs through
the real command line on a trace of the reference (OK) and one of a mutant (VIOLATION of QUEUE-BOUND),
both recorded by ``traces record``; the system is known to the command only through the entry point of
tests/systems/fifo_queue-0.1.dist-info on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def _ledgerspec(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ledgerspec.conformance.cli", *argv]
    return subprocess.run(command, capture_output=True, text=True, check=False, env=env)


@pytest.mark.parametrize(
    ("adapter", "status", "verdict"),
    [("reference-fifo", 0, "OK"), ("mutant:fifo-one-over-capacity", 1, "VIOLATION")],
)
def test_spark_gives_the_local_verdict_on_a_recorded_trace(systems_env, tmp_path, adapter, status, verdict):
    trace = tmp_path / "t.jsonl"
    recorded = _ledgerspec(
        systems_env,
        "traces",
        "record",
        "--system",
        "fifo-queue",
        "--adapter",
        adapter,
        "--out",
        str(trace),
        "--histories",
        "2",
        "--events",
        "80",
        "--seed",
        "3",
    )
    assert recorded.returncode == 0, recorded.stderr
    reports = {}
    for engine in ("local", "spark"):
        out = tmp_path / f"{engine}.json"
        master = ("--master", "local[2]") if engine == "spark" else ()
        done = _ledgerspec(
            systems_env, "traces", "check", "--engine", engine, *master, str(trace), "--json", str(out), "--plain"
        )
        assert done.returncode == status, done.stdout + done.stderr
        assert f"{verdict}: " in done.stdout
        assert "Traceback" not in done.stderr
        (reports[engine],) = _results(json.loads(out.read_text()))
    assert reports["local"]["system"] == "fifo-queue"
    same = ("verdict", "events", "brokers", "invariants", "counts", "violations")
    assert {k: reports["local"][k] for k in same} == {k: reports["spark"][k] for k in same}


def _results(document):
    """The per-trace results of a ``traces check --json`` document (a list, or one object)."""
    if isinstance(document, list):
        return document
    return document.get("results", [document])
