"""The txlog-writer system over process protocol v1: the reference process, a lying one, malformed ones."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from ledgerspec.conformance.cli import main

REFERENCE = f"{sys.executable} -m ledgerspec.conformance.txlog_writer.process_reference"


def _conform(adapter: str, *extra: str) -> list[str]:
    return ["conform", "--system", "txlog-writer", "--adapter", f"exec:{adapter}", "--settings", "quick", *extra]


def _patched(tmp_path, body: str) -> str:
    """A process that is the reference with ``handle`` wrapped by ``body`` (which defines ``lying``)."""
    script = tmp_path / "candidate.py"
    script.write_text(
        "from ledgerspec.conformance.txlog_writer import process_reference as p\nhandle = p.handle\n"
        + textwrap.dedent(body)
        + "\np.handle = lying\np.serve('pulsar-master')\n"
    )
    return f"{sys.executable} {script}"


@pytest.mark.parametrize("profile", ["pip160", "pulsar-master"])
def test_the_reference_process_passes_with_every_line_validated(profile, tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = _conform(f"{REFERENCE} --profile {profile}", "--validate-protocol", "--seed", "4", "--json", str(out))
    assert main(argv) == 0, capsys.readouterr()
    report = json.loads(out.read_text())
    assert (report["verdict"], report["profile"], report["fault"]) == ("PASS", profile, None)
    assert set(report["invariants"].values()) <= {"pass", "not claimed"}
    assert "pass" in report["invariants"].values()


def test_a_process_that_loses_a_callback_on_failure_fails_with_a_short_counterexample(tmp_path, capsys):
    liar = _patched(
        tmp_path,
        """
        def lying(adapter, request):
            result = handle(adapter, request)
            if request["cmd"] == "apply" and request["ops"][0]["op"] == "fail":
                events = result["results"][0]
                result["results"][0] = events[1:]  # the first record of a failed entry gets no callback
            return result
        """,
    )
    out = tmp_path / "r.json"
    assert main([*_conform(liar, "--seed", "1"), "--json", str(out)]) == 1, capsys.readouterr()
    case = json.loads(out.read_text())["counterexample"]
    assert case["invariant"] in {"TXLOG-MODEL", "TXLOG-FAILURE-FANOUT"}
    assert case["steps"][-1]["op"] == "fail"
    assert len(case["steps"]) <= 4


def test_a_malformed_event_is_an_adapter_fault_naming_the_step_the_event_and_the_field(tmp_path, capsys):
    broken = _patched(
        tmp_path,
        """
        def lying(adapter, request):
            result = handle(adapter, request)
            if request["cmd"] == "apply":
                for event in result["results"][0] if isinstance(result["results"][0], list) else []:
                    if event[0] == "done":
                        event[2] = "e" + str(event[2])  # the entry as a string
            return result
        """,
    )
    assert main(_conform(broken, "--seed", "1")) == 3
    err = capsys.readouterr().out
    assert "adapter fault: step " in err
    assert "Complete() (seq " in err
    assert "(a 'done' event): field 'entry' must be an integer >= 0, got 'e0'" in err
    assert "Traceback" not in err


def test_a_null_delay_needs_no_capability_but_a_claimed_one_must_be_sent(tmp_path, capsys):
    hidden = _patched(
        tmp_path,
        """
        def lying(adapter, request):
            result = handle(adapter, request)
            if request["cmd"] == "start":
                result["implementation"]["capabilities"] = []
            if request["cmd"] == "apply" and isinstance(result["results"][0], dict):
                result["results"][0]["delay"] = None
            return result
        """,
    )
    out = tmp_path / "r.json"
    assert main([*_conform(hidden, "--seed", "2"), "--validate-protocol", "--json", str(out)]) == 0, capsys.readouterr()
    assert json.loads(out.read_text())["not_claimed"] == ["metrics_delay"]
    assert "not claimed, so not checked: metrics_delay" in capsys.readouterr().out
    claimed = _patched(
        tmp_path,
        """
        def lying(adapter, request):
            result = handle(adapter, request)
            if request["cmd"] == "apply" and isinstance(result["results"][0], dict):
                result["results"][0]["delay"] = None
            return result
        """,
    )
    assert main(_conform(claimed, "--seed", "2")) == 3
    assert "results[0].delay: want an integer >= 0 (null only without capability metrics_delay)" in (
        capsys.readouterr().out
    )


def test_a_cache_process_is_refused_as_another_systems(capsys):
    cache = f"{sys.executable} -m ledgerspec.conformance.cache.adapters.process_reference --profile pulsar-master"
    assert main(_conform(cache)) == 3
    captured = capsys.readouterr()
    assert "not 'txlog-writer'" in captured.err + captured.out
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("argv", "named", "expected"),
    [
        (["smoke", "--adapter", f"exec:{REFERENCE}"], "txlog-writer", "cache"),
        (["conform", "--adapter", f"exec:{REFERENCE}", "--seed", "0"], "txlog-writer", "cache"),
        (_conform(f"{sys.executable} -m ledgerspec.conformance.cursor_state.process_reference"), "cursor-state", None),
    ],
)
def test_a_process_of_another_system_is_refused_naming_both_systems(argv, named, expected, capsys):
    assert main(argv) == 3
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert f"start: the implementation is for system {named!r}, not {expected or 'txlog-writer'!r}" in said
    assert "Traceback" not in said
