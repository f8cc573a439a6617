"""The txlog-writer protocol without a process: its schema files, and the shape checks naming step and field."""

from __future__ import annotations

import io
import json

import pytest
from ledgerspec.conformance.adapters._system_process import render
from ledgerspec.conformance.txlog_writer._process import SCHEMA_DIR, result_problem
from ledgerspec.conformance.txlog_writer._schemas import schemas
from ledgerspec.conformance.txlog_writer.process_reference import serve
from ledgerspec.spec.txlog_writer import Add, Metrics

METRICS = {"max_records": 0, "max_size": 0, "max_delay": 1, "large_data": 0, "records": 2, "bytes": 7, "delay": 3}


def test_the_schema_files_are_what_the_spec_types_make():
    made = schemas()
    assert sorted(made) == sorted(p.name for p in SCHEMA_DIR.glob("*.json"))
    for name, schema in made.items():
        assert (SCHEMA_DIR / name).read_text(encoding="utf-8") == render(schema), name


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        ([["write", 0, [1, 2], True, "max_records"], ["done", 1, 0, 2, 0], ["done", 3, 1, None, None]], None),
        ([["failed", 4]], None),
        ("nothing", "results[0]: the step's events are a list, got 'nothing'"),
        ([["flushed", 0]], "results[0][0]: an event is a list starting with write, done or failed, got ['flushed', 0]"),
        ([["failed", 1], ["done", 1, 0]], "results[0][1] (a 'done' event): want ['done', record, entry, batch_size, "),
        ([["write", 0, [1, "2"], True, None]], "results[0][0][2] (a 'write' event): field 'records' must be a list"),
        ([["write", 0, [1], "yes", None]], "results[0][0][3] (a 'write' event): field 'batched' must be true or false"),
        ([["write", 0, [1], True, "timer"]], "results[0][0][4] (a 'write' event): field 'trigger' must be one of"),
        ([["done", 1, -1, None, None]], "results[0][0][2] (a 'done' event): field 'entry' must be an integer >= 0"),
        ([["failed", None]], "results[0][0][1] (a 'failed' event): field 'record' must be an integer >= 0, got None"),
    ],
)
def test_an_events_shape_is_checked_naming_the_event_and_the_field(result, problem):
    found = result_problem(Add(size=1), result, delay=True)
    assert found == problem if problem is None else found.startswith(problem), found


def test_metrics_have_exactly_their_keys_and_a_null_delay_only_without_the_capability():
    assert result_problem(Metrics(), METRICS, delay=True) is None
    assert result_problem(Metrics(), {**METRICS, "delay": None}, delay=False) is None
    assert result_problem(Metrics(), {**METRICS, "delay": None}, delay=True) == (
        "results[0].delay: want an integer >= 0 (null only without capability metrics_delay), got None"
    )
    assert result_problem(Metrics(), {**METRICS, "bytes": 7.5}, delay=True) == (
        "results[0].bytes: want an integer >= 0, got 7.5"
    )
    assert result_problem(Metrics(), {"max_records": 0}, delay=True).startswith(
        "results[0]: metrics have exactly the keys max_records, max_size, max_delay, large_data, records, bytes, delay"
    )
    assert result_problem(Metrics(), [], delay=True) == "results[0]: metrics are an object, got []"


def test_the_reference_process_answers_a_session_line_by_line():
    # max_records 2: the second add flushes both (a count flush); the ledger confirms; then the metrics
    requests = [
        {"cmd": "start", "seq": 1, "version": 1},
        {
            "cmd": "configure",
            "seq": 2,
            "config": {"batch_enabled": True, "max_records": 2, "max_size": 64, "max_delay": 5},
        },
        {"cmd": "apply", "seq": 3, "ops": [{"op": "add", "size": 3}]},
        {"cmd": "apply", "seq": 4, "ops": [{"op": "tick", "by": 2}]},
        {"cmd": "apply", "seq": 5, "ops": [{"op": "add", "size": 4}]},
        {"cmd": "apply", "seq": 6, "ops": [{"op": "complete"}]},
        {"cmd": "apply", "seq": 7, "ops": [{"op": "metrics"}]},
        {"cmd": "apply", "seq": 8, "ops": [{"op": "jump"}]},
        {"cmd": "stop", "seq": 9},
    ]
    out = io.BytesIO()
    serve("pulsar-master", [json.dumps(r).encode() + b"\n" for r in requests], out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["seq"] for r in replies] == list(range(1, 10))
    start = replies[0]["result"]["implementation"]
    assert (start["system"], start["profiles"], start["capabilities"]) == (
        "txlog-writer",
        ["pulsar-master"],
        ["metrics_delay"],
    )
    assert [r["result"]["results"][0] for r in replies[2:7]] == [
        [],
        [],
        [["write", 0, [1, 2], True, "max_records"]],
        [["done", 1, 0, 2, 0], ["done", 2, 0, 2, 1]],
        # 1 batch of 2 records, 3 + 4 bytes, its first record 2 ticks old
        {"max_records": 1, "max_size": 0, "max_delay": 0, "large_data": 0, "records": 2, "bytes": 7, "delay": 2},
    ]
    assert "unknown txlog-writer operation 'jump'" in replies[7]["errored"]["message"]


