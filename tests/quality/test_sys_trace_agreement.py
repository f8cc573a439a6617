"""Recorded cursor-state and txlog-writer histories agree with conformance (the local engine; the Spark
side is tests/slow/test_sys_trace_agreement_spark.py): for every reference and every mutant, on the same
steps, the trace's first violation is the invariant and message ``conform`` gives, a history conform
passes is OK, and a trace without an output kind is UNKNOWN naming it (never OK) where it cannot decide.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.traces.lockstep._check import check_system

_PATH = Path(__file__).resolve().parent / "sys_recorded.py"
_SPEC = importlib.util.spec_from_file_location("_ledgerspec_sys_recorded", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
recorded = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = recorded
_SPEC.loader.exec_module(recorded)


def agrees(recording, result) -> None:
    expected, unknown = recording.expected()
    assert result.unknown == unknown + recorded.unjudged_after(recording.path, recording.candidate.system, result), (
        recording.path.name
    )
    if expected is None:
        assert result.verdict == (Verdict.UNKNOWN if unknown else Verdict.OK), (
            recording.path.name,
            result.violations[:1],
        )
    else:
        assert result.verdict == Verdict.VIOLATION, (recording.path.name, expected)
        first = result.violations[0]
        assert (first.invariant, first.message) == expected, recording.path.name


@pytest.mark.parametrize("candidate", recorded.CANDIDATES, ids=[f"{c.system}:{c.name}" for c in recorded.CANDIDATES])
def test_trace_verdict_is_the_conform_verdict(candidate, tmp_path: Path) -> None:
    recordings = recorded.record_all(candidate, tmp_path)
    results = [check_system(str(r.path)) for r in recordings]
    for recording, result in zip(recordings, results, strict=True):
        agrees(recording, result)
    whole = [res.verdict for rec, res in zip(recordings, results, strict=True) if not rec.omit]
    if candidate.mutant:
        assert Verdict.VIOLATION in whole, f"{candidate.name}: no recorded history flagged"
    else:
        assert set(whole) == {Verdict.OK}
