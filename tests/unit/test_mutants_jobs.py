"""``ledgerspec mutants --jobs N``: the searches in N processes, the output as with one."""

from __future__ import annotations

import json
import time

import pytest
from ledgerspec.conformance._jobs import ordered_map
from ledgerspec.conformance.cli import main


def _slow_square(n: int) -> int:
    time.sleep(0.05 * (3 - n))  # the first task finishes last
    return n * n


def test_results_come_back_in_task_order():
    assert list(ordered_map(_slow_square, range(4), jobs=2)) == [0, 1, 4, 9]
    assert list(ordered_map(_slow_square, range(4), jobs=1)) == [0, 1, 4, 9]


def _timeless(document: object) -> object:
    """The document without wall times: the only part two runs may differ in."""
    if isinstance(document, dict):
        return {k: _timeless(v) for k, v in document.items() if "seconds" not in k}
    if isinstance(document, list):
        return [_timeless(v) for v in document]
    return document


@pytest.mark.parametrize(
    "argv",
    [
        ["mutants", "--mutant", "pip430-hit-not-counted", "--mutant", "segmented-no-align"],
        ["mutants", "--system", "cursor-state", "--mutant", "pip381-callback-on-first-chunk"],
    ],
    ids=["cache", "cursor-state"],
)
def test_two_jobs_give_the_output_of_one(argv, tmp_path, capsys):
    outputs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"m{jobs}.json"
        args = [*argv, "--settings", "quick", "--seed", "3", "--seeds", "2", "--jobs", jobs, "--json", str(out)]
        assert main(args) == 0
        printed = capsys.readouterr().out
        names = [line.split()[0] for line in printed.splitlines() if line.startswith(("pip", "segmented"))]
        outputs[jobs] = (names, _timeless(json.loads(out.read_text())))
    assert outputs["1"] == outputs["2"]
    assert outputs["2"][0] == [name for name in argv if name.startswith(("pip", "segmented"))]


def test_more_jobs_than_tasks_or_cores_run_no_more_processes_than_useful():
    assert list(ordered_map(_slow_square, range(3), jobs=100_000)) == [0, 1, 4]


def test_another_systems_matrix_refuses_the_caches_path_option(capsys):
    assert main(["mutants", "--system", "txlog-writer", "--path", "nowhere.py"]) == 2
    assert "--path nowhere.py" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "found"),
    [("{'a': 1}", "found a dict"), ("{}", "found a dict"), ("[]", "found an empty one"), (None, "found none")],
)
def test_a_module_without_a_list_of_mutants_is_told_what_one_is(tmp_path, capsys, value, found):
    module = tmp_path / "mine.py"
    module.write_text("" if value is None else f"MUTANTS = {value}\n")
    assert main(["mutants", "--path", str(module)]) == 2
    err = capsys.readouterr().err
    assert "MUTANTS must be a non-empty list of mutants" in err
    assert "ledgerspec.conformance.cache.mutants.Mutant" in err
    assert found in err
