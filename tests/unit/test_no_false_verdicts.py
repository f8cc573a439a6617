"""No verdict without a check, and no fault blamed on the wrong party (issue 16, item 6).

Each test reproduces one way the suite used to say PASS having checked nothing, blame the adapter
for bad input, or crash on bad input, and pins the exit code and the message that names the place.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
from pathlib import Path

import pytest
from ledgerspec.conformance import InputError
from ledgerspec.conformance.cache._case import NO_STEPS, load_case
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache._replay import ReplayOutcome
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.conformance.cli import main
from ledgerspec.spec.cache import CacheConfig, GetRange, Insert, Monitor, get_profile

FINDINGS = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "findings"


def without(*capabilities: str):
    """A factory of the pulsar-master reference that does not claim ``capabilities``."""

    def factory() -> ReferenceAdapter:
        adapter = ReferenceAdapter("pulsar-master", name="blind-pulsar-master")
        adapter.info = dataclasses.replace(adapter.info, capabilities=adapter.info.capabilities - set(capabilities))
        return adapter

    return factory


def test_an_invariant_the_profile_does_not_claim_is_a_usage_error(tmp_path, capsys):
    argv = ["conform", "--adapter", "reference-segmented", "--invariant", "CACHE-TTL", "--cases-dir", str(tmp_path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    assert "--invariant CACHE-TTL: profile segmented does not claim it" in captured.err
    assert "Traceback" not in captured.err


def test_an_invariant_the_adapter_cannot_show_is_a_usage_error():
    with pytest.raises(InputError, match=r"--invariant CACHE-FIFO: blind-pulsar-master .* observe_timestamps"):
        conform(without("observe_timestamps"), invariants=["CACHE-FIFO"], examples=5, seed=1)


def test_replaying_a_case_the_adapter_cannot_check_is_a_usage_error(capsys):
    # L2 is a CACHE-FIFO case; the segmented reference shows no timestamps, which its check needs.
    assert main(["replay", str(FINDINGS / "l2-cache-fifo.json"), "--adapter", "reference-segmented"]) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    assert "l2-cache-fifo.json: CACHE-FIFO cannot be checked with reference-segmented" in captured.err
    assert "observe_timestamps" in captured.err


def test_replaying_a_case_whose_profile_does_not_claim_its_invariant_is_a_usage_error(tmp_path, capsys):
    document = json.loads((FINDINGS / "l2-cache-fifo.json").read_text())
    document["profile"] = "segmented"
    case = tmp_path / "odd.json"
    case.write_text(json.dumps(document))
    assert main(["replay", str(case), "--adapter", "reference-segmented"]) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    assert "odd.json: invariant CACHE-FIFO is not claimed by profile segmented" in captured.err


def test_a_case_checkable_in_part_still_checks_its_own_invariant(tmp_path):
    # The legacy reference shows no read counts: with --all, the invariants that need them are listed
    # as not checkable, and the case's own invariant (which needs none) decides the verdict.
    source = FINDINGS / "l2-cache-fifo.json"
    shutil.copy(source, tmp_path / "l2.json")
    assert main(["replay", str(tmp_path / "l2.json"), "--adapter", "reference-legacy", "--all"]) == 1


class _ListRanges(ReferenceAdapter):
    """The pip430 reference, answering range reads with a list (as JSON would) instead of a tuple."""

    def __init__(self) -> None:
        super().__init__("pip430", name="list-ranges")

    def apply(self, op):
        result = super().apply(op)
        return list(result) if isinstance(result, tuple) else result


def test_a_range_read_answered_as_a_list_is_the_same_answer():
    report = conform(_ListRanges, profile="pip430", settings="quick", seed=3)
    assert report.verdict == "PASS", [(row.invariant, row.detail) for row in report.failed()]
    assert report.steps > 0


def test_a_range_read_list_is_still_compared_by_value():
    config = CacheConfig(max_size=100)
    model = get_profile("pip430")
    ops = [Insert(now=1, ledger=1, entry=0, size=10, expected_reads=1), GetRange(now=2, ledger=1, first=0, last=1)]
    outcomes = []
    for answer in ([0, None], [None, None], (0, None)):
        monitor = Monitor("pip430", config, invariants=["CACHE-MODEL"])
        state = model.init(config)
        found = []
        for op, result in zip(ops, [True, answer], strict=True):
            (outcome,) = model.step(state, op)
            state = outcome.state
            found += monitor.check(op, result, model.observe(state))
        outcomes.append(bool(found))
    assert outcomes == [False, True, False]


def _case_with(tmp_path: Path, name: str, **changes) -> Path:
    document = json.loads((FINDINGS / "d4-cache-duplicate-merge.json").read_text())
    document.update(changes)
    document = {key: value for key, value in document.items() if value is not None}
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


INSERT = {"op": "insert", "now": 1, "ledger": 1, "entry": 0, "size": 1, "expected_reads": 1}


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("binary.json", bytes(range(256)), "binary.json: not UTF-8 text (byte 128)"),
        ("bom.json", b"\xff\xfe{}", "bom.json: not UTF-8 text (byte 0)"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "deep.json: nested too deeply"),
        ("huge.json", b'{"steps": [' + b"9" * 5000 + b"]}", "huge.json: not a case: Exceeds the limit (4300 digits)"),
    ],
)
def test_an_unreadable_case_file_is_an_input_error_naming_it(tmp_path, capsys, name, content, message):
    """The same for a cache case (``replay``) and a lockstep system's (``traces record --case``): one reader."""
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["replay", str(path), "--adapter", "reference-pip430"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "internal-error" not in err
    argv = ["traces", "record", "--system", "cursor-state", "--adapter", "reference-pulsar-master", "--case", str(path)]
    assert main([*argv, "--out", str(tmp_path / "t.jsonl")]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "internal-error" not in err


@pytest.mark.parametrize(
    ("name", "changes", "message"),
    [
        (
            "clock.json",
            {"steps": [INSERT, {**INSERT, "now": 1, "entry": 1}]},
            "clock.json: steps[1]: now 1 is not after the previous step's 1 (the clock strictly increases)",
        ),
        (
            "cursor.json",
            {"steps": [{"op": "cursor_remove", "now": 1, "ledger": 1, "cursor": "c9"}]},
            "cursor.json: steps[0]: cursor 'c9' of ledger 1 is not active",
        ),
        (
            "twice.json",
            {"steps": [{"op": "cursor_add", "now": t, "ledger": 1, "cursor": "c", "entry": 0} for t in (1, 2)]},
            "twice.json: steps[1]: cursor 'c' of ledger 1 is already active",
        ),
        ("failing.json", {"steps": [INSERT], "failing_step": 9}, "failing.json: failing_step 9 is past the 1 steps"),
        (
            "expected.json",
            {"steps": [INSERT], "failing_step": 1},
            "expected.json: expected lists 2 steps, the case has 1",
        ),
        # No steps only for an adapter fault with no step taken (failing_step 0), and then no invariant.
        (
            "empty.json",
            {"steps": [], "failing_step": None, "expected": None, "invariant": None},
            f"empty.json: at steps: [] should be non-empty ({NO_STEPS})",
        ),
        (
            "empty-vector.json",
            {"steps": [], "failing_step": 1, "expected": None},
            f"empty-vector.json: at steps: [] should be non-empty ({NO_STEPS})",
        ),
        (
            "zero.json",
            {"steps": [INSERT], "failing_step": 0, "expected": None, "invariant": None},
            f"is expected to be empty ({NO_STEPS})",
        ),
        (
            "invariant.json",
            {"steps": [], "failing_step": 0, "expected": None},
            f"invariant.json: at invariant: 'CACHE-DUPLICATE-MERGE' should not be valid under {{}} ({NO_STEPS})",
        ),
    ],
)
def test_an_impossible_case_is_an_input_error_not_an_adapter_fault(tmp_path, capsys, name, changes, message):
    path = _case_with(tmp_path, name, **changes)
    assert main(["replay", str(path), "--adapter", "reference-pip430"]) == 2
    err = capsys.readouterr().err
    assert message in err


def test_a_case_of_a_fault_with_no_step_taken_replays_start_configure_and_stop(tmp_path, capsys):
    # What conform saves when an adapter faults at start or configure: replayed by the printed command, it runs.
    changes = {"steps": [], "failing_step": 0, "expected": None, "invariant": None, "message": "configure (seq 2): x"}
    path = _case_with(tmp_path, "fault.json", **changes)
    assert load_case(path).failing_step == 0
    assert main(["replay", str(path), "--adapter", "reference-pip430"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS: ")
    assert "no steps: the adapter started, was configured and stopped without a fault (the case recorded one)" in out


def test_a_release_of_a_copy_the_adapter_never_dispatched_is_an_input_error(tmp_path, capsys):
    steps = [INSERT, {"op": "get", "now": 2, "ledger": 1, "entry": 5}, {"op": "release", "now": 3, "copy": 0}]
    path = _case_with(tmp_path, "copy.json", steps=steps, failing_step=None, expected=None)
    assert main(["replay", str(path), "--adapter", "reference-pip430", "--all"]) == 2
    err = capsys.readouterr().err
    assert (
        "copy.json: steps[2] (Release(now=3, copy=0)): copy 0 is not open: reference-pip430 holds none open here" in err
    )


def test_a_replayed_fault_is_shown_cut():
    case = load_case(FINDINGS / "d4-cache-duplicate-merge.json")
    fault = "AdapterErrored: " + "x" * 1_000_000 + "\n" + "trace line\n" * 100
    shown = ReplayOutcome(case=case, adapter="a", fault=fault).render()
    assert len(shown) < 5_000
    assert "(999,516 more characters)" in shown
    assert "(85 more lines)" in shown  # 15 of the 100 lines after the first are shown
    assert shown.count("trace line") == 15


NUMBERS = [
    (["conform", "--adapter", "reference-pip430"], "--timeout", ["-1", "0", "nan", "inf", "soon"]),
    (["conform", "--adapter", "reference-pip430"], "--examples", ["-5", "0", "1.5"]),
    (["conform", "--adapter", "reference-pip430"], "--seed", ["-1", "x"]),
    (["replay", "case.json", "--adapter", "reference-pip430"], "--timeout", ["-1", "nan"]),
    (["smoke", "--adapter", "reference-pip430"], "--timeout", ["0"]),
    (["matrix"], "--examples", ["0"]),
    (["matrix"], "--seed", ["-2"]),
    (["mutants"], "--seeds", ["0", "-1", "1.5", "many"]),
    (["mutants"], "--seed", ["-1"]),
    (["mutants"], "--jobs", ["0", "-2", "two"]),
    (["deviations"], "--seed", ["-1"]),
    (["bench"], "--operations", ["0"]),
    (["run"], "--seed", ["-1"]),
    (["traces", "generate", "--out", "t.jsonl"], "--brokers", ["0"]),
    (["traces", "generate", "--out", "t.jsonl"], "--topics", ["0"]),
    (["traces", "generate", "--out", "t.jsonl"], "--events", ["-3", "0"]),
    (["traces", "generate", "--out", "t.jsonl"], "--processes", ["0"]),
    (["traces", "generate", "--out", "t.jsonl"], "--seed", ["-1"]),
    (["traces", "check", "t.jsonl"], "--budget", ["0", "-1", "nan"]),
    (["traces", "record", "--adapter", "reference-pip430", "--out", "t.jsonl"], "--events", ["0"]),
    (["traces", "record", "--adapter", "reference-pip430", "--out", "t.jsonl"], "--seed", ["-1"]),
    (["traces", "bench"], "--events", ["0"]),
    (["traces", "bench"], "--brokers", ["0"]),
    (["traces", "bench"], "--processes", ["0"]),
]


@pytest.mark.parametrize(
    ("argv", "option", "value"),
    [(argv, option, value) for argv, option, values in NUMBERS for value in values],
    ids=lambda part: " ".join(part) if isinstance(part, list) else part,
)
def test_a_bad_number_is_a_usage_error_naming_the_option(argv, option, value, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # were the number taken, nothing would be written into the checkout
    with pytest.raises(SystemExit) as raised:
        main([*argv, option, value])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: expected a " in err
    assert repr(value) in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "target", "problem"),
    [
        ("--json", "missing/report.json", "its folder"),
        ("--junit-xml", "missing/report.xml", "its folder"),
        ("--json", ".", "is a folder"),
        ("--cases-dir", "a-file", "exists and is not a folder"),
        ("--cases-dir", "a-file/cases", "cannot be created: "),
        ("--html", "", "an empty path"),
    ],
)
def test_an_output_path_is_checked_before_the_run(option, target, problem, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    argv = ["conform", "--adapter", "reference-pip430", "--examples", "200", "--settings", "thorough", option, target]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert f"{option} {target}: {problem}" in captured.err
    assert captured.out == "", "refused before any search"


@pytest.mark.parametrize(
    "argv",
    [
        ["matrix", "--json", "missing/m.json"],
        ["mutants", "--json", "missing/m.json"],
        ["deviations", "--output", "missing/D.md"],
        ["traces", "generate", "--out", "missing/t.jsonl"],
        ["traces", "record", "--adapter", "reference-pip430", "--out", "missing/t.jsonl"],
        ["traces", "check", "t.jsonl", "--json", "missing/r.json"],
        ["traces", "bench", "--json", "missing/b.json"],
        ["simulate", "--workload", "catchup", "--html", "missing/s.html"],
        ["conform", "--system", "txlog-writer", "--adapter", "reference-pip160", "--html", "missing/c.html"],
        ["mutants", "--system", "cursor-state", "--html", "missing/m.html"],
    ],
    ids=lambda argv: " ".join(argv[:2] if argv[1] != "--system" else argv[:3]),
)
def test_every_output_option_is_checked_first(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "missing/" in captured.err
    assert "does not exist" in captured.err
    assert captured.out == ""


def _replay_hints(out: str) -> list[list[str]]:
    hints = [line.split("replay: ", 1)[1] for line in out.splitlines() if line.strip().startswith("replay: ")]
    return [shlex.split(hint) for hint in hints]


def test_the_replay_hint_pastes_back_into_a_shell(tmp_path, capsys):
    cases = tmp_path / 'it\'s a "case" folder'
    argv = ["conform", "--adapter", "reference-pulsar-master", "--profile", "pip430", "--seed", "1"]
    assert main([*argv, "--invariant", "CACHE-DUPLICATE-MERGE", "--cases-dir", str(cases)]) == 1
    (hint,) = _replay_hints(capsys.readouterr().out)
    (saved,) = cases.glob("*.json")
    assert hint == ["ledgerspec", "replay", str(saved), "--adapter", "reference-pulsar-master"]
    assert main(hint[1:]) == 1


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a /proc file system (Linux)")
def test_a_file_that_cannot_be_created_is_refused_before_the_run_even_for_root(capsys):
    # os.access says a folder of /proc is writable for root; making the file says otherwise.
    assert main(["simulate", "--workload", "catchup", "--json", "/proc/ledgerspec-s.json"]) == 2
    captured = capsys.readouterr()
    assert "--json /proc/ledgerspec-s.json: cannot be created" in captured.err
    assert captured.out == ""


def test_two_output_options_naming_one_file_are_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["conform", "--adapter", "reference-pip430", "--json", "r.out", "--html", "./r.out"]) == 2
    captured = capsys.readouterr()
    assert "--html ./r.out: the same file as --json" in captured.err
    assert captured.out == ""


def test_a_field_the_checked_profile_does_not_have_is_not_compared(tmp_path, capsys):
    """pulsar-master's cache checked as pip430: its queue length, requeues and accessed flags are fields pip430
    lacks, so CACHE-MODEL compared them with nothing and failed at the first insert; now both sides blank them."""
    steps = [{"op": "insert", "now": 1, "ledger": 3, "entry": 68, "size": 1, "expected_reads": 1}]
    path = _case_with(tmp_path, "cross.json", steps=steps, failing_step=None, expected=None, invariant="CACHE-MODEL")
    data = json.loads(path.read_text())
    data["profile"] = "pip430"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path), "--adapter", "reference-pulsar-master"]) == 0, capsys.readouterr().out
    report = conform(lambda: ReferenceAdapter("pulsar-master"), profile="pip430", seed=1, invariants=["CACHE-MODEL"])
    assert report.verdict == "FAIL"  # the two profiles do differ (D1-D12), on what pip430 has
    assert "queue_length" not in report.row("CACHE-MODEL").detail
