"""The mutant kill matrix: whether the suite catches plausible bugs of the reference.

A mutant is a subclass of a reference cache that changes one thing into a bug (``ledgerspec.conformance.
mutants`` lists them). Each is run through :func:`conform` against the profile its base class implements,
stopping at the first failure; a mutant the search does not break *survives*, which says the search (or
the invariants) would miss that bug in a real implementation. The mutants ship in the package, so that
``ledgerspec mutants`` runs from an installed wheel; a module of one's own can be loaded from a path.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance._engine import Report, Row, conform
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.adapters.reference import ReferenceAdapter
from ledgerspec.spec.cache import PROFILES

MODEL = "CACHE-MODEL"


@dataclass(frozen=True)
class Mutant:
    """One plausible bug: a reference cache subclass and the profile it is checked against."""

    name: str
    profile: str
    description: str
    cache_class: type


@dataclass
class Kill:
    """The outcome of running the suite against one mutant."""

    mutant: Mutant
    report: Report

    @property
    def killed(self) -> bool:
        """True if an invariant failed; an adapter fault (the mutant crashed) is not a kill."""
        return self.report.verdict == Verdict.FAIL

    @property
    def rows(self) -> list[Row]:
        """The failed invariants, the specific ones first and CACHE-MODEL last.

        A specific invariant says more about the bug than "differs from the model".
        """
        return sorted(self.report.failed(), key=lambda row: row.invariant == MODEL)

    @property
    def invariant(self) -> str | None:
        """The invariant credited with the kill, or None."""
        return self.rows[0].invariant if self.rows else None

    @property
    def steps(self) -> int | None:
        """Length of the credited invariant's minimized counterexample, or None."""
        rows = self.rows
        return len(rows[0].case.steps) if rows and rows[0].case is not None else None

    @property
    def seconds(self) -> float:
        """Wall time of the whole run: search, shrinking and minimization."""
        return self.report.seconds


def load_mutants(path: str | Path | None = None) -> list[Mutant]:
    """The packaged mutants (``path`` None), or the ``MUTANTS`` of the module at ``path``; checked.

    Each item needs ``name``, ``profile``, ``description`` and ``cache_class``; names must be unique and
    profiles known.
    """
    if path is None:
        from ledgerspec.conformance.mutants import MUTANTS  # noqa: PLC0415 - the mutants import this module

        return _checked(list(MUTANTS), Path("ledgerspec.conformance.mutants"))
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file (a Python module defining MUTANTS)")
    module_name = f"_ledgerspec_mutants_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look classes up by module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise InputError(f"{path}: importing it failed: {type(error).__name__}: {error}") from error
    mutants = getattr(module, "MUTANTS", None)
    if not isinstance(mutants, list | tuple) or not mutants:
        raise InputError(f"{path}: defines no MUTANTS list (or it is empty)")
    return _checked(list(mutants), path)


def _checked(mutants: list[Any], path: Path) -> list[Mutant]:
    checked, seen = [], set()
    for index, item in enumerate(mutants):
        where = f"{path}: MUTANTS[{index}]"
        fields = {name: getattr(item, name, None) for name in ("name", "profile", "description", "cache_class")}
        missing = [name for name, value in fields.items() if value is None]
        if missing:
            raise InputError(f"{where}: missing {', '.join(missing)}")
        if fields["profile"] not in PROFILES:
            raise InputError(f"{where} ({fields['name']}): unknown profile {fields['profile']!r}")
        if not isinstance(fields["cache_class"], type):
            raise InputError(f"{where} ({fields['name']}): cache_class must be a class")
        if fields["name"] in seen:
            raise InputError(f"{where}: duplicate mutant name {fields['name']!r}")
        seen.add(fields["name"])
        checked.append(
            Mutant(str(fields["name"]), str(fields["profile"]), str(fields["description"]), fields["cache_class"])
        )
    return checked


def factory_for(mutant: Mutant) -> Callable[[], ReferenceAdapter]:
    """An adapter factory driving the mutant's class under its own name."""
    return lambda: ReferenceAdapter(mutant.profile, cache_class=mutant.cache_class, name=mutant.name)


