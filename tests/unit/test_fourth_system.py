"""A fourth system, defined only under tests/ and found through the ``ledgerspec.systems`` entry points.

The bounded FIFO queue (tests/systems/fifo_queue; tests/README.md, "How to add a system") goes through
the real command line in a fresh process, whose only way to know it is importlib.metadata reading
``fifo_queue-0.1.dist-info`` on ``PYTHONPATH``: ``spec show``, ``conform`` (with ``--json`` and
``--html``), ``mutants``, ``replay`` of the saved counterexample, ``smoke``, ``matrix``, ``traces record``
and ``traces check``.
The Spark engine's side is tests/slow/test_fourth_system_spark.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

MUTANT = f"exec:{sys.executable} -m fifo_queue.mutant_process fifo-last-in-first-out"
SYSTEMS_DIR = Path(__file__).resolve().parents[1] / "systems"


@pytest.fixture
def ledgerspec(systems_env):
    """``ledgerspec ARGV...`` in a fresh process that has tests/systems on its PYTHONPATH."""

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ledgerspec.conformance.cli", *argv]
        return subprocess.run(command, capture_output=True, text=True, check=False, env=systems_env)

    return run


def test_the_test_system_is_registered_by_an_entry_point_of_its_own_dist_info():
    from importlib.metadata import entry_points

    (entry,) = [ep for ep in entry_points(group="ledgerspec.systems") if ep.name == "fifo-queue"]
    assert entry.value == "fifo_queue.system:system"
    assert entry.dist is not None
    assert entry.dist.name == "fifo-queue"
    assert (SYSTEMS_DIR / "fifo_queue-0.1.dist-info" / "entry_points.txt").is_file()


def test_spec_show_lists_its_invariants(ledgerspec):
    done = ledgerspec("spec", "show", "--system", "fifo-queue", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["system"] == "fifo-queue"
    assert document["profiles"] == ["fifo"]
    assert [inv["id"] for inv in document["invariants"]] == ["QUEUE-FIFO", "QUEUE-BOUND", "QUEUE-MODEL"]


def test_conform_passes_the_reference_and_names_every_invariant(ledgerspec):
    done = ledgerspec("conform", "--system", "fifo-queue", "--adapter", "reference-fifo", "--seed", "1", "--plain")
    assert done.returncode == 0, done.stdout + done.stderr
    for invariant in ("QUEUE-FIFO", "QUEUE-BOUND", "QUEUE-MODEL"):
        assert f"{invariant}  " in done.stdout
    assert done.stdout.count("PASS") >= 3
    assert "verdict: PASS" in done.stdout


def test_mutants_kills_both_mutants_each_by_the_invariant_it_breaks(ledgerspec):
    done = ledgerspec("mutants", "--system", "fifo-queue", "--seed", "1", "--seeds", "2", "--plain")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split()[0]: line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("fifo-")}
    assert rows == {"fifo-last-in-first-out": ["2/2", "QUEUE-FIFO"], "fifo-one-over-capacity": ["2/2", "QUEUE-BOUND"]}
    assert "2/2 mutants killed under every seed" in done.stdout


def test_a_failing_process_gives_a_counterexample_that_replays(ledgerspec, tmp_path):
    report, page = tmp_path / "r.json", tmp_path / "r.html"
    done = ledgerspec(
        "conform",
        "--system",
        "fifo-queue",
        "--adapter",
        MUTANT,
        "--seed",
        "1",
        "--json",
        str(report),
        "--html",
        str(page),
        "--plain",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    case = json.loads(report.read_text())["counterexample"]
    assert case["system"] == "fifo-queue"
    assert case["invariant"] == "QUEUE-FIFO"
    assert case["steps"][-1] == {"op": "poll"}
    html = page.read_text()
    assert "QUEUE-FIFO" in html
    assert "items (oldest first)" in html  # the story's columns, from the record
    fixed = ledgerspec("replay", str(report), "--adapter", "reference-fifo")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "PASS: every step held (QUEUE-FIFO" in fixed.stdout
    again = ledgerspec("replay", str(report), "--adapter", MUTANT)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "FAIL: QUEUE-FIFO: poll gave" in again.stdout


def test_traces_record_then_check_on_the_local_engine(ledgerspec, tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    done = ledgerspec(
        "traces",
        "record",
        "--system",
        "fifo-queue",
        "--adapter",
        "reference-fifo",
        "--out",
        str(good),
        "--histories",
        "2",
        "--events",
        "40",
    )
    assert done.returncode == 0, done.stderr
    header = json.loads(good.read_text().splitlines()[0])
    assert header["system"] == "fifo-queue"
    checked = ledgerspec("traces", "check", "--engine", "local", str(good), "--plain")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK:" in checked.stdout
    done = ledgerspec(
        "traces",
        "record",
        "--system",
        "fifo-queue",
        "--adapter",
        "mutant:fifo-one-over-capacity",
        "--out",
        str(bad),
        "--events",
        "80",
        "--seed",
        "3",
    )
    assert done.returncode == 0, done.stderr
    checked = ledgerspec("traces", "check", "--engine", "local", str(bad), "--plain")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "QUEUE-BOUND  violation" in checked.stdout


def test_smoke_passes_the_reference_and_faults_on_a_process_that_dies(ledgerspec):
    done = ledgerspec("smoke", "--system", "fifo-queue", "--adapter", "reference-fifo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SMOKE OK: reference-fifo is wired right" in done.stdout
    assert "operations of fifo-queue (" in done.stdout
    dead = f"exec:{sys.executable} -c pass"
    done = ledgerspec("smoke", "--system", "fifo-queue", "--adapter", dead)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_matrix_runs_each_adapter_against_each_profile(ledgerspec, tmp_path):
    out = tmp_path / "m.json"
    done = ledgerspec("matrix", "--system", "fifo-queue", "--settings", "quick", "--plain", "--json", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("reference-fifo")]
    assert row.split() == ["reference-fifo", "PASS"]
    (report,) = json.loads(out.read_text())
    assert (report["adapter"], report["profile"], report["verdict"]) == ("reference-fifo", "fifo", "PASS")
    refused = ledgerspec("matrix", "--system", "fifo-queue", "--html", str(tmp_path / "m.html"))
    assert refused.returncode == 2
    assert "no HTML page yet" in refused.stderr


@pytest.mark.parametrize(
    "command", [("conform", "--adapter", "x"), ("spec", "show"), ("mutants",), ("smoke", "--adapter", "x"), ("matrix",)]
)
def test_an_unknown_system_is_a_usage_error_listing_the_registered_ones(ledgerspec, command):
    done = ledgerspec(*command, "--system", "no-such-system")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "no-such-system" in done.stderr
    for known in ("cache", "cursor-state", "fifo-queue", "txlog-writer"):
        assert known in done.stderr
