"""The command line starts cheap and says what it covers (ledgerspec issue 37, item 10).

``--version``, ``--help`` and a usage error import only the command asked for: never Hypothesis,
numpy, pandas or pyarrow (checked with ``-X importtime``, which lists every module imported: no clock).
The names the parser offers without importing the catalogues are kept equal to them here.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib.metadata import entry_points

import pytest
from ledgerspec.conformance import _names
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.cli._main import COMMANDS, build_parser

HEAVY = ("hypothesis", "numpy", "pandas", "pyarrow")


def imported(*argv: str) -> set[str]:
    """The top-level packages a ``ledgerspec`` command line imports, by ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ledgerspec.conformance.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {name.split(".")[0] for name in lines}


@pytest.mark.parametrize(
    "argv",
    [
        ("--version",),
        ("--help",),
        (),
        ("conform", "--bogus"),
        ("conform", "--profile", "pip160", "--adapter", "x"),
        ("spec", "show", "--bogus"),
        ("spec", "show", "--system", "cursor-state", "--profile", "pip430"),
        ("run", "--bogus"),
        ("traces", "--bogus"),
        ("traces", "check", "--bogus"),
        ("traces", "generate", "--bogus"),
        ("traces", "record", "--bogus"),
        ("simulate", "--bogus"),
        ("mutants", "--bogus"),
        ("deviations", "--bogus"),
        ("harness", "--bogus"),
        ("harness", "build", "--bogus"),
    ],
)
def test_version_help_and_usage_errors_import_no_heavy_package(argv):
    modules = imported(*argv)
    assert "ledgerspec" in modules  # the listing worked
    assert not modules & set(HEAVY), f"ledgerspec {' '.join(argv)} imported {sorted(modules & set(HEAVY))}"


def test_the_command_table_is_the_installed_entry_points():
    installed = {ep.value for ep in entry_points(group="ledgerspec.commands")}
    assert {target for target, _ in COMMANDS.values()} <= installed
    assert set(build_parser(None)._subparsers._group_actions[0].choices) == set(COMMANDS)


def test_the_names_offered_are_the_catalogues():
    from ledgerspec.conformance._settings import SETTINGS
    from ledgerspec.conformance.cache._presets import PRESETS
    from ledgerspec.conformance.systems import default, names, profiles_of
    from ledgerspec.spec import cursor_state
    from ledgerspec.spec import txlog_writer as txlog
    from ledgerspec.spec.cache import PROFILES

    assert set(_names.CACHE_PROFILES) == set(PROFILES)
    assert {"cache", "cursor-state", "txlog-writer"} <= set(names())  # the others: from the registry
    assert profiles_of("cursor-state") == cursor_state.PROFILES
    assert profiles_of("txlog-writer") == txlog.PROFILES
    assert {name: profiles_of(name) for name in _names.SHIPPED_PROFILES} == _names.SHIPPED_PROFILES
    assert default() == _names.DEFAULT_SYSTEM
    assert tuple(PRESETS) == _names.PRESET_NAMES
    assert tuple(SETTINGS) == _names.SETTINGS_NAMES


def test_help_describes_the_three_systems(capsys):
    for argv in (["--help"], ["conform", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        for system, pip in (("cache", "PIP-430"), ("cursor-state", "PIP-381"), ("txlog-writer", "PIP-160")):
            assert system in out, (argv, out)
            assert pip in out, (argv, out)


def test_conform_offers_only_the_chosen_systems_profiles(capsys):
    with pytest.raises(SystemExit):
        main(["conform", "--help"])
    out = capsys.readouterr().out
    assert "pip160" not in out.split("cache:")[1].split(";")[0]  # the cache's list has no other system's profile
    assert main(["conform", "--adapter", "reference-pip430", "--profile", "pip160"]) == 2
    err = capsys.readouterr().err
    assert "--profile pip160: a profile of the txlog-writer system, not of the cache system" in err
    assert main(["conform", "--system", "txlog-writer", "--adapter", "reference-pip160", "--profile", "pip430"]) == 2
    assert "--profile pip430: a profile of the cache system, not of the txlog-writer system" in capsys.readouterr().err


def test_the_names_traces_and_simulate_offer_are_their_sources():
    from ledgerspec.spec.cache import PROFILES
    from ledgerspec.traces import _cli
    from ledgerspec.traces import _names as traces_names
    from ledgerspec.traces.cache._generate import WORKLOADS
    from ledgerspec.traces.cache.simulate import _sweep as _simulate_sweep

    assert traces_names.GENERATE_WORKLOADS == WORKLOADS
    assert traces_names.SIMULATE_PROFILES == _simulate_sweep.PROFILES
    assert traces_names.SIMULATE_SIZES == _simulate_sweep.DEFAULT_SIZES
    assert set(_cli.PROFILES) == set(PROFILES)


@pytest.mark.parametrize(
    ("argv", "option", "choices"),
    [
        (["traces", "generate"], "--workload", ["tailing", "catchup", "key-shared", "fanout", "mixed", "edge"]),
        (["traces", "generate"], "--profile", ["legacy", "pip430", "pulsar-master", "segmented"]),
        # fifo-queue and its profile fifo: the test-only system tests/conftest.py registers
        (["traces", "record"], "--system", ["cache", "cursor-state", "fifo-queue", "txlog-writer"]),
        (
            ["traces", "record"],
            "--profile",
            ["fifo", "legacy", "pip160", "pip381", "pip430", "pulsar-master", "segmented"],
        ),
        (["traces", "check"], "--engine", ["local", "spark"]),
        (["mutants"], "--settings", ["quick", "ci", "thorough"]),
        (["mutants"], "--system", ["cache", "cursor-state", "fifo-queue", "txlog-writer"]),
        (["deviations"], "--settings", ["quick", "ci", "thorough"]),
        (["simulate"], "--engine", ["local", "spark"]),
    ],
)
def test_the_choices_offered_are_unchanged(argv, option, choices):
    parser = build_parser(argv)
    for name in argv:  # down to the (sub)command's own parser
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    (action,) = [a for a in parser._actions if option in a.option_strings]
    assert list(action.choices) == choices


def test_simulate_defaults_are_unchanged():
    parser = build_parser(["simulate"])
    args = parser.parse_args(["simulate"])
    assert args.profiles == "pip430,pulsar-master,legacy,segmented"
    assert args.cache_sizes == "2M,8M,32M,128M"
    assert args.workload == "catchup"
