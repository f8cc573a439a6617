"""Checks of option values, made when the command line is parsed: before a run, never after it.

Numbers are argparse ``type`` functions, so a bad one is a usage error naming the option (exit 2)
instead of an internal error deep in the run, or a 0 quietly read as "the default". Output paths
are checked before the run starts, so that a typo does not cost a whole run and then fail.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from ledgerspec.conformance._errors import InputError


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number no smaller than ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


COUNT = at_least(1)
"""Examples, seeds to run, events, brokers, processes: at least one."""
SEED = at_least(0)
"""A seed: any whole number from 0 (the seeds ledgerspec draws and prints are in 0 .. 2**32 - 1)."""


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got {text!r}")
    return value


def output_problem(path: str | Path, *, directory: bool = False) -> str | None:  # noqa: PLR0911 - one return per kind of bad number, each with its own message
    """Why the run could not write ``path`` (a file, or a folder it may create), or None.

    A file needs an existing, writable parent folder and must not be a folder; a folder is created
    with its parents, so the nearest one that exists must be a writable folder.
    """
    if str(path).strip() == "":
        return "an empty path"
    path = Path(path)
    if directory:
        if path.exists():
            if not path.is_dir():
                return "exists and is not a folder"
            return None if os.access(path, os.W_OK | os.X_OK) else "is not writable"
        ancestor = next((parent for parent in path.absolute().parents if parent.exists()), None)
        if ancestor is None or not ancestor.is_dir():
            return f"cannot be created: {ancestor} is not a folder"
        return None if os.access(ancestor, os.W_OK | os.X_OK) else f"cannot be created: {ancestor} is not writable"
    if path.is_dir():
        return "is a folder"
    parent = path.absolute().parent
    if not parent.is_dir():
        return f"its folder {parent} does not exist"
    if path.exists():
        return None if os.access(path, os.W_OK) else "is not writable"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"its folder {parent} is not writable"
    return _cannot_create(path)


def _cannot_create(path: Path) -> str | None:
    """Why a new file cannot be made there, found by making it (and removing it).

    ``os.access`` says yes for root on a read-only or virtual file system (``/proc``), where the
    write at the end of the run would fail after all its work.
    """
    try:
        path.touch(exist_ok=False)
    except FileExistsError:
        return None
    except OSError as error:
        return f"cannot be created: {error.strerror or error}"
    path.unlink(missing_ok=True)
    return None


def check_outputs(args: argparse.Namespace, files: tuple[str, ...] = (), folders: tuple[str, ...] = ()) -> None:
    """Refuse, before any work, output options whose paths cannot be written (a usage error naming the option).

    Two options naming one file are refused too: the second write would replace the first.
    """
    given: dict[Path, str] = {}
    for name in files:
        value = getattr(args, name, None)
        if value is None or str(value).strip() == "":
            continue
        option = "--" + name.replace("_", "-")
        key = Path(value).absolute()
        if key in given:
            raise InputError(f"{option} {value}: the same file as {given[key]}; one would overwrite the other")
        given[key] = option
    for names, directory in ((files, False), (folders, True)):
        for name in names:
            value = getattr(args, name, None)
            if value is None:
                continue
            problem = output_problem(value, directory=directory)
            if problem:
                option = "--" + name.replace("_", "-")
                raise InputError(f"{option} {value}: {problem}")


def master_problem(args: argparse.Namespace) -> str | None:
    """Why ``--master`` would be ignored (None if not): it names a Spark cluster, only ``--engine spark`` uses one."""
    master, engine = getattr(args, "master", None), getattr(args, "engine", "local")
    if master is None or engine == "spark":
        return None
    return f"--master {master}: only with --engine spark; the {engine} engine runs in this process, without Spark"


class _Named(Protocol):
    @property
    def name(self) -> str: ...


NamedT = TypeVar("NamedT", bound=_Named)


def pick_named(items: Sequence[NamedT], wanted: Sequence[str] | None, source: str) -> list[NamedT]:
    """``items`` (mutants), only those ``wanted`` names if given; an unknown name is an input error naming them."""
    if not wanted:
        return list(items)
    unknown = sorted(set(wanted) - {item.name for item in items})
    if unknown:
        raise InputError(f"unknown mutant(s) {unknown}; {source} {[item.name for item in items]}")
    return [item for item in items if item.name in wanted]
