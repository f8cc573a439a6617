"""The Java example adapter: built with plain javac (JDK 17 is on every CI machine) and checked by
the same suite as any other candidate, its managed-ledger layer included. No skip: a missing JDK is
a failure here."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ledgerspec.conformance.cache._bench import java_example_command
from ledgerspec.conformance.cache._case import load_case
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.conformance.cli import main
from ledgerspec.spec.cache import (
    EVICTED,
    Append,
    CacheConfig,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRead,
    CursorRemove,
    LedgerClose,
    Op,
    get_profile,
)

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> str:
    assert shutil.which("javac"), "javac (JDK 17) is required for the Java example"
    return java_example_command(tmp_path_factory.mktemp("java-build"))


def test_java_example_is_wired_right(harness, capsys):
    assert main(["smoke", "--adapter", harness, "--validate-protocol"]) == 0
    assert "java-example-pip430" in capsys.readouterr().out


@pytest.fixture(scope="module")
def report(harness, tmp_path_factory) -> dict[str, Any]:
    """One quick conformance run of the example against pip430, validating every protocol line."""
    out = tmp_path_factory.mktemp("java-report")
    status = main(
        [
            "conform",
            "--adapter",
            harness,
            "--profile",
            "pip430",
            "--settings",
            "quick",
            "--seed",
            "11",
            "--validate-protocol",
            "--json",
            str(out / "report.json"),
            "--cases-dir",
            str(out),
        ]
    )
    document: dict[str, Any] = json.loads((out / "report.json").read_text())
    document["exit"] = status
    return document


def test_java_example_conforms_to_pip430(report):
    assert report["exit"] == 0, report
    assert report["verdict"] == "PASS"
    assert report["adapter"]["language"] == "java"
    assert report["steps"] > 1000


LAYER = ("CACHE-APPEND-CACHING", "CACHE-BACKLOG-CACHING", "CACHE-BELOW-SLOWEST", "CACHE-LEDGER-CLOSE")


def test_java_example_checks_every_invariant_of_pip430_it_claims(report):
    """It claims managed_ledger and the observations pip430 has: nothing claimed is left unchecked."""
    assert set(report["adapter"]["capabilities"]) == {
        "configure",
        "cursors",
        "evict_bytes",
        "get_range",
        "managed_ledger",
        "observe_copies",
        "observe_counts",
        "observe_evictions",
        "observe_hit_bytes",
        "observe_non_evictable_size",
        "observe_timestamps",
        "remove_range",
        "switch_track_reads",
        "replay_increment",
    }
    statuses = {row["invariant"]: row["status"] for row in report["rows"]}
    for invariant in (*LAYER, "CACHE-STATISTICS", "CACHE-NON-EVICTABLE-SIZE"):
        assert statuses[invariant] == "pass", invariant
    assert set(statuses.values()) == {"pass", "not claimed"}, statuses


CONFIG = CacheConfig(max_size=1000, watermark=0.5, ttl=10, ttl_max=50)


def appended(now: int, entry: int) -> Append:
    return Append(now=now, ledger=1, entry=entry, size=10)


def cursor(now: int, name: str, entry: int) -> CursorAdd:
    return CursorAdd(now=now, ledger=1, cursor=name, entry=entry)


def lockstep(harness: str, ops: list[Op]) -> tuple[list[Any], Any]:
    """The example's results, each step's observation checked equal to the pip430 model's; the last one."""
    model = get_profile("pip430")
    factory = load_adapter(harness, validate_protocol=True)
    adapter = factory()
    try:
        adapter.start(CONFIG)
        state, results = model.init(CONFIG), []
        for op in ops:
            (outcome,) = model.step(state, op)
            state = outcome.state
            results.append(adapter.apply(op))
            assert results[-1] == outcome.result, op
            assert adapter.observe() == model.observe(state), op
        return results, adapter.observe()
    finally:
        factory.close()  # type: ignore[attr-defined]


def test_java_example_layer_tracking_mode(harness):
    """SPEC.md §3.2's example under pip430. Entries 0-4 are appended with no cursor: stored, not cached.
    c1 at 2 and c2 at 4; c1 reads to 3: (1,2) and (1,3) come from storage, cached with c1's count, 1 (only
    c1 is at or before 2), each handed to c1 as a copy (0 and 1) sharing that count; c1 moves to 4. An
    append now expects 2 reads (two active cursors). The close removes the ledger's three entries by
    force (EVICTED, seen through the open copies) and its cursors (count 0)."""
    ops = [
        *(appended(1 + entry, entry) for entry in range(5)),
        cursor(6, "c1", 2),
        cursor(7, "c2", 4),
        CursorRead(now=8, ledger=1, cursor="c1", last=3),
        CursorCount(now=9, ledger=1, cursor="c1"),
        appended(10, 5),
        LedgerClose(now=11, ledger=1),
        CursorCount(now=12, ledger=1, cursor="c1"),
    ]
    results, last = lockstep(harness, ops)
    assert results == [False] * 5 + [None, None, (0, 1), 2, True, None, 0]
    assert last.entries == ()
    assert last.copies == ((0, EVICTED), (1, EVICTED))
    assert (last.counters.inserted, last.counters.misses, last.counters.removed_invalidate) == (3, 2, 3)


