"""Which finding explains a real cursor's counterexample: the release's answers, replayed against the model
taking on the finding's behaviour (``spec.cursor_state.QUIRKS``), must all be that model's.

No Java here: in-process "releases" built from the reference stand in for the real cursors (their Java runs are
tests/slow/test_real_cursor_verdicts.py). A release doing what a finding says is explained by it, alone or with
another; a release with a bug no finding describes is explained by none, even behind the same steps.
"""

from __future__ import annotations

from ledgerspec.conformance._errors import AdapterFault
from ledgerspec.conformance.cursor_state import CursorStateAdapter
from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE
from ledgerspec.conformance.cursor_state._mutants import MetastoreWithoutRanges, RangeCapPlusOne
from ledgerspec.conformance.cursor_state._real import (
    CURSOR_CASES,
    CURSOR_VERDICTS,
    REAL_CURSORS,
    explaining,
    surprise,
)
from ledgerspec.conformance.cursor_state._real_section import FINDINGS
from ledgerspec.conformance.lockstep._engine import LockstepRun, Report, Violation, replay
from ledgerspec.reference.cursor_state import ReferenceCursor
from ledgerspec.spec.cursor_state import (
    QUIRKS,
    Ack,
    AckIndex,
    Confirm,
    Crash,
    CursorConfig,
    FailAdd,
    Persist,
    Recover,
)


class BatchSetsLostFromTheStore(ReferenceCursor):
    """C2's behaviour: recovery from the metadata store restores no batch sets."""

    def recover(self):  # type: ignore[no-untyped-def]
        from_store = self.meta.ledger < 0
        state = super().recover()
        if state is not None and from_store:
            state.unacked_indexes = {}
            self.unacked_indexes = {}
        return state


def _release(cursor_class: type[ReferenceCursor]):  # type: ignore[no-untyped-def]
    def make() -> CursorStateAdapter:
        adapter = CursorStateAdapter("pulsar-master")
        adapter.cursor_class = cursor_class
        return adapter

    return make


def _violation(cursor_class: type[ReferenceCursor], config: CursorConfig, steps: list) -> Violation:  # type: ignore[type-arg]
    run = LockstepRun(CURSOR_STATE, _release(cursor_class), "pulsar-master")
    found = replay(run, config, steps)
    assert found is not None, "the steps must break an invariant on this release"
    return Violation(*found, config, steps)


# a batch index acknowledged, persist 1 flushed to the new ledger, then failed: the metadata store holds the set
C2_STEPS = [AckIndex(ledger=1, entry=0, index=0), Persist(value=0), Confirm(), FailAdd(), Crash(keep=0), Recover()]
SMALL = CursorConfig(max_entry_size=1000, max_ranges=6, long_array=False, batch_size=2)
WITH_A_RANGE = [Ack(ledger=1, entry=3), *C2_STEPS]
ALL = tuple(QUIRKS)


def test_every_finding_with_a_behaviour_is_a_documented_one():
    assert set(QUIRKS) <= {f.key for f in FINDINGS}


def test_a_release_losing_batch_sets_from_the_store_is_explained_by_c2_alone():
    violation = _violation(BatchSetsLostFromTheStore, SMALL, C2_STEPS)
    assert violation.invariant in {"CURSOR-MODEL", "CURSOR-NO-ACK-LOSS", "CURSOR-RECOVER-ACKNOWLEDGED"}
    assert explaining(violation, _release(BatchSetsLostFromTheStore), ALL) == ("C2",)


def test_a_release_keeping_one_range_over_the_cap_is_explained_by_c4():
    case = next(c for c in CURSOR_CASES if c.finding == "C4")
    violation = _violation(RangeCapPlusOne, case.config, list(case.steps))
    assert explaining(violation, _release(RangeCapPlusOne), ALL) == ("C4",)


def test_a_bug_no_finding_describes_is_not_explained_even_behind_a_findings_steps():
    """The metadata-store fallback losing its ranges goes through C2's very steps (a failed add, the store,
    a recovery): the old rule, "the steps reach C2's situation", would have called it C2."""
    violation = _violation(MetastoreWithoutRanges, SMALL, WITH_A_RANGE)
    assert explaining(violation, _release(MetastoreWithoutRanges), ALL) is None


def test_a_violation_that_does_not_happen_again_is_explained_by_nothing():
    """A race or a flaky harness: the release passes the steps on the replay. No finding may take it, whichever
    does not touch those steps (the first rule tried would otherwise "explain" it)."""
    made_up = Violation("CURSOR-NO-ACK-LOSS", "made up", SMALL, C2_STEPS)
    assert explaining(made_up, lambda: CursorStateAdapter("pulsar-master"), ALL) is None


