"""The real code's verdicts are what DEVIATIONS.md says they are (issue 14, part 5).

Every real target runs at `ci` settings on both presets, with the seed of the committed section: it
must PASS, or FAIL with exactly its declared deviations, and the committed table must say so. A new
upstream behaviour, or a regression of a harness, turns this red. Each declared deviation is searched
for alone (or, where the pinned search misses it, its committed case is taken), and its counterexample
must fail on the real code and pass on the profile's reference.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ledgerspec.conformance.cache._real import PRESETS, REAL_TARGETS, deviation_case, run_target, surprises
from ledgerspec.conformance.cache._real_deviations import real_section, verdict_tables
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import load_adapter

ROOT = Path(__file__).resolve().parents[2]
SECTION = real_section((ROOT / "DEVIATIONS.md").read_text(encoding="utf-8"))
CI_TABLE = verdict_tables(SECTION).get("ci", "")
SEED = int(re.search(r"seed (\d+), both presets", CI_TABLE).group(1)) if CI_TABLE else 2
RUNS = [(target, preset) for target in REAL_TARGETS for preset in PRESETS]
DECLARED = [(target, deviation) for target in REAL_TARGETS for deviation in target.deviations]


def committed_row(label: str, preset: str) -> list[str]:
    for line in CI_TABLE.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 6 and cells[0] == label and cells[3] == preset:
            return cells
    pytest.fail(f"DEVIATIONS.md's ci table has no real-code row for {label}, preset {preset}")


@pytest.mark.parametrize(("target", "preset"), RUNS, ids=[f"{t.label}-{p}" for t, p in RUNS])
def test_the_real_target_gets_the_verdict_deviations_md_declares(target, preset):
    report = run_target(target, preset=preset, settings="ci", seed=SEED)
    assert surprises(target, report) == []  # a CACHE-MODEL failure passes only as a declared deviation
    failed = [row.invariant for row in report.failed()]  # in the catalogue's order, as the table lists them
    assert set(failed) - {"CACHE-MODEL"} <= {d.invariant for d in target.deviations}
    cells = committed_row(target.label, preset)
    assert cells[4] == report.verdict, f"committed verdict {cells[4]}, now {report.verdict}"
    assert cells[5] == (", ".join(f"`{i}`" for i in failed) or "none")


def test_each_declared_deviation_is_found_and_replays_against_the_real_code_only():
    for target, deviation in DECLARED:
        case = deviation_case(target, deviation, settings="ci", seed=SEED)
        assert case is not None, f"{deviation.key} ({deviation.invariant}) was not found"
        assert replay(case, load_adapter(target.adapter)).verdict == "FAIL"
        assert replay(case, load_adapter(f"reference-{target.profile}"), every_invariant=True).verdict == "PASS"
        assert f"#### {deviation.key}: {deviation.title}" in SECTION
    if not DECLARED:
        assert "None: no real target does what its profile forbids." in SECTION
