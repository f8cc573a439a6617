"""Counterexamples explain themselves: the configuration they ran with, and the rule a model divergence broke.

In each output that shows one (``conform``'s terminal, plain and rich; ``replay``; the ``--html`` report),
for the entry cache and for the lockstep systems: the configuration line with the presets, the line of
what differs from the profile's defaults, and, for a divergence from the model, the SPEC.md rule and the
upstream method that gave the expectation (spec/_rules.py).
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from ledgerspec.conformance.cache._case import load_case
from ledgerspec.conformance.cache._term import counterexample_table
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.lockstep._engine import Report, Violation
from ledgerspec.conformance.lockstep._views import counterexample_table as lockstep_table
from ledgerspec.spec import txlog_writer as txlog
from ledgerspec.spec.cache._config import FIELDS, USED_BY
from rich.console import Console

CACHE_CONFIG = (
    "config (preset minimal, config preset pr-26627): max_size 300 B (eviction trigger 294 B, watermark 150 B), "
    "watermark 0.5, trigger 0.98, ttl 10, max_requeue 5, extend_ttl false, track_reads true"
)
CACHE_DIFF = (
    "differs from the pulsar-master defaults: max_size 300 (default 134217728), watermark 0.5 (default 0.9), "
    "ttl 10 (default 1000000000), extend_ttl false (default true)"
)
CACHE_RULE = "rule: spec/cache/SPEC.md §"
CACHE_UPSTREAM = "(upstream: apache/pulsar PR #24623, managed-ledger 4.2.4)"


def rendered(table: Any) -> str:
    """A rich table as a wide terminal draws it, without colour, its words joined by single spaces.

    Rich wraps a caption to the table's width: the words, not the line breaks, are what it shows.
    """
    console = Console(width=400, record=True, color_system=None)
    with console.capture() as captured:
        console.print(table)
    return " ".join(captured.get().split())


@pytest.fixture(scope="module")
def cache_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The legacy reference against pulsar-master under a named configuration: a CACHE-MODEL counterexample."""
    folder = tmp_path_factory.mktemp("cache")
    argv = ["conform", "--adapter", "reference-legacy", "--profile", "pulsar-master", "--config-preset", "pr-26627"]
    argv += ["--invariant", "CACHE-MODEL", "--examples", "5", "--seed", "1", "--plain"]
    argv += ["--cases-dir", str(folder / "cases"), "--html", str(folder / "report.html")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 1
    return out.getvalue(), folder


def test_conform_prints_the_config_the_diff_from_defaults_and_the_rule(cache_run: tuple[str, Path]) -> None:
    out, _ = cache_run
    assert f"      {CACHE_CONFIG}\n      {CACHE_DIFF}\n" in out
    rule = next(line for line in out.splitlines() if CACHE_RULE in line)
    assert rule.strip().startswith(CACHE_RULE)
    assert rule.endswith(CACHE_UPSTREAM)


def test_the_saved_case_keeps_its_config_preset_and_the_rich_table_shows_it_all(cache_run: tuple[str, Path]) -> None:
    _, folder = cache_run
    (path,) = (folder / "cases").glob("*.json")
    assert json.loads(path.read_text())["manifest"]["config_preset"] == "pr-26627"
    drawn = rendered(counterexample_table(load_case(path)))
    assert CACHE_CONFIG in drawn
    assert CACHE_DIFF in drawn
    assert CACHE_RULE in drawn


def test_the_html_report_shows_the_config_and_the_rule(cache_run: tuple[str, Path]) -> None:
    _, folder = cache_run
    page = html.unescape((folder / "report.html").read_text(encoding="utf-8"))
    assert CACHE_CONFIG in page
    assert CACHE_DIFF in page
    assert CACHE_RULE in page
    assert CACHE_UPSTREAM in page


def test_replay_shows_the_config_and_the_rule(cache_run: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, folder = cache_run
    (path,) = (folder / "cases").glob("*.json")
    assert main(["replay", str(path), "--adapter", "reference-legacy"]) == 1
    out = capsys.readouterr().out
    assert f"  {CACHE_CONFIG}\n  {CACHE_DIFF}\n" in out
    assert f"        {CACHE_RULE}" in out


def test_replay_of_another_invariant_names_the_first_model_difference_and_its_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """L4 (a committed finding) breaks CACHE-WATERMARK; the size pass it skipped is the rule it broke."""
    case = Path(__file__).parents[2] / "conformance" / "cases" / "findings" / "l4-cache-watermark.json"
    assert main(["replay", str(case), "--adapter", "reference-legacy"]) == 1
    out = capsys.readouterr().out
    assert "  config (preset minimal): max_size 300 B (eviction trigger 294 B, watermark 150 B)" in out
    assert "      first difference from the pulsar-master model at step 3: EvictSize differs" in out
    assert (
        '      rule: spec/cache/SPEC.md §5.2 "Size pass": '
        "RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold, "
        "RangeCacheRemovalQueue.evictLeastAccessedEntries " + CACHE_UPSTREAM
    ) in out


LOCKSTEP = [
    ("txlog-writer", "reference-pip160", 'rule: spec/txlog_writer/SPEC.md §1 "then is written alone, unbatched"'),
    ("cursor-state", "reference-pip381", 'rule: spec/cursor_state/SPEC.md §3 "NoLedger": createNewMetadataLedger'),
]


@pytest.mark.parametrize(("system", "adapter", "rule"), LOCKSTEP, ids=[system for system, _, _ in LOCKSTEP])
def test_a_lockstep_counterexample_shows_its_config_and_rule_everywhere(
    system: str, adapter: str, rule: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """conform (plain), its HTML and the replay of its JSON: the config, the diff from defaults, the rule."""
    report, page = tmp_path / "r.json", tmp_path / "r.html"
    argv = ["conform", "--system", system, "--adapter", adapter, "--profile", "pulsar-master", "--seed", "1"]
    assert main([*argv, "--plain", "--json", str(report), "--html", str(page)]) == 1
    out = capsys.readouterr().out
    config = json.loads(report.read_text())["counterexample"]["config"]
    shown = ", ".join(f"{k} {str(v).lower() if isinstance(v, bool) else v}" for k, v in config.items())
    assert f"  config: {shown}\n  differs from the {system} pulsar-master defaults: " in out
    assert f"    {rule}" in out
    drawn = html.unescape(page.read_text(encoding="utf-8"))
    assert f"config: {shown}" in drawn
    assert f"differs from the {system} pulsar-master defaults: " in drawn
    assert rule in drawn
    assert main(["replay", str(report), "--adapter", adapter]) == 1
    replayed = capsys.readouterr().out
    assert f"  config: {shown}\n  differs from the {system} pulsar-master defaults: " in replayed
    assert f"  {rule}" in replayed


def test_the_rich_lockstep_table_shows_the_config_and_the_rule() -> None:
    """The terminal's table of a txlog counterexample: a large record the writer batched (pip160's rule)."""
    config = txlog.WriterConfig(max_size=16)
    model = txlog.init("pulsar-master", config)
    op = txlog.Add(size=16)
    after, expected = txlog.step(model, op)
    check = next(inv for inv in txlog.INVARIANTS if inv.id == "TXLOG-MODEL").check
    message = check(txlog.Step(model, after, op, [["write", 0, [1], True, "max_size"]], expected))
    assert message is not None
    report = Report("txlog-writer", "pulsar-master", 1, "quick", ["TXLOG-MODEL"])
    report.violation = Violation("TXLOG-MODEL", message, config, [op])
    drawn = rendered(lockstep_table(report))
    assert "config: batch_enabled true, max_records 4, max_size 16, max_delay 5" in drawn
    assert "differs from the txlog-writer pulsar-master defaults: max_size 16 (default 64)" in drawn
    assert 'rule: spec/txlog_writer/SPEC.md §1 "then is written alone, unbatched"' in drawn


def test_the_fields_a_cache_counterexample_shows_are_spec_md_s_used_by_column() -> None:
    """``USED_BY`` (what the config line shows per profile) is SPEC.md §1.2's table, row by row."""
    spec = (Path(__file__).parents[2] / "spec" / "cache" / "SPEC.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \|.*\| ([^|]+) \|$", spec.split("### 1.2")[1].split("\n\n**Named")[0], re.MULTILINE)
    assert {name for name, _ in rows} == set(FIELDS)
    for name, used_by in rows:
        for profile, fields in USED_BY.items():
            assert (name in fields) == ("all" in used_by.split() or profile in used_by), (name, profile)
