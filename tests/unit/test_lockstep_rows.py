"""The cursor-state and txlog-writer reports name every invariant of their catalogue, as the cache's does.

Same words (``Status``: pass, fail, error, not claimed, not checkable, not run) and the same table
shape (invariant, STATUS, why) in the plain text, the rich table and ``--json``'s ``rows``.
"""

from __future__ import annotations

import json
import re

from ledgerspec.conformance.cli import main
from ledgerspec.conformance.cursor_state import CursorStateAdapter, conform_cursor
from ledgerspec.conformance.cursor_state._mutants import CURSOR_MUTANTS
from ledgerspec.conformance.lockstep._views import report_table
from ledgerspec.conformance.systems import SYSTEMS
from rich.console import Console


def _conform(system: str, adapter: str, tmp_path, *extra: str) -> tuple[dict, str]:
    out = tmp_path / "r.json"
    argv = ["conform", "--system", system, "--adapter", adapter, "--settings", "quick", "--seed", "1", "--plain"]
    main([*argv, "--json", str(out), *extra])
    return json.loads(out.read_text()), out.read_text()


def test_cursor_state_names_the_invariants_its_profile_does_not_claim(tmp_path, capsys):
    report, _ = _conform("cursor-state", "reference-pip381", tmp_path)
    text = capsys.readouterr().out
    catalogue = [inv.id for inv in SYSTEMS["cursor-state"].invariants]
    assert [row["invariant"] for row in report["rows"]] == catalogue
    rows = {row["invariant"]: row for row in report["rows"]}
    assert rows["CURSOR-NO-ACK-LOSS"] == {
        "invariant": "CURSOR-NO-ACK-LOSS",
        "status": "not claimed",
        "detail": "profile pip381 does not claim it",
    }
    assert rows["CURSOR-MODEL"]["status"] == "pass"
    assert report["invariants"]["CURSOR-NO-PHANTOM-ACK"] == "not claimed"
    assert re.search(r"^  CURSOR-NO-ACK-LOSS +NOT CLAIMED +profile pip381 does not claim it$", text, re.MULTILINE)
    assert re.search(r"^  CURSOR-MODEL +PASS +held on every step that reached it$", text, re.MULTILINE)


def test_txlog_writer_names_every_invariant_of_its_catalogue(tmp_path, capsys):
    report, _ = _conform("txlog-writer", "reference-pip160", tmp_path)
    capsys.readouterr()
    catalogue = [inv.id for inv in SYSTEMS["txlog-writer"].invariants]
    assert list(report["invariants"]) == catalogue
    claimed = {inv.id for inv in SYSTEMS["txlog-writer"].claimed("pip160")}
    for row in report["rows"]:
        assert row["status"] == ("pass" if row["invariant"] in claimed else "not claimed"), row


class _NoWrites(CursorStateAdapter):
    """The reference cursor without the capability ``writes``: it reports none, as a process adapter."""

    capabilities = frozenset()


def test_an_invariant_reading_what_the_adapter_lacks_is_not_checkable():
    report = conform_cursor(lambda: _NoWrites("pulsar-master"), "pulsar-master", settings_name="quick", seed=1)
    rows = {row.invariant: row for row in report.rows()}
    assert (rows["CURSOR-WRITES"].status, rows["CURSOR-WRITES"].detail) == ("not checkable", "adapter lacks writes")
    assert "  CURSOR-WRITES                NOT CHECKABLE  adapter lacks writes" in report.render()


def test_invariants_left_out_by_invariant_are_not_run_and_a_failure_is_fail(tmp_path, capsys):
    report, _ = _conform("cursor-state", "reference-pulsar-master", tmp_path, "--invariant", "CURSOR-NO-ACK-LOSS")
    capsys.readouterr()
    statuses = report["invariants"]
    assert statuses["CURSOR-NO-ACK-LOSS"] == "pass"
    assert statuses["CURSOR-MODEL"] == "not run"
    assert {row["detail"] for row in report["rows"] if row["status"] == "not run"} == {"not selected"}
    mutant = next(m for m in CURSOR_MUTANTS if m.name == "pip381-callback-on-first-chunk")
    found = conform_cursor(mutant.adapter, mutant.profile, settings_name="quick", seed=1)
    assert found.violation is not None
    broken = {row.invariant: row for row in found.rows()}[found.violation.invariant]
    assert (broken.status, broken.detail) == ("fail", found.violation.message)
    line = rf"^  {found.violation.invariant} +FAIL +counterexample of \d+ steps"
    assert re.search(line, found.render(), re.MULTILINE)


def test_the_rich_table_has_the_caches_columns():
    report = conform_cursor(lambda: CursorStateAdapter("pip381"), "pip381", settings_name="quick", seed=2)
    console = Console(width=160, record=True, color_system=None)
    console.print(report_table(report, "reference-pip381"))
    text = console.export_text()
    assert "why / what" in text
    assert re.search(r"CURSOR-NO-ACK-LOSS +│ +not claimed +│ +profile pip381 does not claim it", text)


def test_the_html_section_folds_what_the_profile_does_not_claim():
    from ledgerspec.conformance.lockstep._views import section
    from ledgerspec.conformance.render._html import HtmlReport

    report = conform_cursor(lambda: CursorStateAdapter("pip381"), "pip381", settings_name="quick", seed=2)
    page = HtmlReport("c")
    section(page, report, "reference-pip381")
    shown, folded = page.render().split("<details>", 1)
    assert "CURSOR-MODEL" in shown
    assert "CURSOR-NO-ACK-LOSS" not in shown
    assert folded.startswith("<summary>4 invariants not claimed by profile pip381</summary>")
    assert "CURSOR-NO-ACK-LOSS" in folded
