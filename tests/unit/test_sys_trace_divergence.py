"""A lockstep history is judged up to its first violating operation, as conform stops at its first failing step.

After it the model's state is not the candidate's: judged on, a writer whose timer alone was wrong
showed callbacks "completed twice", failures not fanned out and a bad close (found by an outside
implementation written from the docs). ``traces/lockstep/_replay.py``; FORMAT.md, "Checks".
"""

from __future__ import annotations

import json

from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cli import main
from ledgerspec.traces.lockstep._check import check_system


def test_the_rest_of_a_history_after_its_first_violation_is_not_judged(tmp_path):
    out = tmp_path / "t.jsonl"
    mutant = "mutant:pulsar-master-timer-not-rearmed"
    argv = ["traces", "record", "--system", "txlog-writer", "--adapter", mutant, "--events", "300", "--out", str(out)]
    assert main([*argv, "--histories", "2"]) == 0
    result = check_system(str(out))
    assert result.verdict == Verdict.VIOLATION
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    for broker in {v.broker for v in result.violations}:
        first = {v.row for v in result.violations if v.broker == broker}
        assert len(first) == 1, (broker, first)  # every violation of the history is at its first violating step
        (row,) = first
        assert any(r["row"] > row for r in (dict(r, row=i) for i, r in enumerate(rows)) if r["broker"] == broker)
        line = f"history {broker!r} is not judged after row {row}, whose operation broke an invariant: "
        assert line + "the model's state is no longer the candidate's there" in result.unknown
    # before: also TXLOG-METRICS 39, -BATCH-POSITIONS 24, -FAILURE-FANOUT 12, -CLOSE 1, -CALLBACK-ONCE 1
    assert result.counts == {"TXLOG-MODEL": 2}  # one in each history