def run_mutant(mutant: Mutant, *, settings: str = "ci", seed: int = 0) -> Kill:
    """Run the suite against one mutant, stopping at the first failure."""
    report = conform(
        factory_for(mutant),
        profile=mutant.profile,
        settings=settings,
        seed=seed,
        stop_at_first=True,
    )
    return Kill(mutant, report)


def kill_matrix(
    mutants: Iterable[Mutant],
    *,
    settings: str = "ci",
    seed: int = 0,
    on_kill: Callable[[Kill], None] | None = None,
) -> list[Kill]:
    """Run every mutant in turn; ``on_kill`` sees each outcome as it comes."""
    kills = []
    for mutant in mutants:
        kill = run_mutant(mutant, settings=settings, seed=seed)
        if on_kill is not None:
            on_kill(kill)
        kills.append(kill)
    return kills


def header(width: int) -> str:
    """The table's header line for mutant names up to ``width`` characters."""
    return f"{'mutant':<{width}}  {'killed':<6}  {'invariant':<32}  {'steps':>5}  {'seconds':>7}"


def line(kill: Kill, width: int) -> str:
    """One row of the table."""
    if kill.killed:
        invariant = kill.invariant or ""
        others = len(kill.rows) - 1
        if others:
            invariant += f" +{others}"
        steps = str(kill.steps) if kill.steps is not None else "-"
        cells = ("yes", invariant, steps)
    elif kill.report.fault is not None:
        cells = ("no", "adapter fault", "-")
    else:
        cells = ("no", "survived", "-")
    return f"{kill.mutant.name:<{width}}  {cells[0]:<6}  {cells[1]:<32}  {cells[2]:>5}  {kill.seconds:>7.1f}"


def summary(kills: list[Kill]) -> str:
    """Killed N/M, median seconds-to-kill, max and median counterexample length; the survivors."""
    killed = [kill for kill in kills if kill.killed]
    lines = [f"killed {len(killed)}/{len(kills)}"]
    if killed:
        seconds = statistics.median(kill.seconds for kill in killed)
        steps = [kill.steps for kill in killed if kill.steps is not None]
        lines.append(f"median seconds to kill: {seconds:.1f}")
        if steps:
            lines.append(f"counterexample length: max {max(steps)}, median {statistics.median(steps):g} steps")
    runs: dict[str, list[Kill]] = {}
    for kill in kills:
        runs.setdefault(kill.mutant.name, []).append(kill)
    for name, outcomes in runs.items():
        survived = [kill for kill in outcomes if not kill.killed]
        if survived:
            kill = survived[0]
            why = f"adapter fault: {kill.report.fault}" if kill.report.fault else "no invariant broke"
            times = f" in {len(survived)} of {len(outcomes)} runs" if len(outcomes) > 1 else ""
            lines.append(f"SURVIVED{times}: {name} ({kill.mutant.profile}: {kill.mutant.description}): {why}")
    return "\n".join(lines)


def to_json(kills: list[Kill], *, settings: str, seed: int) -> dict[str, Any]:
    """The kill matrix as plain data, each kill with its seed and counterexamples (``seed``: the first run's)."""
    killed = [kill for kill in kills if kill.killed]
    steps = [kill.steps for kill in killed if kill.steps is not None]
    return {
        "settings": settings,
        "seed": seed,
        "killed": len(killed),
        "total": len(kills),
        "median_seconds": round(statistics.median(k.seconds for k in killed), 3) if killed else None,
        "max_steps": max(steps) if steps else None,
        "median_steps": statistics.median(steps) if steps else None,
        "mutants": [
            {
                "name": kill.mutant.name,
                "profile": kill.mutant.profile,
                "seed": kill.report.seed,
                "description": kill.mutant.description,
                "killed": kill.killed,
                "invariant": kill.invariant,
                "steps": kill.steps,
                "seconds": round(kill.seconds, 3),
                "fault": kill.report.fault,
                "failed": [
                    {
                        "invariant": row.invariant,
                        "detail": row.detail,
                        **({"case": row.case.to_dict()} if row.case is not None else {}),
                    }
                    for row in kill.rows
                ],
            }
            for kill in kills
        ],
    }


__all__ = [
    "Kill",
    "Mutant",
    "factory_for",
    "header",
    "kill_matrix",
    "line",
    "load_mutants",
    "run_mutant",
    "summary",
    "to_json",
]