def test_a_null_delay_is_left_out_of_the_comparison_only_for_a_candidate_that_cannot_measure_it():
    from ledgerspec.spec.txlog_writer import INVARIANTS, Step, WriterConfig, init, step

    model = init("pulsar-master", WriterConfig(max_records=2))
    for op in (Add(size=3), Add(size=4)):
        model, _ = step(model, op)
    after, expected = step(model, Metrics())  # records 2, bytes 7, delay 0, max_records 1
    checks = {inv.id: inv.check for inv in INVARIANTS}
    unmeasured = {**expected, "delay": None}
    for inv in ("TXLOG-MODEL", "TXLOG-METRICS"):
        blind = {"delay_measured": False}  # a process that claims no metrics_delay
        assert checks[inv](Step(model, after, Metrics(), unmeasured, expected, **blind)) is None
        assert checks[inv](Step(model, after, Metrics(), {**unmeasured, "bytes": 6}, expected, **blind)) is not None
        assert checks[inv](Step(model, after, Metrics(), {**expected, "delay": 1}, expected, **blind)) is not None
        # one that measures it (the default, every in-process candidate) gets no excuse for a null
        assert checks[inv](Step(model, after, Metrics(), unmeasured, expected)) is not None


class _DelayBlind:
    """The reference writer, but its metrics carry a null delay (as a process without metrics_delay sends)."""

    def __init__(self) -> None:
        from ledgerspec.conformance.txlog_writer import TxlogAdapter

        self._inner = TxlogAdapter("pulsar-master")

    def start(self, config):
        self._inner.start(config)

    def apply(self, op):
        result = self._inner.apply(op)
        return {**result, "delay": None} if isinstance(op, Metrics) else result

    def stop(self):
        self._inner.stop()


def test_an_in_process_candidate_with_a_null_delay_fails_and_a_pass_without_the_capability_says_so():
    from ledgerspec.conformance.txlog_writer import conform_txlog

    failed = conform_txlog(_DelayBlind, "pulsar-master", settings_name="quick", seed=0)
    assert failed.verdict.value == "FAIL"
    assert failed.violation.invariant in {"TXLOG-MODEL", "TXLOG-METRICS"}
    assert failed.unclaimed == []
    passed = conform_txlog(_DelayBlind, "pulsar-master", settings_name="quick", seed=0, capabilities=frozenset())
    assert passed.verdict.value == "PASS"
    assert passed.unclaimed == ["metrics_delay"]
    assert "not claimed, so not checked: metrics_delay" in passed.render()


def test_the_worked_session_keeps_the_schemas_and_is_what_the_profile_gives():
    from pathlib import Path

    from ledgerspec.conformance.adapters._transport import _validators
    from ledgerspec.spec.txlog_writer import WriterConfig, init, op_from_dict, step

    page = Path(SCHEMA_DIR).parents[1] / "txlog-writer.md"
    lines = [line for line in page.read_text(encoding="utf-8").splitlines() if line[:2] in {"> ", "< "}]
    validators = _validators(SCHEMA_DIR)
    model = None
    for request_line, reply_line in zip(lines[::2], lines[1::2], strict=True):
        request, reply = json.loads(request_line[2:]), json.loads(reply_line[2:])
        for side, message in (("request", request), ("reply", reply)):
            assert not list(validators[request["cmd"], side].iter_errors(message)), (side, message)
        if request["cmd"] == "configure":
            model = init("pulsar-master", WriterConfig.from_dict(request["config"]))
        elif request["cmd"] == "apply":
            model, expected = step(model, op_from_dict(request["ops"][0]))
            if isinstance(expected, dict):
                expected = {**expected, "delay": None}  # the real writer claims no metrics_delay
            assert reply["result"]["results"] == [expected], request
    assert [json.loads(line[2:])["cmd"] for line in lines[::2]][-1] == "stop"


@pytest.mark.parametrize("module", ["txlog_writer", "cursor_state"])
def test_a_reference_process_refuses_apply_before_configure_by_name(module):
    import importlib

    reference = importlib.import_module(f"ledgerspec.conformance.{module}.process_reference")
    requests = [
        {"cmd": "start", "seq": 1, "version": 1},
        {"cmd": "apply", "seq": 2, "ops": [{"op": "close"}]},
        {"cmd": "stop", "seq": 3},
    ]
    out = io.BytesIO()
    profile = {"txlog_writer": "pulsar-master", "cursor_state": "pip381"}[module]
    reference.serve(profile, [json.dumps(r).encode() + b"\n" for r in requests], out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[1]["errored"]["message"] == "ValueError: apply before configure: send configure first"
    assert replies[2] == {"seq": 3, "result": {}}