def test_java_example_layer_legacy_mode(harness):
    """track_reads off: appends cached without a handler (count none) while a cursor is active; reads
    from storage are not cached. c1 and c2 at 0; (1,0)-(1,2) appended and cached. c1 reads 0-1 (two
    hits, copies 0 and 1) and moves to 2: c2 at 0 is still the slowest, nothing goes. c2 reads 0 (copy
    2) and moves to 1: the slowest moved, so (1,0) goes. c2 leaves: the slowest is c1 at 2, (1,1) goes.
    c1 leaves: no cursor is left, the ledger's cache is cleared, (1,2) goes."""
    ops = [
        Configure(now=1, track_reads=False),
        cursor(2, "c1", 0),
        cursor(3, "c2", 0),
        appended(4, 0),
        appended(5, 1),
        appended(6, 2),
        CursorRead(now=7, ledger=1, cursor="c1", last=1),
        CursorRead(now=8, ledger=1, cursor="c2", last=0),
        CursorRemove(now=9, ledger=1, cursor="c2"),
        CursorRemove(now=10, ledger=1, cursor="c1"),
    ]
    results, last = lockstep(harness, ops)
    assert results == [None, None, None, True, True, True, (0, 1), (2,), None, None]
    assert last.entries == ()
    assert last.copies == ((0, None), (1, None), (2, None))
    assert (last.counters.inserted, last.counters.hits, last.counters.removed_invalidate) == (3, 3, 3)


def test_java_example_layer_reads_one_bookkeeper_ledger_at_a_time(harness):
    """SPEC.md §3.2's read across a reopen: (1,0) and (1,1) appended with no cursor, a close, (1,2) appended
    (a new BookKeeper ledger). c2 at 0 reads 0 (copy 0) and is at 1. c4 at 0 reads 0-2 as two parts: 0-1
    (a hit, copy 1; then (1,1) from storage, copy 2, counted at 0: c4 alone, 1), then 2 counted with c4 at 2:
    c4 and c2, so (1,2) is cached with count 2 (copy 3). One read would have counted 1."""
    ops = [
        appended(1, 0),
        appended(2, 1),
        LedgerClose(now=3, ledger=1),
        appended(4, 2),
        cursor(5, "c2", 0),
        CursorRead(now=6, ledger=1, cursor="c2", last=0),
        cursor(7, "c4", 0),
        CursorRead(now=8, ledger=1, cursor="c4", last=2),
    ]
    results, last = lockstep(harness, ops)
    assert results[-1] == (1, 2, 3)
    assert [(e.entry, e.count) for e in last.entries] == [(0, 1), (1, 1), (2, 2)]


def test_java_example_passes_the_committed_pip430_cases(harness):
    cases = [load_case(p) for p in sorted(CASES.rglob("*.json"))]
    pip430 = [case for case in cases if case.profile == "pip430"]
    assert pip430
    for case in pip430:
        outcome = replay(case, load_adapter(harness), every_invariant=True)
        assert outcome.verdict == "PASS", outcome.render()


def test_java_example_cursor_read_dispatches_hits_first(harness):
    """(1,0) is appended with no cursor (stored only); c1 arrives at 0; (1,1) is appended and cached
    expecting one read. c1 reads 0-1: the range read hits (1,1) first (copy 0, 10 hit bytes) and misses
    (1,0), which comes from storage, is cached with c1's count, 1, and handed over as copy 1: (1, 0)."""
    ops = [appended(1, 0), cursor(2, "c1", 0), appended(3, 1), CursorRead(now=4, ledger=1, cursor="c1", last=1)]
    results, last = lockstep(harness, ops)
    assert results == [False, None, True, (1, 0)]
    assert last.copies == ((0, 1), (1, 1))
    assert (last.counters.hits, last.counters.misses, last.counters.hit_bytes) == (1, 1, 10)


README = Path(__file__).resolve().parents[2] / "conformance" / "adapters" / "java-example" / "README.md"


def test_java_example_readme_sessions_print_what_it_says(harness):
    """Each by-hand session of the README (a ``sh`` block piping requests into the harness, then the
    block of what it prints) prints exactly that, run against the build of this test."""
    build = harness.split(" -cp ", 1)[1].split(" ", 1)[0]
    blocks = re.findall(r"```(\w*)\n(.*?)```", README.read_text(), re.DOTALL)
    sessions = [
        (command, printed)
        for (kind, command), (next_kind, printed) in itertools.pairwise(blocks)
        if kind == "sh" and next_kind == "" and "| java -cp" in command
    ]
    assert len(sessions) == 2
    for command, printed in sessions:
        here = command.replace("java -cp conformance/adapters/java-example/build", f"java -cp {build}")
        done = subprocess.run(["bash", "-c", here], capture_output=True, text=True, check=True, timeout=60)
        expected = [line for line in printed.splitlines() if not line.endswith(": exiting")]
        assert done.stdout.splitlines() == expected