def test_only_the_declared_findings_may_explain():
    violation = _violation(BatchSetsLostFromTheStore, SMALL, C2_STEPS)
    assert explaining(violation, _release(BatchSetsLostFromTheStore), ("C4", "C5")) is None


def test_a_release_that_faults_on_the_replay_explains_nothing():
    class Faulting(ReferenceCursor):
        def recover(self):  # type: ignore[no-untyped-def]
            raise AdapterFault("the process died")  # what a process adapter raises

    violation = Violation("CURSOR-MODEL", "made up", SMALL, C2_STEPS)
    assert explaining(violation, _release(Faulting), ALL) is None


def test_surprise_names_an_unexplained_fail_and_accepts_an_explained_one():
    verdict = next(v for v in CURSOR_VERDICTS if v.invariant == "CURSOR-NO-ACK-LOSS")
    explained = _violation(BatchSetsLostFromTheStore, SMALL, C2_STEPS)
    report = Report("cursor-state", "pulsar-master", 1, "quick", [], violation=explained)
    assert surprise(verdict, report, release=_release(BatchSetsLostFromTheStore)) is None
    unexplained = _violation(MetastoreWithoutRanges, SMALL, WITH_A_RANGE)
    report = Report("cursor-state", "pulsar-master", 1, "quick", [], violation=unexplained)
    said = surprise(verdict, report, release=_release(MetastoreWithoutRanges))
    assert said is not None
    assert f"no finding of {', '.join(verdict.findings)} explains" in said


def test_every_pinned_verdict_names_real_adapters_and_known_findings():
    keys = {f.key for f in FINDINGS}
    for verdict in CURSOR_VERDICTS:
        assert verdict.adapter in REAL_CURSORS
        assert set(verdict.findings) <= keys
        assert (verdict.verdict == "FAIL") == bool(verdict.findings)


def test_each_pinned_counterexample_passes_on_the_reference():
    for case in CURSOR_CASES:
        run = LockstepRun(CURSOR_STATE, lambda: CursorStateAdapter("pulsar-master"), "pulsar-master")
        assert replay(run, case.config, case.steps) is None


def test_a_declared_fail_not_reached_at_another_seed_is_said_so_not_called_as_declared(monkeypatch):
    """`ledgerspec run` searches at the user's seed (not strict): a declared FAIL showing as PASS is no
    surprise, but its line must not claim the declared verdict was seen."""
    from ledgerspec.conformance.cursor_state import _real
    from ledgerspec.conformance.lockstep._engine import Report

    declared = next(v for v in CURSOR_VERDICTS if v.verdict == "FAIL")
    monkeypatch.setattr(_real, "CURSOR_VERDICTS", (declared,))
    monkeypatch.setattr(_real, "search", lambda *_a, **_k: Report("cursor-state", "pulsar-master", 7, "quick", []))
    lines: list[str] = []
    assert _real.judge_real_cursors(lines.append, settings="quick", seed=7, strict=False)
    assert "declared FAIL, not reached at this seed" in lines[0]
    assert "as declared" not in lines[0]
    assert not _real.judge_real_cursors(lines.append, settings="quick", seed=7, strict=True)


def test_a_declared_pass_no_step_judged_is_a_surprise():
    """A PASS whose invariant had nothing to judge (no recovery) proves nothing: not as declared."""
    from ledgerspec.conformance.cursor_state._real import surprise
    from ledgerspec.conformance.lockstep._engine import Report

    declared = next(v for v in CURSOR_VERDICTS if v.verdict == "PASS")
    vacuous = Report("cursor-state", "pulsar-master", 1, "quick", [declared.invariant])
    assert "no step gave" in (surprise(declared, vacuous) or "")
    vacuous.checked = [declared.invariant]
    assert surprise(declared, vacuous) is None


def test_run_judges_by_cis_pinned_searches(monkeypatch):
    """`ledgerspec run` (pinned=True) runs CI's searches, never a search at its own seed."""
    from ledgerspec.conformance.cursor_state import _real
    from ledgerspec.conformance.lockstep._engine import Report

    declared = next(v for v in CURSOR_VERDICTS if v.verdict == "PASS")
    judged = Report("cursor-state", "pulsar-master", 1, "quick", [declared.invariant], checked=[declared.invariant])
    monkeypatch.setattr(_real, "CURSOR_VERDICTS", (declared,))
    monkeypatch.setattr(_real, "ci_search", lambda _verdict: judged)
    monkeypatch.setattr(_real, "search", lambda *_a, **_k: (_ for _ in ()).throw(AssertionError("not pinned")))
    lines: list[str] = []
    assert _real.judge_real_cursors(lines.append, settings="quick", seed=430, pinned=True)
    assert "as declared" in lines[0]
