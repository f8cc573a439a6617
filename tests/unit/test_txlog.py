"""The txlog-writer system: hand-traced scenarios of both profiles, the entry bytes, each invariant
flagging a broken answer (and not the model's), bad input, and the command line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.reference.txlog_writer import BadEntry, decode, encode
from ledgerspec.spec._errors import ConfigError, OperationError
from ledgerspec.spec.txlog_writer import (
    INVARIANTS,
    Add,
    Close,
    Complete,
    Fail,
    Metrics,
    Step,
    Tick,
    WriterConfig,
    WriterOp,
    init,
    op_from_dict,
    step,
)

CONFIG = WriterConfig(max_records=3, max_size=50, max_delay=5)
# t=0: records 1, 2 (10 bytes each); t=3: record 3 (60 bytes, over max_size) and record 4 (5 bytes);
# t=3..10: the timer; then the ledger completes two entries and fails the next.
SCENARIO = (
    Add(size=10),
    Add(size=10),
    Tick(by=3),
    Add(size=60),
    Add(size=5),
    Tick(by=7),
    Complete(),
    Complete(),
    Fail(),
)


def _run(
    profile: str, ops: tuple[WriterOp, ...], config: WriterConfig = CONFIG, last: Any = None
) -> tuple[list[Any], dict[str, str]]:
    """The model's results, and the messages of every invariant at the last step (answered ``last``)."""
    model, results, found = init(profile, config), [], {}
    for i, op in enumerate(ops):
        before = model
        model, expected = step(before, op)
        result = last if last is not None and i == len(ops) - 1 else expected
        results.append(expected)
        for inv in INVARIANTS:
            message = inv.check(Step(before, model, op, result, expected))
            if message is not None:
                found[inv.id] = message
    return results, found


def test_pulsar_master_writes_a_large_record_alone_after_flushing_the_batch_and_sweeps_on_its_timer() -> None:
    results, found = _run("pulsar-master", SCENARIO)
    assert found == {}
    # record 3 is large: the batch [1, 2] goes first (large_data), then record 3 alone, unbatched
    assert results[3] == [["write", 0, [1, 2], True, "large_data"], ["write", 1, [3], False, None]]
    # the sweep armed at creation fires at t=5: record 4 (added at 3) leaves after 2 ticks
    assert results[5] == [["write", 2, [4], True, "max_delay"]]
    assert results[6] == [["done", 1, 0, 2, 0], ["done", 2, 0, 2, 1]]
    assert results[7] == [["done", 3, 1, None, None]]  # a large record gets a plain position
    assert results[8] == [["failed", 4]]


def test_pip160_ends_a_batch_with_a_large_record_and_flushes_on_the_batchs_own_deadline() -> None:
    results, found = _run("pip160", SCENARIO)
    assert found == {}
    # no large-record rule: record 3 joins the batch, which the count (3) then flushes
    assert results[3] == [["write", 0, [1, 2, 3], True, "max_records"]]
    # record 4 opens a batch at t=3: its deadline is t=8
    assert results[5] == [["write", 1, [4], True, "max_delay"]]
    assert results[6] == [["done", 1, 0, 3, 0], ["done", 2, 0, 3, 1], ["done", 3, 0, 3, 2]]


def test_the_count_trigger_wins_when_both_thresholds_are_reached_and_metrics_sum_the_flushes() -> None:
    ops = (Add(size=10), Tick(by=1), Add(size=15), Tick(by=1), Add(size=30), Metrics())
    results, found = _run("pulsar-master", ops)
    assert found == {}
    assert results[4] == [["write", 0, [1, 2, 3], True, "max_records"]]  # 3 records and 55 bytes: both thresholds
    assert results[5] == {
        "max_records": 1,
        "max_size": 0,
        "max_delay": 0,
        "large_data": 0,
        "records": 3,
        "bytes": 55,
        "delay": 2,
    }


def test_close_fails_what_is_buffered_and_every_later_record_but_lets_written_entries_complete() -> None:
    ops = (Add(size=10), Add(size=10), Add(size=10), Add(size=10), Close(), Add(size=1), Complete())
    results, found = _run("pulsar-master", ops)
    assert found == {}
    assert results[4] == [["failed", 4]]
    assert results[5] == [["failed", 5]]
    assert results[6] == [["done", 1, 0, 3, 0], ["done", 2, 0, 3, 1], ["done", 3, 0, 3, 2]]


def test_batching_off_writes_every_record_alone_and_records_no_metric() -> None:
    for config in (WriterConfig(batch_enabled=False), WriterConfig(max_records=1)):
        results, found = _run("pulsar-master", (Add(size=1), Add(size=100), Tick(by=20), Complete(), Metrics()), config)
        assert found == {}
        assert results[:2] == [[["write", 0, [1], False, None]], [["write", 1, [2], False, None]]]
        assert results[3] == [["done", 1, 0, None, None]]
        assert set(results[4].values()) == {0}


@dataclass(frozen=True)
class Case:
    invariant: str
    ops: tuple[WriterOp, ...]
    broken: Any


