"""The pytest plugin, run inside pytest's own pytester: one item per invariant, failures carry the
counterexample, unclaimed invariants are skipped with the reason, and nothing heavy loads without
the option."""

from __future__ import annotations

import subprocess
import sys

import pytest
from ledgerspec.spec.cache import CATALOGUE

pytest_plugins = ["pytester"]


def test_plugin_passes_a_conforming_adapter(pytester):
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--ledgerspec-adapter=reference-segmented",
        "--ledgerspec-seed=4",
        "--ledgerspec-examples=15",
        "-rs",
    )
    claimed = sum(invariant.claimed_by("segmented") for invariant in CATALOGUE)
    result.assert_outcomes(passed=claimed, skipped=len(CATALOGUE) - claimed)
    result.stdout.fnmatch_lines(["*not claimed (segmented)*"])


def test_plugin_fails_with_the_counterexample(pytester):
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--ledgerspec-adapter=reference-pulsar-master",
        "--ledgerspec-profile=pip430",
        "--ledgerspec-seed=1",
        "--ledgerspec-examples=30",
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 3
    result.stdout.fnmatch_lines(["*CACHE-DUPLICATE-MERGE*", "*breaks here*"])


def test_plugin_reports_an_unknown_adapter(pytester):
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ledgerspec-adapter=nope")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*unknown adapter 'nope'*"])


def test_plugin_adds_nothing_and_loads_nothing_without_the_option(pytester):
    pytester.makepyfile("def test_one():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    code = (
        "import sys, ledgerspec.conformance.cache.pytest_plugin;"
        "heavy = ('hypothesis', 'pyarrow', 'pyspark', 'ledgerspec.conformance.cache._engine');"
        "heavy = [m for m in heavy if m in sys.modules];"
        "print(heavy)"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_plugin_refuses_a_bad_number_before_running(pytester):
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--ledgerspec-adapter=reference-pip430", "--ledgerspec-examples=0"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --ledgerspec-examples: expected a whole number >= 1, got '0'*"])


@pytest.mark.parametrize("profile", ["pulsar_master", "pip381"])  # a typo; another system's profile
def test_plugin_refuses_a_profile_the_cache_lacks_before_running(pytester, profile):
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--ledgerspec-adapter=reference-pulsar-master", f"--ledgerspec-profile={profile}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*--ledgerspec-profile {profile}: the cache has profiles legacy, pip430, pulsar-master, segmented*"]
    )
    assert "skipped" not in result.stdout.str()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--ledgerspec-settings=turbo", "--ledgerspec-settings turbo: unknown settings 'turbo'; choose one of: *"),
        ("--ledgerspec-preset=huge", "--ledgerspec-preset huge: unknown preset 'huge'; choose one of: *"),
    ],
)
def test_plugin_refuses_an_unknown_preset_or_settings_before_running(pytester, option, message):
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ledgerspec-adapter=reference-pip430", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: ledgerspec: {message}"])
    assert "failed" not in result.stdout.str()


def test_plugin_reports_an_adapter_fault_up_front_without_a_traceback(pytester):
    # A well-formed option whose adapter misbehaves: not a usage error, a failure of every item,
    # each one line with the fault (the adapter starts once: the run is shared).
    pytester.makefile(".py", garbage="import sys\nfor line in sys.stdin:\n    print('not json', flush=True)\n")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--ledgerspec-adapter=exec:{sys.executable} garbage.py"
    )
    result.assert_outcomes(failed=len(CATALOGUE))
    result.stdout.fnmatch_lines(["*adapter fault: ProtocolViolation: start (seq 1): reply is not JSON*"])
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "UsageError" not in output
    assert len(result.outlines) < 6 * len(CATALOGUE)
