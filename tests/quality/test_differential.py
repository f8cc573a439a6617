"""The trace checkers' bulk replay judges as the normative rules do (issue 38, item 3).

For every invariant whose normative rule is written (``Invariant.check``), the numpy replay the trace
checkers run and the plain :class:`~ledgerspec.spec.cache._normative.Judge` give the same verdict, the
same first violating event, the same "ends unjudged" claims and the same refusals, on: the sample
traces, every injected violation of each profile, generated workloads of each profile, and the traces
``traces record`` writes of every reference adapter and catalogue mutant (tests/quality/differential.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from ledgerspec.spec.cache.invariants import INVARIANTS

_SPEC = importlib.util.spec_from_file_location("_ledgerspec_differential", Path(__file__).with_name("differential.py"))
assert _SPEC is not None
assert _SPEC.loader is not None
differential = sys.modules.setdefault(_SPEC.name, importlib.util.module_from_spec(_SPEC))
if not hasattr(differential, "compare"):
    _SPEC.loader.exec_module(differential)

SOURCES = {"samples": differential.samples, "injections": differential.injections, "generated": differential.generated}


def _mismatches(cases):
    out, compared = [], 0
    for case in cases:
        ids = differential.ruled(case.profile)
        compared += len(ids)
        out += differential.compare(case.label, case.profile, case.config, case.chunks, ids)
    return out, compared


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_bulk_replay_equals_the_rules(source):
    mismatches, compared = _mismatches(SOURCES[source]())
    assert compared, f"{source}: no invariant compared"
    assert not mismatches, "\n".join(mismatches[:20])


def test_the_bulk_replay_equals_the_rules_on_every_recording(tmp_path, monkeypatch):
    monkeypatch.setenv("LEDGERSPEC_RECORDINGS", str(tmp_path))
    mismatches, compared = _mismatches(differential.recordings())
    assert compared
    assert not mismatches, "\n".join(mismatches[:20])


def test_a_wrong_rule_is_a_mismatch(monkeypatch):
    """The comparison can fail: a watermark rule that never reports parts from the bulk replay."""
    rule = INVARIANTS["CACHE-WATERMARK"].check
    assert rule is not None
    monkeypatch.setattr(type(rule), "pass_end", lambda self, done, judge: None)
    mismatches, _ = _mismatches(differential.injections())
    assert any("CACHE-WATERMARK: bulk first at" in line for line in mismatches), mismatches
