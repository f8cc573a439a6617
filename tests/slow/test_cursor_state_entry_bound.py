"""Entry ids past what Pulsar's cursor bitset holds are bad input; the largest it holds is checked quickly.

``OpenLongPairRangeSet`` (pulsar-common v4.2.4 and v4.0.8) casts an entry id to ``int`` for its
``RoaringBitSet``: 2^31 - 2 is the last id it acknowledges (``ops.MAX_ENTRY``). The long-array encoder once
allocated ``max(id) // 64 + 1`` words, so a trace row with an id near 2^63 exhausted memory, and one at
2^31 - 2 (2^25 words, a 64 MB entry) took minutes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.spec._errors import OperationError
from ledgerspec.spec.cursor_state import op_from_dict
from ledgerspec.spec.cursor_state._ops import MAX_ENTRY

pytestmark = pytest.mark.slow  # Spark: the spark tox environment

HEADER = {
    "format": "ledgerspec-trace",
    "version": 1,
    "system": "cursor-state",
    "profile": "pulsar-master",
    "config": {"chunk_size": 48, "max_entry_size": 160, "max_ranges": 6, "long_array": True},
    "events": [
        *("ack", "ack_index", "mark_delete", "persist", "rollover", "write_ack", "write_failed", "meta_fail"),
        *("crash", "unreadable", "recover", "callback", "recovered", "chunk_write", "footer", "meta_update"),
    ],
}
EMPTY = json.dumps({"mark_delete": [1, -1], "acked": [], "batch": [], "properties": {}})
ENTRY_BYTES = 67108892
"""The first write of an ack at 2^31 - 2 and one at 3: 2^25 long-array words, mostly zero (2 bytes each)."""


def trace(tmp_path: Path, entry: int) -> Path:
    """Two acks, two persists whose 64 MB adds BookKeeper refuses, a crash and an empty recovery."""
    rows = [
        {"kind": "ack", "ledger": 1, "entry": entry},
        {"kind": "ack", "ledger": 1, "entry": 3},
        {"kind": "persist", "value": 1, "number": 1},
        {"kind": "chunk_write", "ledger": 100, "entry": 0, "bytes": ENTRY_BYTES},
        {"kind": "write_ack"},
        {"kind": "callback", "number": 1, "error": "failed"},
        {"kind": "write_ack"},
        {"kind": "persist", "value": 2, "number": 2},
        {"kind": "chunk_write", "ledger": 101, "entry": 0, "bytes": ENTRY_BYTES},
        {"kind": "write_ack"},
        {"kind": "callback", "number": 2, "error": "failed"},
        {"kind": "crash", "keep": 0},
        {"kind": "recover"},
        {"kind": "recovered", "data": EMPTY},
    ]
    path = tmp_path / "t.jsonl"
    events = [{"broker": "h0", "seq": seq, "time": seq, **row} for seq, row in enumerate(rows)]
    path.write_text("".join(json.dumps(row) + "\n" for row in [HEADER, *events]))
    return path


@pytest.mark.parametrize(("engine", "entry"), [("local", MAX_ENTRY + 1), ("local", 2**62), ("spark", 2**62)])
def test_an_entry_id_past_the_bitset_is_bad_input_naming_row_and_field(tmp_path, capsys, engine, entry):
    """Before the bound the acks passed (nothing encoded them); a persist after them exhausted memory."""
    path = trace(tmp_path, entry)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")  # the ack alone: the old code answered OK at once
    assert main(["traces", "check", "--engine", engine, str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{path}: row 0: field 'entry': {entry} is past {MAX_ENTRY} (Integer.MAX_VALUE - 1)" in err
    assert "OpenLongPairRangeSet.addOpenClosed" in err


@pytest.mark.parametrize("kind", ["ack", "mark_delete", "ack_index"])
def test_each_operation_naming_an_entry_refuses_one_past_the_bound(kind):
    fields = {"ledger": 1, "entry": MAX_ENTRY, **({"index": 0} if kind == "ack_index" else {})}
    assert op_from_dict({"op": kind, **fields}).entry == MAX_ENTRY  # type: ignore[attr-defined]
    with pytest.raises(OperationError, match=f"field 'entry': {MAX_ENTRY + 1} is past {MAX_ENTRY}"):
        op_from_dict({"op": kind, **fields, "entry": MAX_ENTRY + 1})


def test_a_case_step_past_the_bound_names_the_step_and_field(tmp_path, capsys):
    case = tmp_path / "case.json"
    steps = [{"op": "persist", "value": 1}, {"op": "mark_delete", "ledger": 1, "entry": 2**63 - 1}]
    case.write_text(json.dumps({"system": "cursor-state", "steps": steps}))
    argv = ["traces", "record", "--system", "cursor-state", "--adapter", "reference-pulsar-master"]
    assert main([*argv, "--case", str(case), "--out", str(tmp_path / "t.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"--case {case}: step 2 ('mark_delete'): field 'entry': {2**63 - 1} is past {MAX_ENTRY}" in err


def test_the_largest_entry_id_is_checked_quickly(tmp_path):
    """2^25 words a persist, each encoded and decoded: seconds now, minutes before (a subprocess, to time out)."""
    path = trace(tmp_path, MAX_ENTRY)
    command = [sys.executable, "-m", "ledgerspec.conformance.cli", "traces", "check", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"OK: {path}")
    assert "CURSOR-MODEL                 ok" in done.stdout
