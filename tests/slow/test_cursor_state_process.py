"""The cursor-state system over process protocol v1: the reference process, a lying one, wrong systems."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap

import pytest
from ledgerspec.conformance.adapters._system_process import render
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.cursor_state._process import SCHEMA_DIR, _result_problem
from ledgerspec.conformance.cursor_state._schemas import schemas
from ledgerspec.spec.cursor_state import Confirm

REFERENCE = f"{sys.executable} -m ledgerspec.conformance.cursor_state.process_reference"


def _conform(adapter: str, *extra: str) -> list[str]:
    return ["conform", "--system", "cursor-state", "--adapter", f"exec:{adapter}", "--settings", "quick", *extra]


@pytest.mark.parametrize("profile", ["pip381", "pulsar-master"])
def test_the_reference_process_passes_with_every_line_validated(profile, tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = _conform(f"{REFERENCE} --profile {profile}", "--validate-protocol", "--seed", "4", "--json", str(out))
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert (report["verdict"], report["profile"], report["fault"]) == ("PASS", profile, None)
    # protocol v1 carries no writes: CURSOR-WRITES is not checked, and the report says why
    assert report["not_reported"] == ["CURSOR-WRITES"]
    assert report["invariants"]["CURSOR-WRITES"] == "not checkable"
    assert "  CURSOR-WRITES                NOT CHECKABLE  adapter lacks writes" in capsys.readouterr().out


def _liar(tmp_path, change: str) -> str:
    """The reference process, with ``change`` applied to each recovered state (``recovered``) it answers."""
    liar = tmp_path / "liar.py"
    liar.write_text(
        textwrap.dedent(
            """
            from ledgerspec.conformance.cursor_state import process_reference as p
            handle = p.handle
            def lying(adapter, request):
                result = handle(adapter, request)
                recovered = result["results"][0] if request["cmd"] == "apply" else None
                if isinstance(recovered, dict):
                    CHANGE
                return result
            p.handle = lying
            p.serve("pulsar-master")
            """
        ).replace("CHANGE", change)
    )
    return f"{sys.executable} {liar}"


def test_a_process_that_forgets_an_acknowledgement_fails_with_a_short_counterexample(tmp_path, capsys):
    out = tmp_path / "r.json"
    liar = _liar(tmp_path, 'recovered["acked"] = recovered["acked"][1:]')
    assert main([*_conform(liar, "--seed", "1"), "--json", str(out)]) == 1
    case = json.loads(out.read_text())["counterexample"]
    assert case["invariant"] in {"CURSOR-MODEL", "CURSOR-NO-ACK-LOSS", "CURSOR-RECOVER-ACKNOWLEDGED"}
    assert case["steps"][-1]["op"] == "recover"
    assert len(case["steps"]) <= 8
    hint = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("replay: "))
    assert main(shlex.split(hint.removeprefix("replay: "))[1:]) == 1  # the printed command replays the case
    assert f"FAIL: {case['invariant']}: " in capsys.readouterr().out
    assert main(["replay", str(out), "--adapter", "reference-pulsar-master"]) == 0


def test_a_process_recovering_a_boolean_where_an_integer_belongs_is_a_protocol_fault(tmp_path, capsys):
    """``[true, 3]`` equals ``[1, 3]`` in Python: the state's shape is checked, not only its keys."""
    liar = _liar(
        tmp_path,
        'recovered["mark_delete"][0] = {1: True}.get(recovered["mark_delete"][0], recovered["mark_delete"][0])',
    )
    assert main([*_conform(liar, "--seed", "1")]) == 3
    out = capsys.readouterr().out
    assert "recover: a result of the wrong shape: result.mark_delete[0]: want an integer, got true" in out


def test_a_callbacks_persist_number_is_an_integer_not_a_boolean():
    """``[true, true]`` for persist 1's callback passed conformance (found by a review)."""
    assert _result_problem(Confirm(), [[1, True]]) is None
    assert _result_problem(Confirm(), [[True, True]]) == "confirm: a result of the wrong shape: [[True, True]]"


def test_a_cache_process_is_refused_as_another_systems(capsys):
    cache = f"{sys.executable} -m ledgerspec.conformance.cache.adapters.process_reference --profile pulsar-master"
    assert main(_conform(cache)) == 3
    err = capsys.readouterr().err
    assert "not 'cursor-state'" in err
    assert "Traceback" not in err


def test_the_schema_files_are_what_the_spec_types_make():
    made = schemas()
    assert sorted(made) == sorted(p.name for p in SCHEMA_DIR.glob("*.json"))
    for name, schema in made.items():
        assert (SCHEMA_DIR / name).read_text(encoding="utf-8") == render(schema), name
