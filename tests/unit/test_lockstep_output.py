"""What ``conform`` and ``mutants`` show of the cursor state and the txlog writer: tables, steps, HTML."""

from __future__ import annotations

import sys

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.lockstep._engine import conform
from ledgerspec.conformance.lockstep._story import COLUMNS, story
from ledgerspec.conformance.lockstep._views import section
from ledgerspec.conformance.render._html import HtmlReport
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.spec import cursor_state
from ledgerspec.spec import txlog_writer as txlog


def mutant_report(system: str, name: str):
    """A failing run: a mutant of the reference, quick settings, seed 1 (each found in well under 10 s)."""
    chosen = SYSTEMS[system]
    mutant = next(m for m in chosen.mutants() if m.name == name)
    report = conform(chosen, mutant.adapter, mutant.profile, settings_name="quick", seed=1)
    assert report.violation is not None, f"{name} survived seed 1: pick another seed for this test"
    return report


@pytest.fixture(scope="module")
def txlog_failure():
    return mutant_report("txlog-writer", "pulsar-master-timer-not-rearmed")


@pytest.fixture(scope="module")
def cursor_failure():
    return mutant_report("cursor-state", "pulsar-master-callback-twice")


def test_txlog_story_replays_the_model_and_marks_the_breaking_step_and_flushes(txlog_failure):
    steps = story(txlog_failure)
    assert len(steps) == len(txlog_failure.violation.steps)
    assert [s.breaks for s in steps] == [False] * (len(steps) - 1) + [True]
    assert all(set(s.state) == set(COLUMNS["txlog-writer"]) for s in steps)
    config = txlog_failure.violation.config
    assert all(s.state["buffered records"].endswith(f"/{config.max_records}") for s in steps)
    # The timer that is not re-armed: the spec flushes by max_delay at the last step, the mutant does not.
    assert "flush:max_delay" in steps[-1].marks
    # The story is the model's own: its last state is what init/step give.
    model = txlog.init(txlog_failure.profile, config)
    for op in txlog_failure.violation.steps:
        model, _ = txlog.step(model, op)
    assert steps[-1].values == {
        "time": model.now,
        "records": len(model.batch),
        "bytes": 0 if not model.batch else sum(s for _, s, _ in model.batch),
    }


def test_cursor_story_names_mark_delete_persisted_metadata_and_ledgers(cursor_failure):
    steps = story(cursor_failure)
    assert steps[-1].breaks
    assert all(set(s.state) == set(COLUMNS["cursor-state"]) for s in steps)
    model = cursor_state.init(cursor_failure.profile, cursor_failure.violation.config)
    for op in cursor_failure.violation.steps:
        model, _ = cursor_state.step(model, op)
    assert steps[-1].values["mark_delete"] == model.memory.mark_delete
    assert steps[-1].state["mark-delete"] == f"{model.memory.mark_delete[0]}:{model.memory.mark_delete[1]}"


def test_a_crash_and_a_recovery_are_marked():
    report = mutant_report("cursor-state", "pulsar-master-reads-first-entry")
    steps = story(report)
    marks = [mark for s in steps for mark in s.marks]
    assert "crash" in marks
    assert any(mark.startswith("recover:") for mark in marks), marks
    crashed = next(s for s in steps if "crash" in s.marks)
    assert crashed.state["mark-delete"] == "crashed"
    assert crashed.values["mark_delete"] is None


@pytest.mark.parametrize("which", ["txlog_failure", "cursor_failure"])
def test_html_section_has_every_invariant_the_step_table_and_a_plot(which, request):
    report = request.getfixturevalue(which)
    page = HtmlReport("t")
    section(page, report, "a-mutant")
    text = page.render()
    for inv in report.invariants:
        assert inv in text
    for column in COLUMNS[report.system]:
        assert column in text
    assert text.count("<svg") == 1
    assert 'class="mark"' in text  # the breaking step highlighted
    assert f'<td class="nw">{report.violation.invariant}</td><td class="bad">fail</td>' in text


def test_conform_system_html_is_written_not_refused(tmp_path, capsys):
    page = tmp_path / "c.html"
    status = main(
        ["conform", "--system", "txlog-writer", "--adapter", "reference-pip160", "--seed", "1", "--html", str(page)]
    )
    out = capsys.readouterr().out
    assert status == 0
    text = page.read_text(encoding="utf-8")
    for inv in txlog.claimed("pip160"):
        assert inv.id in text
        assert inv.id in out
    assert "<script" not in text


def test_rich_cursor_conform_draws_the_invariant_table(capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    status = main(["conform", "--system", "cursor-state", "--adapter", "reference-pip381", "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0
    assert "┏━" in out
    assert "  held" not in out  # a rich table, not the plain lines
    for inv in cursor_state.claimed("pip381"):
        assert inv.id in out


def test_quiet_system_conform_prints_only_the_verdict(capsys):
    status = main(["conform", "--system", "cursor-state", "--adapter", "reference-pip381", "--seed", "1", "--quiet"])
    assert status == 0
    assert capsys.readouterr().out.splitlines() == ["PASS: cursor-state: reference-pip381 / pip381"]


def test_system_mutants_html_holds_the_kill_matrix(tmp_path, capsys):
    page = tmp_path / "m.html"
    name = "pulsar-master-callback-twice"
    status = main(
        [
            "mutants",
            "--system",
            "cursor-state",
            "--mutant",
            name,
            "--settings",
            "quick",
            "--seed",
            "1",
            "--html",
            str(page),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "1/1 mutants killed under every seed" in out
    text = page.read_text(encoding="utf-8")
    assert name in text
    assert "killed" in text
    assert text.count("<svg") == 1


def test_system_html_to_a_folder_is_refused_naming_the_option(tmp_path, capsys):
    status = main(["conform", "--system", "txlog-writer", "--adapter", "reference-pip160", "--html", str(tmp_path)])
    assert status == 2
    assert "--html" in capsys.readouterr().err


def test_the_search_tells_each_example_as_it_starts_for_the_progress_bar():
    system = SYSTEMS["txlog-writer"]
    _, factory = system.references()["reference-pip160"]
    heard: list[tuple[int, int]] = []
    report = conform(
        system, factory, "pip160", settings_name="quick", seed=1, on_example=lambda e, s: heard.append((e, s))
    )
    assert [examples for examples, _ in heard] == list(range(1, report.examples + 1))
    assert [steps for _, steps in heard] == sorted(steps for _, steps in heard)
    assert heard[-1][1] <= report.steps
