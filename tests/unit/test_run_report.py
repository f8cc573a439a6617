"""``ledgerspec run``'s reports: the HTML page opens on the verdict, the real code is a highlighted table,
what a profile does not claim is folded, and ``--json`` writes every part's verdicts even when the run fails.

The rendering is tested on constructed results; the command itself with its parts replaced (the real
parts run Maven and Spark, and part 1 a search per reference).
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._verdict import Status
from ledgerspec.conformance.cache._engine import Report, Row
from ledgerspec.conformance.cache._html_views import conformance_section
from ledgerspec.conformance.cache.adapters import AdapterInfo
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.real._rows import RealRow
from ledgerspec.conformance.render._html import HtmlReport
from ledgerspec.conformance.render._traces import traces_section
from ledgerspec.traces import _main_job
from ledgerspec.traces._run_report import RunDocument, real_section

ROWS = [
    RealRow("cache-range-cache-4.2.4", "pulsar-master", "PASS", 120, True, "deviations: none; as declared"),
    RealRow("cache-entry-cache-manager-4.0.8", "legacy", "FAIL", 80, True, "deviations: L1; as declared"),
    RealRow(
        "cursor-state-managed-cursor-4.2.4", "CURSOR-NO-ACK-LOSS", "ERROR", 3, False, "NOT AS DECLARED: adapter fault"
    ),
]


def _rows_of(page: str) -> list[str]:
    body = page.split("<tbody>", 1)[1]
    return re.findall(r"<tr(?: class=\"mark\")?>.*?</tr>", body)


def test_the_verdict_comes_first_under_the_title_even_when_known_last():
    page = HtmlReport("ledgerspec run")
    page.heading("1. Conformance")
    page.paragraph("a part")
    page.verdict("FAIL: something differs", good=False)
    body = page.render().split("<body>\n", 1)[1]
    assert body.startswith('<h1>ledgerspec run</h1>\n<p class="verdict bad">FAIL: something differs</p>\n<h2>')


def test_the_real_code_is_a_table_with_failures_and_errors_highlighted():
    page = HtmlReport("ledgerspec run")
    real_section(page, "3. The real code", ROWS)
    rows = _rows_of(page.render())
    assert len(rows) == len(ROWS)
    assert not rows[0].startswith('<tr class="mark">')  # a pass, as declared
    assert rows[1].startswith('<tr class="mark">')  # a declared failure: still a failure, highlighted
    assert rows[2].startswith('<tr class="mark">')
    assert '<td class="bad">ERROR</td>' in rows[2]
    assert '<td class="bad">no</td>' in rows[2]  # not as declared: what fails the run
    assert "NOT AS DECLARED: adapter fault" in rows[2]


def test_invariants_the_profile_does_not_claim_are_folded():
    info = AdapterInfo("reference-legacy", "1", "python", ("legacy",), frozenset())
    report = Report(info, "legacy", "minimal", "quick", 1, examples=1, steps=5)
    report.rows = [
        Row("CACHE-MODEL", Status.PASS),
        Row("CACHE-FIFO", Status.NOT_CLAIMED),
        Row("CACHE-TTL", Status.NOT_CLAIMED),
        Row("CACHE-WATERMARK", Status.NOT_CHECKABLE, detail="adapter lacks cursors"),
    ]
    page = HtmlReport("r")
    conformance_section(page, report, level=3)
    html = page.render()
    shown, folded = html.split("<details>", 1)
    assert "CACHE-MODEL" in shown
    assert "CACHE-WATERMARK" in shown  # not checkable says something of the adapter: shown
    assert "CACHE-FIFO" not in shown
    assert folded.startswith("<summary>2 invariants not claimed by profile legacy</summary>\n<table>")
    assert "CACHE-FIFO" in folded.split("</details>", 1)[0]


def test_the_document_has_every_parts_verdicts():
    document = RunDocument(seed=430, engine="local", real=list(ROWS))
    assert document.verdict == "ERROR"  # no part finished: never a pass
    document.ok = False
    document.finished |= {"references", "samples", "real"}
    data = document.to_dict()
    assert data["verdict"] == "FAIL"
    assert data["real"]["ok"] is False
    assert [t["verdict"] for t in data["real"]["targets"]] == ["PASS", "FAIL", "ERROR"]
    assert set(data) >= {"references", "samples", "real", "seed", "engine"}


@pytest.fixture
def parts(monkeypatch):
    """Parts 1 and 2 replaced by stand-ins that record a verdict each (part 3 is left out)."""

    def references(_args, _out, page, document):
        document.references.append({"adapter": {"name": "reference-legacy"}, "verdict": "FAIL"})
        if page is not None:
            page.heading("1. Conformance of the reference adapters")
        return False

    monkeypatch.setattr(_main_job, "_references", references)
    monkeypatch.setattr(_main_job, "_samples", lambda *_: True)


RUN = ["run", "--skip-real", "--engine", "local", "--plain"]


def test_run_writes_its_json_and_its_verdict_first_when_the_run_fails(parts, tmp_path, capsys):
    out, page = tmp_path / "run.json", tmp_path / "run.html"
    assert main([*RUN, "--json", str(out), "--html", str(page)]) == 1
    assert f"JSON report: {out}" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["verdict"] == "FAIL"
    assert data["references"]["ok"] is False
    assert data["references"]["reports"] == [{"adapter": {"name": "reference-legacy"}, "verdict": "FAIL"}]
    assert data["real"] == {"skipped": True, "ok": True, "targets": []}
    body = page.read_text().split("<body>\n", 1)[1]
    assert body.startswith('<h1>ledgerspec run</h1>\n<p class="verdict bad">FAIL: SOMETHING DIFFERS')


def test_run_writes_its_json_when_a_part_stops_it(monkeypatch, tmp_path, capsys):
    def broken(*_):
        raise InputError("--samples x: a part could not run")

    monkeypatch.setattr(_main_job, "_references", lambda *_: True)
    monkeypatch.setattr(_main_job, "_samples", broken)
    out = tmp_path / "run.json"
    assert main([*RUN, "--json", str(out)]) == 2
    capsys.readouterr()
    data = json.loads(out.read_text())
    assert data["verdict"] == "ERROR"
    assert data["error"] == "InputError: --samples x: a part could not run"
    assert (data["references"]["ok"], data["samples"]["ok"], data["real"]["ok"]) == (True, None, None)


def test_a_traces_invariants_its_profile_does_not_claim_are_folded_too():
    statuses = {"CACHE-MODEL": Status.OK, "CACHE-FIFO": Status.NOT_CLAIMED, "CACHE-TTL": Status.VIOLATION}
    result = SimpleNamespace(
        path="t.jsonl", profile="legacy", engine="local", events=9, brokers=1, verdict="VIOLATION", seconds=0.1,
        statuses=lambda: statuses, counts={"CACHE-TTL": 2}, unknown=[], violations=[],
    )  # fmt: skip
    page = HtmlReport("r")
    traces_section(page, [result])
    shown, folded = page.render().split("<details>", 1)
    assert "CACHE-TTL" in shown
    assert "CACHE-FIFO" not in shown
    assert folded.startswith("<summary>1 invariant not claimed by profile legacy</summary>")
    assert "CACHE-FIFO" in folded


def test_the_real_judges_hand_each_target_as_a_row(monkeypatch):
    """Each judge of part 3 hands ``run`` a row per target (searches replaced: they need Maven)."""
    from ledgerspec.conformance.cache import _real as _real_code
    from ledgerspec.conformance.cursor_state import _real as real_cursor
    from ledgerspec.conformance.txlog_writer import _real as real_txlog

    fake = SimpleNamespace(verdict=SimpleNamespace(value="FAIL"), steps=7, violation=None)
    monkeypatch.setattr(_real_code, "run_target", lambda *_a, **_k: SimpleNamespace(verdict="FAIL", steps=7))
    monkeypatch.setattr(_real_code, "surprises", lambda target, _r: ["differs"] if "bookkeeper" in target.label else [])
    monkeypatch.setattr(real_txlog, "run_real", lambda **_k: fake)
    monkeypatch.setattr(real_txlog, "surprises", lambda _r: [])
    monkeypatch.setattr(real_cursor, "ci_search", lambda _v: fake)
    monkeypatch.setattr(real_cursor, "surprise", lambda _v, _r, strict: None)
    rows: list[RealRow] = []
    _real_code.judge_all(lambda _line: None, settings="quick", seed=1, presets=("minimal",), record=rows.append)
    assert [r.target for r in rows] == [t.label for t in _real_code.REAL_TARGETS]
    assert all(r.verdict == "FAIL" and r.steps == 7 for r in rows)
    assert [r.as_declared for r in rows] == ["bookkeeper" not in t.label for t in _real_code.REAL_TARGETS]
    assert {r.as_declared for r in rows} == {True, False}
    rows.clear()
    real_txlog.judge_real(lambda _line: None, settings="quick", seed=1, record=rows.append)
    assert [(r.target, r.verdict) for r in rows] == [(f"{real_txlog.ADAPTER} (txlog-writer)", "FAIL")]
    rows.clear()
    real_cursor.judge_real_cursors(lambda _line: None, settings="quick", seed=1, pinned=True, record=rows.append)
    assert [(r.target, r.against) for r in rows] == [(v.adapter, v.invariant) for v in real_cursor.CURSOR_VERDICTS]
    assert all(r.as_declared for r in rows)
