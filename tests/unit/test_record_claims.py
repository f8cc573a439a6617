"""``traces record --system cursor-state`` sends a process adapter only what it claims (issue 17).

The walk draws its operations by the conformance machine's rule (``sendable``, ``codecs`` in
conformance/cursor_state/_machine.py); a case or a config asking for more is refused before the run.
The adapter here is the process reference behind a wrapper that claims fewer capabilities and, like a
strict third-party adapter, errs on any operation it did not claim.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.lockstep._adapters import walk
from ledgerspec.spec.cursor_state import CAPABILITIES, CursorConfig
from ledgerspec.traces.lockstep._check import check_system

WRAPPER = """
import sys
from ledgerspec.conformance.adapters._system_process import answer
from ledgerspec.conformance.adapters._transport import serve_lines
from ledgerspec.conformance.cursor_state._reference_adapter import CursorStateAdapter
from ledgerspec.spec.cursor_state import CursorConfig, op_from_dict

CLAIMS = tuple(c for c in sys.argv[1].split(",") if c != "none")
adapter = CursorStateAdapter("pulsar-master")


def handle(request):
    for op in request.get("ops", []):
        need = op_from_dict(op).capability
        if need is not None and need not in CLAIMS:
            raise ValueError(f"operation {op['op']} needs {need}, which this adapter does not claim")
    zlib = request["cmd"] == "configure" and request["config"].get("compression", "none") != "none"
    if zlib and "zlib" not in CLAIMS:
        raise ValueError("zlib is not claimed")
    return answer(adapter, request, system="cursor-state", capabilities=CLAIMS,
                  read_config=CursorConfig.from_dict, read_op=op_from_dict)


serve_lines(handle, sys.stdin.buffer, sys.stdout.buffer)
"""
UNCLAIMABLE = {"ack_index", "fail_add", "fail_meta", "rollover", "unreadable"}
"""The operation kinds named by a capability (each such operation's kind is its capability's name)."""


def adapter(tmp_path: Path, claims: str) -> str:
    script = tmp_path / "claims_adapter.py"
    script.write_text(WRAPPER, encoding="utf-8")
    return f"exec:{sys.executable} {script} {claims}"


def kinds(path: Path) -> set[str]:
    return {json.loads(line)["kind"] for line in path.read_text(encoding="utf-8").splitlines()[1:]}


def record(tmp_path: Path, adapter_name: str, *extra: str) -> int:
    argv = ["traces", "record", "--system", "cursor-state", "--adapter", adapter_name, "--histories", "2"]
    return main([*argv, "--events", "200", "--out", str(tmp_path / "t.jsonl"), *extra])


@pytest.mark.parametrize("claims", ["none", "ack_index", "fail_add,unreadable"])
def test_a_process_is_sent_only_what_it_claims_and_its_trace_checks_ok(tmp_path, claims):
    assert record(tmp_path, adapter(tmp_path, claims)) == 0
    trace = tmp_path / "t.jsonl"
    claimed = set(claims.split(",")) - {"none"}
    assert kinds(trace) & UNCLAIMABLE <= claimed
    result = check_system(str(trace))
    assert result.violations == []
    # an exec: adapter does not report its writes: that invariant alone is left undecided
    assert set(result.not_decided) == {"CURSOR-WRITES"}
    assert "ok" in {status.value for status in result.statuses().values()}


def test_every_capability_claimed_gets_every_operation_and_the_same_walk(tmp_path):
    config = CursorConfig()
    everything = frozenset(CAPABILITIES)
    for seed in range(3):
        claimed_all = walk("cursor-state", "pip381", config, seed, 200, everything)
        assert walk("cursor-state", "pip381", config, seed, 200) == claimed_all
    drawn = {op.kind for seed in range(2) for op in walk("cursor-state", "pip381", config, seed, 200)}
    assert drawn >= UNCLAIMABLE  # so the test above is not vacuous


def test_a_case_step_or_a_config_the_adapter_does_not_claim_is_refused(tmp_path, capsys):
    name = adapter(tmp_path, "ack_index")
    case = tmp_path / "case.json"
    steps = [{"op": "persist", "value": 0}, {"op": "fail_meta"}]
    case.write_text(json.dumps({"config": {}, "steps": steps}), encoding="utf-8")
    argv = ["traces", "record", "--system", "cursor-state", "--adapter", name, "--out", str(tmp_path / "t.jsonl")]
    assert main([*argv, "--case", str(case)]) == 2
    err = capsys.readouterr().err
    assert f"--case {case}: step 2: fail_meta needs capability 'fail_meta', which {name} does not claim" in err
    assert "(it claims: ack_index)" in err
    assert main([*argv, "--config", '{"compression": "zlib"}']) == 2
    assert "--config: compression 'zlib': the adapter takes only none" in capsys.readouterr().err
    assert not (tmp_path / "t.jsonl").exists()
