"""Which finding explains a real cursor's counterexample: ``situations`` replays the steps on the spec's model.

No Java here: the counterexamples are those the real harnesses gave (DEVIATIONS.md, "Cursor state (PIP-381)"),
and a run that reaches no finding's situation must be explained by none (tests/slow/test_real_cursor_verdicts.py
then calls such a violation a surprise).
"""

from __future__ import annotations

from ledgerspec.conformance._lockstep import LockstepRun, replay
from ledgerspec.conformance._real_cursor import FINDINGS
from ledgerspec.conformance.cursor_state import CursorStateAdapter
from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE
from ledgerspec.conformance.cursor_state._real import CURSOR_CASES, CURSOR_VERDICTS, REAL_CURSORS, situations
from ledgerspec.spec.cursor_state import (
    Ack,
    AckIndex,
    Confirm,
    Crash,
    CursorConfig,
    FailAdd,
    FailMeta,
    MarkDelete,
    Persist,
    Recover,
    init,
    step,
)

SMALL = CursorConfig(chunk_size=8, max_entry_size=40, max_ranges=0, long_array=False, compression="none", batch_size=2)
ROOMY = CursorConfig(max_entry_size=1000, max_ranges=6)


def test_a_failed_add_to_a_ledger_being_opened_is_c6():
    # persist 1 from NoLedger opens a cursor ledger; its add fails
    assert situations(SMALL, [Persist(value=0), FailAdd(), Confirm()]) == {"C5"}


def test_an_entry_over_the_frame_size_while_opening_is_c6_too():
    # three partly acked batch entries: the state is 41 bytes or more, over max_entry_size 40, so the confirm fails it
    steps = [
        AckIndex(ledger=1, entry=0, index=0),
        AckIndex(ledger=1, entry=1, index=1),
        AckIndex(ledger=1, entry=2, index=0),
        Persist(value=0),
        Confirm(),
    ]
    assert situations(SMALL, steps) == {"C5"}


def test_a_failed_add_to_the_open_ledger_with_batch_sets_is_c2():
    # persist 1 opens the ledger and is confirmed; persist 2 fails on it with (1,0)'s batch set in the state
    steps = [
        AckIndex(ledger=1, entry=0, index=0),
        Persist(value=0),
        Confirm(),
        Persist(value=0),
        FailAdd(),
        Crash(keep=0),
        Recover(),
    ]
    assert situations(SMALL, steps) == {"C2"}


def test_a_persist_over_the_range_cap_is_c4():
    # (1,3) and (1,5): two runs, over max_ranges 1
    config = CursorConfig(max_entry_size=1000, max_ranges=1)
    assert situations(config, [Ack(ledger=1, entry=3), Ack(ledger=1, entry=5), Persist(value=0), Confirm()]) == {"C4"}


def test_a_mark_delete_right_before_an_acked_entry_is_no_finding_any_more():
    # (1,1) acked on its own; mark-delete (1,0): the model, like setAcknowledgedPosition, moves on to (1,1)
    steps = [Ack(ledger=1, entry=1), MarkDelete(ledger=1, entry=0)]
    assert situations(ROOMY, steps) == set()
    model = init("pulsar-master", ROOMY)
    for op in steps:
        model, _ = step(model, op)
    assert model.memory is not None
    assert (model.memory.mark_delete, model.memory.acked) == ((1, 1), frozenset())


def test_runs_that_reach_no_finding_are_explained_by_none():
    steps = [
        Ack(ledger=1, entry=3),
        MarkDelete(ledger=1, entry=1),
        Persist(value=1),
        Confirm(),
        FailMeta(),
        Persist(value=2),
        Confirm(),
        Crash(keep=1),
        Recover(),
    ]
    assert situations(ROOMY, steps) == set()


def test_every_pinned_verdict_names_real_adapters_and_known_findings():
    keys = {f.key for f in FINDINGS}
    for verdict in CURSOR_VERDICTS:
        assert verdict.adapter in REAL_CURSORS
        assert set(verdict.findings) <= keys
        assert (verdict.verdict == "FAIL") == bool(verdict.findings)


def test_each_pinned_counterexample_reaches_its_finding_and_passes_on_the_reference():
    for case in CURSOR_CASES:
        assert situations(case.config, list(case.steps)) == {case.finding}
        run = LockstepRun(CURSOR_STATE, lambda: CursorStateAdapter("pulsar-master"), "pulsar-master")
        assert replay(run, case.config, case.steps) is None


def test_a_declared_fail_not_reached_at_another_seed_is_said_so_not_called_as_declared(monkeypatch):
    """`ledgerspec run` searches at the user's seed (not strict): a declared FAIL showing as PASS is no
    surprise, but its line must not claim the declared verdict was seen."""
    from ledgerspec.conformance._lockstep import Report
    from ledgerspec.conformance.cursor_state import _real

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
    from ledgerspec.conformance._lockstep import Report
    from ledgerspec.conformance.cursor_state._real import surprise

    declared = next(v for v in CURSOR_VERDICTS if v.verdict == "PASS")
    vacuous = Report("cursor-state", "pulsar-master", 1, "quick", [declared.invariant])
    assert "no step gave" in (surprise(declared, vacuous) or "")
    vacuous.checked = [declared.invariant]
    assert surprise(declared, vacuous) is None


def test_run_judges_by_cis_pinned_searches(monkeypatch):
    """`ledgerspec run` (pinned=True) runs CI's searches, never a search at its own seed."""
    from ledgerspec.conformance._lockstep import Report
    from ledgerspec.conformance.cursor_state import _real

    declared = next(v for v in CURSOR_VERDICTS if v.verdict == "PASS")
    judged = Report("cursor-state", "pulsar-master", 1, "quick", [declared.invariant], checked=[declared.invariant])
    monkeypatch.setattr(_real, "CURSOR_VERDICTS", (declared,))
    monkeypatch.setattr(_real, "ci_search", lambda _verdict: judged)
    monkeypatch.setattr(_real, "search", lambda *_a, **_k: (_ for _ in ()).throw(AssertionError("not pinned")))
    lines: list[str] = []
    assert _real.judge_real_cursors(lines.append, settings="quick", seed=430, pinned=True)
    assert "as declared" in lines[0]
