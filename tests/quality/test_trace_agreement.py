"""Recorded traces agree with conformance: for every reference adapter and every catalogue mutant,
each trace ``traces record`` writes gets from the local checker the verdict ``conform`` gives the same
steps (VIOLATION for FAIL, OK for PASS), and every mutant is flagged by at least one of its traces.

The recordings and the conformance verdicts come from tests/quality/recorded.py; the Spark checker's
side is tests/slow/test_trace_agreement_spark.py.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from ledgerspec.traces.cache._local import check_local

_SPEC = importlib.util.spec_from_file_location("_ledgerspec_differential", Path(__file__).with_name("differential.py"))
assert _SPEC is not None
assert _SPEC.loader is not None
differential = sys.modules.setdefault(_SPEC.name, importlib.util.module_from_spec(_SPEC))
if not hasattr(differential, "compare"):
    _SPEC.loader.exec_module(differential)
recorded = differential.load_recorded()


@pytest.mark.parametrize("candidate", recorded.CANDIDATES, ids=[c.name for c in recorded.CANDIDATES])
def test_recorded_trace_verdict_equals_the_conform_verdict(candidate, tmp_path):
    recordings = recorded.record_all(candidate, tmp_path)
    flagged = []
    for recording in recordings:
        result = check_local(recording.path)
        conform = "FAIL" if recording.broken else "PASS"
        expected = "VIOLATION" if recording.broken else "OK"
        found = sorted(k for k, v in result.counts.items() if v)
        assert result.verdict == expected, (
            f"{recording.label}: trace {result.verdict} {found}, conform {conform} {recording.broken}"
        )
        if result.verdict == "VIOLATION":
            flagged.append(recording.label)
    if candidate.reference:
        assert not flagged
    else:
        assert flagged, f"{candidate.name}: none of its {len(recordings)} recorded traces shows its bug"


def test_the_recordings_cover_every_profile_and_mutant():
    assert {c.profile for c in recorded.CANDIDATES if c.reference} == {c.profile for c in recorded.CANDIDATES}
    assert len([c for c in recorded.CANDIDATES if not c.reference]) == len(recorded.MUTANTS) - len(
        recorded.NOT_IN_TRACES
    )
    assert len(recorded.MUTANTS) - len(recorded.NOT_IN_TRACES) >= 53
    assert set(recorded.NOT_IN_TRACES) <= {m.name for m in recorded.MUTANTS}
    assert all(recorded.NOT_IN_TRACES.values())
    assert min(config.max_size for config in recorded.CONFIGS.values()) <= 64 * 1024
    assert any(not config.track_reads for config in recorded.CONFIGS.values())
