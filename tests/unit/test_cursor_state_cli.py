"""``--system cursor-state``: spec show, conform and mutants, their reports and their usage errors."""

from __future__ import annotations

import json

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.spec.cursor_state import INVARIANTS, claimed


def test_spec_show_lists_the_invariants_of_both_profiles(capsys):
    assert main(["spec", "show", "--system", "cursor-state", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [i["id"] for i in document["invariants"]] == [inv.id for inv in INVARIANTS]
    assert {p for i in document["invariants"] for p in i["profiles"]} == {"pip381", "pulsar-master"}
    assert main(["spec", "show", "--system", "cursor-state", "--profile", "pip381"]) == 0
    text = capsys.readouterr().out
    assert all(inv.id in text for inv in claimed("pip381"))
    assert "CURSOR-NO-ACK-LOSS" not in text


@pytest.mark.parametrize("adapter", ["reference-pip381", "reference-pulsar-master"])
def test_the_references_pass_and_the_report_names_every_invariant(adapter, tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["conform", "--system", "cursor-state", "--adapter", adapter, "--settings", "quick", "--seed", "3"]
    assert main([*args, "--json", str(out)]) == 0
    assert "verdict: PASS" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["verdict"] == "PASS"
    assert report["steps"] > 1000
    assert list(report["invariants"]) == [inv.id for inv in INVARIANTS]  # the whole catalogue, claimed or not
    ids = {inv.id for inv in claimed(report["profile"])}
    assert {name for name, status in report["invariants"].items() if status == "pass"} == ids
    assert {status for name, status in report["invariants"].items() if name not in ids} <= {"not claimed"}


def test_a_mutant_is_killed_with_a_replayable_counterexample(tmp_path, capsys):
    out = tmp_path / "m.json"
    name = "pip381-callback-on-first-chunk"
    args = ["mutants", "--system", "cursor-state", "--mutant", name, "--settings", "quick", "--seed", "1"]
    assert main([*args, "--json", str(out)]) == 0
    assert "1/1 mutants killed under every seed" in capsys.readouterr().out
    [row] = json.loads(out.read_text())["mutants"]
    assert (row["name"], row["profile"], row["killed"], row["seeds"]) == (name, "pip381", 1, 1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["conform", "--system", "cursor-state", "--adapter", "nope"], "cursor-state adapters are"),
        (
            ["conform", "--system", "cursor-state", "--adapter", "nope"],
            "cursor-state-managed-cursor-4.2.4, cursor-state-managed-cursor-4.0.8",
        ),
        (
            ["conform", "--system", "cursor-state", "--adapter", "reference-pip381", "--profile", "pip430"],
            "profiles pip381",
        ),
        (["conform", "--adapter", "reference-pip430", "--profile", "pip381"], "the cache has profiles"),
        (
            [
                "conform",
                "--system",
                "cursor-state",
                "--adapter",
                "reference-pip381",
                "--invariant",
                "CURSOR-NO-ACK-LOSS",
            ],
            "profile pip381 claims",
        ),
        (
            ["conform", "--system", "cursor-state", "--adapter", "reference-pip381", "--json", "/no/such/dir/r.json"],
            "--json",
        ),
        (["mutants", "--system", "cursor-state", "--mutant", "nope"], "unknown mutant"),
        (["spec", "show", "--system", "cursor-state", "--profile", "segmented"], "profiles pip381"),
    ],
)
def test_usage_errors_exit_2_and_name_the_option(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
