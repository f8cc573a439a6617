"""Recorded traces agree with conformance on the Spark checker too (tests/quality/test_trace_agreement.py
is the local side): every reference adapter and catalogue mutant is recorded (tests/quality/recorded.py),
the traces of one profile and configuration are put together as the brokers of one file, and the Spark
checker's verdict for each broker equals ``conform``'s on that broker's steps; its whole report equals
the local checker's. One Spark session serves the module (shared with the other Spark tests).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from ledgerspec.traces.cache import _check, _local, _spark
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._spark import check_spark, spark_session
from ledgerspec.traces.core._result import TraceViolation

_PATH = Path(__file__).resolve().parents[1] / "quality" / "recorded.py"
_SPEC = importlib.util.spec_from_file_location("_ledgerspec_recorded", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
recorded = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = recorded
_SPEC.loader.exec_module(recorded)


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[2]")


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    directory = tmp_path_factory.mktemp("recorded")
    return [r for candidate in recorded.CANDIDATES for r in recorded.record_all(candidate, directory)]


def together(recordings, path: Path) -> Path:
    """One trace whose brokers are the recordings (same profile and configuration), named by their labels."""
    with path.open("w") as out:
        for number, recording in enumerate(recordings):
            header, *events = recording.path.read_text().splitlines()
            if number == 0:
                out.write(header + "\n")
            for line in events:
                event = json.loads(line)
                event["broker"] = recording.label
                out.write(json.dumps(event) + "\n")
    return path


def comparable(result) -> dict:
    report = result.to_dict()
    del report["engine"], report["seconds"]
    return report


@pytest.mark.parametrize("profile", sorted({c.profile for c in recorded.CANDIDATES}))
@pytest.mark.parametrize("config", sorted(recorded.CONFIGS))
def test_spark_verdict_per_recorded_trace_equals_the_conform_verdict(
    spark, recordings, tmp_path, monkeypatch, profile, config
):
    # Every violation is listed (not the first 100 per invariant), without its context, so that each
    # broker's verdict can be read off the report.
    monkeypatch.setattr(_check, "KEEP_PER_INVARIANT", 10**9)
    monkeypatch.setattr(_spark, "context_of", lambda events, findings, clock, trace: _bare(findings))
    monkeypatch.setattr(_local, "attach_context", lambda trace, findings: _bare(findings))
    mine = [r for r in recordings if r.candidate.profile == profile and r.config == config]
    path = together(mine, tmp_path / f"{profile}-{config}.jsonl")
    remote = check_spark(path, spark=spark)
    assert comparable(remote) == comparable(check_local(path))
    violating = {v.broker for v in remote.violations}
    for recording in mine:
        assert (recording.label in violating) == bool(recording.broken), (recording.label, recording.broken)
    assert remote.brokers == len(mine)


def _bare(findings):
    return [TraceViolation.of(f, {}, {}) for f in findings]
