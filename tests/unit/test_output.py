"""What the commands print: plain, rich and quiet output, ``--html`` reports and ``--version``."""

from __future__ import annotations

import argparse
import json
import re
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from ledgerspec.conformance.cache._case import load_case
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache._html_views import matrix_section
from ledgerspec.conformance.cache._timeline import steps
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.render._html import HtmlReport
from ledgerspec.conformance.render._term import mode_for
from ledgerspec.spec.cache._catalogue import CATALOGUE

SAMPLES = Path(__file__).parents[2] / "traces" / "samples"
CASES = Path(__file__).parents[2] / "conformance" / "cases"
# The reference of the legacy policy checked against pip430: fails six invariants at quick settings.
FAILING = ["conform", "--adapter", "reference-legacy", "--profile", "pip430", "--seed", "1"]


def options(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**{"plain": False, "quiet": False, **values})


def test_mode_plain_when_not_a_terminal_with_no_color_or_plain(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert mode_for(options()) == "plain"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert mode_for(options()) == "rich"
    assert mode_for(options(plain=True)) == "plain"
    assert mode_for(options(quiet=True)) == "quiet"
    monkeypatch.setenv("NO_COLOR", "1")
    assert mode_for(options()) == "plain"


def test_version_comes_from_the_package_metadata(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"ledgerspec {version('ledgerspec')}"


def test_quiet_conform_prints_only_the_verdicts(tmp_path, capsys):
    status = main([*FAILING, "--quiet", "--cases-dir", str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out[0] == "FAIL: reference-legacy / pip430"
    assert all(re.fullmatch(r"FAIL: CACHE-[A-Z-]+", line) for line in out[1:]), out
    assert "CACHE-MODEL" in " ".join(out)


def test_rich_conform_names_every_invariant_and_draws_the_steps(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    status = main([*FAILING, "--cases-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 1
    for invariant in CATALOGUE:
        assert invariant.id in out
    assert "cache after" in out
    assert "replay: ledgerspec replay" in out


def test_conform_html_holds_every_invariant_a_timeline_and_plots(tmp_path, capsys):
    report = tmp_path / "c.html"
    json_report = tmp_path / "c.json"
    status = main([*FAILING, "--cases-dir", str(tmp_path), "--html", str(report), "--json", str(json_report)])
    capsys.readouterr()
    assert status == 1
    page = report.read_text(encoding="utf-8")
    for invariant in CATALOGUE:
        assert invariant.id in page
    assert "Counterexample: CACHE-MODEL" in page
    assert page.count("<svg") >= 2
    assert "trigger " in page
    assert "watermark " in page
    assert json.loads(json_report.read_text())["verdict"] == "FAIL"


def test_an_unwritable_html_path_is_a_usage_error(tmp_path, capsys):
    status = main([*FAILING, "--html", str(tmp_path / "missing" / "r.html")])
    assert status == 2
    assert "--html" in capsys.readouterr().err


def test_html_for_another_system_checks_its_adapter_first_and_writes_nothing(tmp_path, capsys):
    status = main(["conform", "--system", "cursor-state", "--adapter", "x", "--html", str(tmp_path / "r.html")])
    assert status == 2
    assert "--adapter x: cursor-state adapters are" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_traces_check_html_and_quiet(tmp_path, capsys):
    report = tmp_path / "t.html"
    paths = [str(SAMPLES / "pip430-ok.jsonl"), str(SAMPLES / "pip430-bad.jsonl")]
    status = main(["traces", "check", *paths, "--quiet", "--html", str(report)])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out[0].startswith("OK: ")
    assert out[1].startswith("VIOLATION: ")
    assert out[2] == "2 traces: 1 VIOLATION, 1 OK; exit 1 (VIOLATION)"
    assert len(out) == 3
    page = report.read_text(encoding="utf-8")
    assert "pip430-bad.jsonl: VIOLATION" in page
    assert "nearby: " in page
    assert "<svg" in page
    assert "more in the JSON report (--json)" in page  # 12 violations, 5 shown: the rest are not silently dropped
    # an invariant not checked on traces has no count (a 0 would read "checked, none found")
    assert '<td class="off">not checkable on traces</td><td></td>' in page


def test_mutants_html_holds_the_kill_matrix(tmp_path, capsys):
    report = tmp_path / "m.html"
    name = "pip430-newest-first"
    args = ["mutants", "--settings", "quick", "--seed", "0", "--mutant", name, "--quiet", "--html", str(report)]
    status = main(args)
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out == [f"KILLED: {name} 1/1"]
    page = report.read_text(encoding="utf-8")
    assert "Mutant kill matrix" in page
    assert re.search(rf"<td[^>]*>{name}</td>", page)
    assert '<td class="good">killed</td>' in page
    assert "<svg" in page
    assert "<p>killed 1/1 runs; 1/1 mutants killed under every seed</p>" in page  # the summary's lines apart


def test_matrix_section_draws_one_grid_for_all_runs():
    names = ("reference-legacy", "reference-pip430")
    reports = [conform(load_adapter(name), settings="quick", seed=3, examples=5) for name in names]
    page = HtmlReport("m")
    matrix_section(page, reports)
    html = page.render()
    assert "Adapters against profiles" in html
    assert html.count("<svg") == 1


def test_the_timeline_names_what_left_the_cache_and_why():
    # L1 (a size eviction removes newer entries) evicts by definition (tests/slow/test_findings.py);
    # D1's counterexample, used before, may protect every entry it writes (regenerated at seed 11)
    case = load_case(next(CASES.glob("*/l1-*.json")))
    story = steps(case)
    assert [s.index for s in story] == list(range(1, len(case.steps) + 1))
    assert all(s.size is not None for s in story)
    assert any(s.evicted for s in story), "L1's counterexample evicts an entry"
    evicted = [e for s in story for e in s.evicted]
    assert all(re.fullmatch(r"\d+:\d+ \(([a-z]+/)*[a-z]+\)", e) for e in evicted), evicted
    assert [s.breaks for s in story].count(True) == (1 if case.failing_step else 0)


def test_the_readme_says_what_is_needed_and_what_run_checks():
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    head = "\n".join(readme.splitlines()[:8])
    for needed in ("Python ≥ 3.11", "virtualenv", "Java 17", "Maven"):
        assert needed in head
    for invariant in CATALOGUE:
        assert f"`{invariant.id}`" in readme, f"README does not say `ledgerspec run` checks {invariant.id}"
    assert "(tests/slow/report-screenshot.png)" in readme
    assert (Path(__file__).parents[2] / "tests/slow/report-screenshot.png").stat().st_size < 400_000


def test_run_quiet_prints_only_verdicts_and_plain_keeps_its_table(tmp_path, capsys):
    args = ["run", "--engine", "local", "--skip-real", "--seed", "430"]
    assert main([*args, "--quiet", "--html", str(tmp_path / "r.html")]) == 0
    quiet = capsys.readouterr().out.splitlines()
    assert all(re.match(r"(PASS|OK|VIOLATION): ", line) for line in quiet), quiet
    assert quiet[-1] == "PASS: All as expected."
    assert sum(line.startswith("PASS: reference-") for line in quiet) == 4
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    for invariant in CATALOGUE:
        assert invariant.id in page
    assert main([*args, "--plain"]) == 0
    plain = capsys.readouterr().out
    assert "1. Conformance of the reference adapters (settings quick)" in plain
    assert plain.rstrip().endswith("All as expected.")


def test_the_rich_views_show_an_adapter_faults_stderr_as_the_plain_one_does():
    """A terminal (rich) showed a cache adapter fault's first line only; the stderr under it is what a
    person needs to see why the adapter died."""
    from ledgerspec.conformance.adapters._transport import AdapterCrashed
    from ledgerspec.conformance.cache._engine import conform
    from ledgerspec.conformance.cache._term import counterexample_table, report_table
    from ledgerspec.conformance.cache.adapters import load_adapter
    from rich.console import Console

    reference, applies = load_adapter("reference-pip430"), [0]

    class Dying:
        def __init__(self) -> None:
            self.inner = reference()
            self.info = self.inner.info

        def apply(self, op):
            applies[0] += 1
            if applies[0] == 5:
                raise AdapterCrashed("apply (seq 9): stdout closed\n  stderr:\n    adapter: simulated crash")
            return self.inner.apply(op)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    report = conform(Dying, profile="pip430", settings="quick", seed=1)
    assert report.fault is not None
    assert report.fault_case is not None
    console = Console(record=True, width=200)
    console.print(report_table(report))
    console.print(counterexample_table(report.fault_case))
    assert console.export_text().count("adapter: simulated crash") == 2
