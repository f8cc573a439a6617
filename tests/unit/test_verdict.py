"""One verdict enum for conform, replay, traces, reports and JSON, with the strings the reports always had."""

from __future__ import annotations

import json

import pytest
from ledgerspec.conformance._verdict import CONFORM_EXIT, TRACE_EXIT, Status, Verdict, worst_trace_verdict
from ledgerspec.traces.cache._check import CheckResult


def test_members_are_their_json_strings():
    assert [str(v) for v in Verdict] == ["PASS", "FAIL", "OK", "VIOLATION", "UNKNOWN", "ERROR"]
    assert {str(s) for s in Status} == {
        "pass",
        "fail",
        "error",
        "not claimed",
        "not checkable",
        "not run",
        "ok",
        "violation",
        "unknown",
        "not checkable on traces",
    }
    assert json.dumps({"verdict": Verdict.VIOLATION, "status": Status.NOT_CLAIMED}) == (
        '{"verdict": "VIOLATION", "status": "not claimed"}'
    )
    assert f"{Verdict.PASS:<6}|" == "PASS  |"


def test_exit_codes():
    assert CONFORM_EXIT == {"PASS": 0, "FAIL": 1, "ERROR": 3}
    assert TRACE_EXIT == {"OK": 0, "VIOLATION": 1, "ERROR": 2, "UNKNOWN": 3}


@pytest.mark.parametrize(
    ("verdicts", "worst"),
    [
        ([], "OK"),
        (["OK", "OK"], "OK"),
        (["OK", "UNKNOWN"], "UNKNOWN"),
        (["UNKNOWN", "ERROR"], "ERROR"),
        (["ERROR", "UNKNOWN", "VIOLATION", "OK"], "VIOLATION"),
        (["VIOLATION", "UNKNOWN"], "VIOLATION"),
    ],
)
def test_a_violation_ranks_above_bad_input_and_unknown(verdicts, worst):
    assert worst_trace_verdict(Verdict(v) for v in verdicts) == worst


def test_a_trace_result_reports_with_the_enum():
    result = CheckResult(path="t.jsonl", engine="local", profile="pulsar-master", counts={"CACHE-FIFO": 1})
    report = json.loads(json.dumps(result.to_dict()))
    assert report["verdict"] == "VIOLATION"
    assert report["invariants"]["CACHE-FIFO"] == "violation"
    assert report["invariants"]["CACHE-MODEL"] == "not checkable on traces"
    assert report["invariants"]["CACHE-DUPLICATE-MERGE"] == "not claimed"
    assert CheckResult(path="t", engine="local", profile="pip430", unknown=["cut"]).verdict is Verdict.UNKNOWN
