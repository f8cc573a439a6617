"""The harnesses of the real Pulsar and BookKeeper code: built with Maven, started, faulted, timed out.

Java 17 and Maven are on every CI machine (.ci/run); a missing tool is a failure here, never a skip.
What each real target's verdict must be is pinned in tests/slow/test_real_verdicts.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ledgerspec.conformance.adapters._harness import HARNESSES, SOURCE, build, pom_properties
from ledgerspec.conformance.cache._case import Case
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.conformance.cli import main
from ledgerspec.spec.cache import CacheConfig, EvictBefore, EvictBytes, Insert, RemoveRange

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built() -> Path:
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"
    return build()


def test_the_build_lives_outside_the_source_tree(built):
    assert (built / "BUILT").exists()
    assert ROOT not in built.parents, "builds go to the cache, never into the checkout"
    assert not list(SOURCE.rglob("target")), "nothing is built inside the source tree"
    for harness in HARNESSES.values():
        assert (built / "real" / harness.module / "target" / "classpath.txt").exists()


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_each_harness_starts_and_names_the_real_code_it_drives(built, name):
    harness = HARNESSES[name]
    factory = load_adapter(name)
    try:
        info = factory().info
    finally:
        factory.close()
    assert info.name == name
    assert info.language == "java"
    assert info.profiles == (harness.profile,)
    assert harness.version in info.version
    assert harness.version == pom_properties()[harness.version_property]


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_each_harness_is_wired_right(built, name, capsys):
    assert main(["smoke", "--adapter", name, "--validate-protocol"]) == 0, capsys.readouterr().out


def test_an_exception_inside_the_real_code_is_an_adapter_fault_with_its_java_stack_trace(built, tmp_path, capsys):
    # ReadCache's index refuses a negative ledger id: ConcurrentLongLongPairHashMap.checkBiggerEqualZero. A case
    # file with one is bad input now (its steps are checked: tests/unit/test_bounds_and_handshakes.py), so the
    # operation is sent by replaying the case itself, as a runner with such a step would send it.
    case = Case(
        description="a negative ledger id reaches ReadCache.put",
        profile="segmented",
        config=CacheConfig(max_size=300, segment_size_max=128),
        steps=[Insert(now=1, ledger=-1, entry=0, size=10)],
    )
    outcome = replay(case, load_adapter("cache-bookkeeper-read-cache-4.17.3"))
    out = outcome.render()
    assert outcome.exit_status == 3, out
    assert "IllegalArgumentException" in out
    assert "at org.apache.bookkeeper.util.collections.ConcurrentLongLongPairHashMap" in out
    path = tmp_path / "negative-ledger.json"
    path.write_text(case.dumps(), encoding="utf-8")
    assert main(["replay", str(path), "--adapter", "cache-bookkeeper-read-cache-4.17.3"]) == 2
    assert "steps[0]: field 'ledger' of insert: must be >= 0, got -1" in capsys.readouterr().err


def test_a_harness_that_does_not_answer_in_time_is_killed(built, tmp_path):
    # --timeout 0.001: the JVM cannot even answer `start` in time
    done = subprocess.run(
        [sys.executable, "-m", "ledgerspec.conformance.cli", "conform", "--adapter", "cache-range-cache-4.2.4",
         "--timeout", "0.001", "--cases-dir", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "error[adapter-timeout]" in done.stderr
    assert "no reply within 0.001 s; killed" in done.stderr
    assert "Traceback" not in done.stderr


def test_without_java_or_maven_a_harness_is_a_clear_input_error(tmp_path):
    # A PATH with python only, and an empty cache: the first use would have to build.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bin_dir), "LEDGERSPEC_HARNESS_CACHE": str(tmp_path / "cache")}
    for command in (["conform", "--adapter", "cache-entry-cache-manager-4.0.8"], ["harness", "build"]):
        done = subprocess.run(
            [sys.executable, "-m", "ledgerspec.conformance.cli", *command],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert "java (JDK 17) and mvn (Maven 3.8+)" in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["cache-range-cache-4.2.4", "cache-entry-cache-manager-4.2.4"])
def test_the_removals_and_the_queue_observations_are_the_real_codes(built, name):
    """Hand-traced against managed-ledger 4.2.4, and the same as the reference of pulsar-master.

    (1,0)..(1,3) of 10 bytes at 1..4, no expected reads (no handler: getNonEvictableSize counts each, E5).
    remove_range(1, 1, 1, inclusive) frees [1, 10] and leaves a tombstone: 3 cached, queue 4.
    evict_bytes(10): (1,0) goes (10 >= 10), the tombstone behind it is MISSING before the STOP test and
    is dropped too, (1,2) stops the pass: [1, 10], queue 2. evict_before(4): (1,2) stamped 3 < 4 goes,
    (1,3) stamped 4 stops it: [1, 10], queue 1, non-evictable 10.
    """
    ops = [Insert(now=i + 1, ledger=1, entry=i, size=10, expected_reads=0) for i in range(4)]
    ops += [
        RemoveRange(now=5, ledger=1, first=1, last=1, inclusive=True),
        EvictBytes(now=6, bytes=10),
        EvictBefore(now=7, cutoff=4),
    ]
    seen = {}
    for adapter_name in (name, "reference-pulsar-master"):
        factory = load_adapter(adapter_name)
        try:
            adapter = factory()
            adapter.start(CacheConfig(max_size=1000, ttl=100))
            steps = [(adapter.apply(op), adapter.observe()) for op in ops]
            adapter.stop()
        finally:
            getattr(factory, "close", lambda: None)()
        seen[adapter_name] = [
            (None if r is None else list(r) if not isinstance(r, bool) else r, o.queue_length, o.non_evictable_size)
            for r, o in steps
        ]
    assert seen[name][4:] == [([1, 10], 4, 30), ([1, 10], 2, 20), ([1, 10], 1, 10)]
    assert seen[name] == seen["reference-pulsar-master"]


def test_the_legacy_harness_removes_through_the_real_range_cache(built):
    """managed-ledger 4.0.8: remove_range and evict_before return the real RangeCache's Pair.

    (1,0)..(1,2) of 10 at 1..3; remove_range(1, 0, 1, exclusive) frees (1,0): [1, 10]; evict_before(2)
    walks from the lowest position, removing ts <= 2 (legacy's <=): (1,1) goes, (1,2) stops: [1, 10].
    """
    ops = [Insert(now=i + 1, ledger=1, entry=i, size=10) for i in range(3)]
    ops += [RemoveRange(now=4, ledger=1, first=0, last=1, inclusive=False), EvictBefore(now=5, cutoff=2)]
    factory = load_adapter("cache-entry-cache-manager-4.0.8")
    try:
        adapter = factory()
        adapter.start(CacheConfig(max_size=1000, ttl=100))
        results = [adapter.apply(op) for op in ops]
        remaining = [entry.position for entry in adapter.observe().entries]
        adapter.stop()
    finally:
        factory.close()
    assert [list(r) for r in results[3:]] == [[1, 10], [1, 10]]
    assert remaining == [(1, 2)]