CASES = [
    Case("TXLOG-MODEL", (Add(size=1),), [["write", 0, [1], True, "max_records"]]),
    Case(
        "TXLOG-CALLBACK-ONCE",
        (Add(size=10), Add(size=10), Add(size=10), Complete()),
        [["done", 1, 0, 3, 0], ["done", 1, 0, 3, 0]],
    ),
    Case(
        "TXLOG-ORDER",
        (Add(size=10), Add(size=10), Add(size=10), Complete()),
        [["done", 2, 0, 3, 1], ["done", 1, 0, 3, 0], ["done", 3, 0, 3, 2]],
    ),
    Case(
        "TXLOG-BATCH-POSITIONS",
        (Add(size=10), Add(size=10), Add(size=10), Complete()),
        [["done", 1, 0, 3, 1], ["done", 2, 0, 3, 2], ["done", 3, 0, 3, 3]],
    ),
    Case(
        "TXLOG-LIMITS",
        (Add(size=10), Add(size=10), Add(size=10)),
        [["write", 0, [1, 2, 3], True, "max_records"], ["write", 1, [1, 2, 3, 4], True, "max_records"]],
    ),
    Case("TXLOG-FAILURE-FANOUT", (Add(size=10), Add(size=10), Add(size=10), Fail()), [["failed", 1], ["failed", 2]]),
    Case("TXLOG-CLOSE", (Add(size=10), Close()), []),
    Case(
        "TXLOG-METRICS",
        (Add(size=10), Add(size=10), Add(size=10), Metrics()),
        {"max_records": 2, "max_size": 0, "max_delay": 0, "large_data": 0, "records": 3, "bytes": 30, "delay": 0},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.invariant for c in CASES])
def test_invariant_flags_the_broken_answer_and_not_the_models(case: Case) -> None:
    assert _run("pulsar-master", case.ops)[1] == {}
    assert case.invariant in _run("pulsar-master", case.ops, last=case.broken)[1]


def test_delay_flags_a_record_left_waiting_past_max_delay() -> None:
    # a model whose timer never fires: record 1 waits from 0 to 11 (max delay 5)
    model = init("pulsar-master", CONFIG)
    model, _ = step(model, Add(size=1))
    stuck = type(model)(**{**model.__dict__, "timer": None})
    after, result = step(stuck, Tick(by=11))
    [inv] = [i for i in INVARIANTS if i.id == "TXLOG-DELAY"]
    assert "still waits at 11" in (inv.check(Step(stuck, after, Tick(by=11), result, result)) or "")


def test_every_invariant_has_a_case() -> None:
    assert {inv.id for inv in INVARIANTS} == {c.invariant for c in CASES} | {"TXLOG-DELAY"}


def test_entry_bytes_batched_carry_the_prefix_and_round_trip() -> None:
    records = [b"\x08\x01ZZ", b"\x08\x02", b"\x08\x03" + b"Z" * 200]
    data = encode(records, batched=True)
    assert data[:4] == bytes([0x0E, 0x01, 0x00, 0x01])
    assert decode(data) == (True, records)
    assert decode(encode([records[0]], batched=False)) == (False, [records[0]])
    with pytest.raises(BadEntry):
        decode(data[:-5])


@pytest.mark.parametrize(
    "data",
    [
        {"op": "nope"},
        {"op": "add"},
        {"op": "add", "size": -1},
        {"op": "add", "size": 1, "x": 1},
        {"op": "tick", "by": True},
    ],
)
def test_bad_operations_name_the_field(data: dict[str, Any]) -> None:
    with pytest.raises(OperationError):
        op_from_dict(data)


@pytest.mark.parametrize(
    "config", [{"max_records": 0}, {"max_size": -1}, {"max_delay": "1"}, {"batch_enabled": 1}, {"nope": 1}]
)
def test_bad_configs_name_the_field(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        WriterConfig.from_dict(config)


def test_the_command_line_shows_checks_and_runs_mutants(tmp_path, capsys) -> None:
    assert main(["spec", "show", "--system", "txlog-writer", "--json"]) == 0
    assert [i["id"] for i in json.loads(capsys.readouterr().out)["invariants"]] == [i.id for i in INVARIANTS]
    out = tmp_path / "r.json"
    argv = [
        "conform",
        "--system",
        "txlog-writer",
        "--adapter",
        "reference-pulsar-master",
        "--settings",
        "quick",
        "--seed",
        "2",
    ]
    assert main([*argv, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["verdict"] == "PASS"
    argv = [
        "mutants",
        "--system",
        "txlog-writer",
        "--mutant",
        "pulsar-master-index-from-one",
        "--settings",
        "quick",
        "--seed",
        "1",
    ]
    assert main(argv) == 0
    assert main(["conform", "--system", "txlog-writer", "--adapter", "reference-pip430"]) == 2
    assert "txlog-writer adapters are" in capsys.readouterr().err
    # a process that exits at once is an adapter fault (exit 3), never a verdict
    assert main(["conform", "--system", "txlog-writer", "--adapter", "exec:true"]) == 3
