"""Argument parsing, subcommand discovery, and turning errors into diagnostics and exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

EXIT_OK = 0
"""Pass / OK."""
EXIT_FAIL = 1
"""A conformance failure or a trace violation."""
EXIT_USAGE = 2
"""Usage or input error: bad option, unknown adapter, malformed file."""
EXIT_ADAPTER_FAULT = 3
"""Adapter fault, or a trace verdict of UNKNOWN."""

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]  # noqa: SLF001 - argparse has no public type for it

DESCRIPTION = """\
Executable specification and conformance suite of three Apache Pulsar storage systems, each with
its profiles (--system of conform, replay, smoke, matrix, mutants, spec show, traces, bench, run):
  cache         the broker entry cache (PIP-430): pip430, pulsar-master, legacy, segmented (the default)
  cursor-state  a managed cursor's persisted acknowledgement state (PIP-381): pip381, pulsar-master
  txlog-writer  the transaction-log buffered writer (PIP-160): pip160, pulsar-master
"""
CLI, TRACES = "ledgerspec.conformance.cli.", "ledgerspec.traces."
COMMANDS: dict[str, tuple[str, str]] = {
    "adapters": (f"{CLI}_conform:register", "list every system's adapters"),
    "bench": (f"{CLI}_bench:register", "benchmark the reference, lockstep runs and the process protocol"),
    "conform": (f"{CLI}_conform:register", "check an adapter of any system against a profile"),
    "deviations": (f"{CLI}_deviations:register", "regenerate DEVIATIONS.md from the suite's own findings"),
    "harness": (f"{CLI}_harness:register", "build the harnesses of the real Pulsar and BookKeeper code"),
    "matrix": (f"{CLI}_conform:register", "every installed adapter of a system against each of its profiles"),
    "mutants": (f"{CLI}_mutants:register", "check that the suite kills every mutant of a system's reference"),
    "replay": (f"{CLI}_conform:register", "re-run a saved case against an adapter"),
    "run": (f"{TRACES}_main_job:register", "the main job: reference conformance, the sample traces, the real code"),
    "simulate": (f"{TRACES}cache.simulate._cli:register", "what PIP-430 would change: each cache profile on a load"),
    "smoke": (f"{CLI}_conform:register", "check that an adapter of any system is wired right (not a verdict)"),
    "spec": (f"{CLI}_spec_show:register", "the executable specification of each system"),
    "traces": (f"{TRACES}_cli:register", "generate, record and check traces of any system"),
}
"""Each built-in command: the ``ledgerspec.commands`` entry point that adds it (pyproject.toml; a test
keeps the two equal) and its line in ``--help``. Known here so that ``--version``, ``--help`` and a
usage error import only the command asked for, not Hypothesis, pandas and pyarrow with every other."""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser: the command named in ``argv`` registered by its own module, every other one a stub.

    With no ``argv`` (or a command of another package's entry point) every command is registered.
    """
    parser = argparse.ArgumentParser(
        prog="ledgerspec", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the installed version and exit")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    named = next((arg for arg in argv or () if not arg.startswith("-")), None)
    wanted = COMMANDS[named][0] if named in COMMANDS else None
    if argv is None:
        registrations = _registrations(builtin=True)
    elif named is not None and wanted is None:
        registrations = _registrations(builtin=False)  # another package's command, or a typo
    else:
        registrations = [_load(wanted)] if wanted else []
    for register in registrations:
        register(subcommands)
    for name, (_, help_line) in sorted(COMMANDS.items()):
        if name not in subcommands.choices:
            subcommands.add_parser(name, help=help_line, add_help=False)  # a stub: its module is not loaded
    return parser


class _Version(argparse.Action):
    """``--version``: the version is read only when asked for (conformance/_version.py)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from ledgerspec.conformance._version import VERSION  # noqa: PLC0415

        print(f"ledgerspec {VERSION}")  # on stdout, as argparse's own version action
        parser.exit()


def _load(target: str) -> Register:
    """A ``module:attr`` as an entry point names it."""
    import importlib  # noqa: PLC0415

    module, _, attr = target.partition(":")
    register: Register = getattr(importlib.import_module(module), attr)
    return register


def _registrations(*, builtin: bool) -> list[Register]:
    """The ``ledgerspec.commands`` entry points: every one, or (not ``builtin``) other packages' only."""
    from importlib.metadata import entry_points  # noqa: PLC0415 - only for a command not of COMMANDS

    ours = {target for target, _ in COMMANDS.values()}
    found = sorted(entry_points(group="ledgerspec.commands"), key=lambda ep: ep.name)
    return [ep.load() for ep in found if builtin or ep.value not in ours]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; errors become a diagnostic on stderr and an exit code, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as Unix tools do.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115, PTH123 - must outlive this frame
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - the one place that turns errors into diagnostics
        code, status = classify(error)
        hint = (
            type(error).__doc__
            if code != "internal-error"
            else ("a bug in ledgerspec; rerun with LEDGERSPEC_DEBUG=1 for the traceback and report it")
        )
        diagnose(code, f"{type(error).__name__}: {error}" if code == "internal-error" else str(error), hint)
        return status


def classify(error: Exception) -> tuple[str, int]:
    """A stable diagnostic code and the exit status for an error.

    Every package's errors carry ``code`` and ``exit_status`` class attributes, so this needs to
    import none of them (traces is downstream of conformance).
    """
    status = getattr(type(error), "exit_status", None)
    if isinstance(status, int):
        return str(getattr(type(error), "code", type(error).__name__)), status
    if isinstance(error, OSError):
        return "io-error", EXIT_USAGE
    if os.environ.get("LEDGERSPEC_DEBUG"):
        raise error
    return "internal-error", EXIT_USAGE


def diagnose(code: str, message: str, hint: str | None) -> None:
    """Print ``error[code]: message`` and the first paragraph of the error's docstring as a hint."""
    print(f"error[{code}]: {message}", file=sys.stderr)
    if hint:
        first = " ".join(hint.strip().split("\n\n")[0].split()).replace("``", "`")  # a docstring's markup
        print(f"  hint: {first}", file=sys.stderr)
