"""No verdict without a check, and no fault blamed on the wrong party (issue 16, item 6).

Each test reproduces one way the suite used to say PASS having checked nothing, blame the adapter
for bad input, or crash on bad input, and pins the exit code and the message that names the place.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from ledgerspec.conformance import InputError
from ledgerspec.conformance._engine import conform
from ledgerspec.conformance.adapters.reference import ReferenceAdapter
from ledgerspec.conformance.cli import main

FINDINGS = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "findings"


def without(*capabilities: str):
    """A factory of the pulsar-master reference that does not claim ``capabilities``."""

    def factory() -> ReferenceAdapter:
        adapter = ReferenceAdapter("pulsar-master", name="blind-pulsar-master")
        adapter.info = dataclasses.replace(adapter.info, capabilities=adapter.info.capabilities - set(capabilities))
        return adapter

    return factory


def test_an_invariant_the_profile_does_not_claim_is_a_usage_error(tmp_path, capsys):
    argv = ["conform", "--adapter", "reference-segmented", "--invariant", "CACHE-TTL", "--cases-dir", str(tmp_path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    assert "--invariant CACHE-TTL: profile segmented does not claim it" in captured.err
    assert "Traceback" not in captured.err


def test_an_invariant_the_adapter_cannot_show_is_a_usage_error():
    with pytest.raises(InputError, match=r"--invariant CACHE-FIFO: blind-pulsar-master .* observe_timestamps"):
        conform(without("observe_timestamps"), invariants=["CACHE-FIFO"], examples=5, seed=1)


def test_replaying_a_case_the_adapter_cannot_check_is_a_usage_error(capsys):
    # L2 is a CACHE-FIFO case; the segmented reference shows no timestamps, which its check needs.
    assert main(["replay", str(FINDINGS / "l2-cache-fifo.json"), "--adapter", "reference-segmented"]) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    assert "l2-cache-fifo.json: CACHE-FIFO cannot be checked with reference-segmented" in captured.err
    assert "observe_timestamps" in captured.err


def test_replaying_a_case_whose_profile_does_not_claim_its_invariant_is_a_usage_error(tmp_path, capsys):
    document = json.loads((FINDINGS / "l2-cache-fifo.json").read_text())
    document["profile"] = "segmented"
    case = tmp_path / "odd.json"
    case.write_text(json.dumps(document))
    assert main(["replay", str(case), "--adapter", "reference-segmented"]) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    assert "odd.json: invariant CACHE-FIFO is not claimed by profile segmented" in captured.err


def test_a_case_checkable_in_part_still_checks_its_own_invariant(tmp_path):
    # The legacy reference shows no read counts: with --all, the invariants that need them are listed
    # as not checkable, and the case's own invariant (which needs none) decides the verdict.
    source = FINDINGS / "l2-cache-fifo.json"
    shutil.copy(source, tmp_path / "l2.json")
    assert main(["replay", str(tmp_path / "l2.json"), "--adapter", "reference-legacy", "--all"]) == 1
