"""Argument parsing, subcommand discovery, and turning errors into diagnostics and exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points

from ledgerspec.conformance._version import VERSION

EXIT_OK = 0
"""Pass / OK."""
EXIT_FAIL = 1
"""A conformance failure or a trace violation."""
EXIT_USAGE = 2
"""Usage or input error: bad option, unknown adapter, malformed file."""
EXIT_ADAPTER_FAULT = 3
"""Adapter fault, or a trace verdict of UNKNOWN."""

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]  # noqa: SLF001 - argparse has no public type for it


def build_parser() -> argparse.ArgumentParser:
    """The parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="ledgerspec",
        description="Executable specification and conformance suite for Pulsar's PIP-430 entry cache.",
    )
    parser.add_argument("--version", action="version", version=f"ledgerspec {VERSION}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in _registrations():
        register(subcommands)
    return parser


def _registrations() -> list[Register]:
    found = sorted(entry_points(group="ledgerspec.commands"), key=lambda ep: ep.name)
    return [ep.load() for ep in found]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; errors become a diagnostic on stderr and an exit code, never a traceback."""
    parser = build_parser()
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
