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
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance import systems
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._jobs import ordered_map
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cache._engine import Report, Row, conform
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.spec.cache import PROFILES

MODEL = "CACHE-MODEL"


@dataclass(frozen=True, init=False)
class Mutant(systems.Mutant):
    """One plausible bug of the cache: a reference cache subclass and the profile it is checked against.

    Built as ``Mutant(name, profile, description, cache_class)``, as a ``--path`` module builds its own;
    the record is every system's (``systems.Mutant``), ``cache_class`` its ``replacement``.
    """

    def __init__(self, name: str, profile: str, description: str, cache_class: type) -> None:
        super().__init__(name, profile, cache_class, description)

    @property
    def cache_class(self) -> type:
        """The replacement cache class (the name a ``--path`` module's mutants may give it)."""
        return self.replacement

    def adapter(self) -> ReferenceAdapter:
        """The reference adapter of the profile, driving the mutant's class under the mutant's name."""
        return ReferenceAdapter(self.profile, cache_class=self.replacement, name=self.name)


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

    Each item needs ``name``, ``profile``, ``description`` and the replacement cache class (``replacement``, or
    ``cache_class`` as before); names must be unique and profiles known.
    """
    if path is None:
        from ledgerspec.conformance.cache.mutants import MUTANTS  # noqa: PLC0415 - the mutants import this module

        return _checked(list(MUTANTS), Path("ledgerspec.conformance.cache.mutants"))
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
        found = "an empty one" if isinstance(mutants, list | tuple) else f"a {type(mutants).__name__}"
        if mutants is None:
            found = "none"
        raise InputError(
            f"{path}: MUTANTS must be a non-empty list of mutants (each with name, profile, description and "
            f"cache_class, as ledgerspec.conformance.cache.mutants.Mutant); found {found}"
        )
    return _checked(list(mutants), path)


def _checked(mutants: list[Any], path: Path) -> list[Mutant]:
    checked, seen = [], set()
    for index, item in enumerate(mutants):
        where = f"{path}: MUTANTS[{index}]"
        fields = {name: getattr(item, name, None) for name in ("name", "profile", "description")}
        fields["cache_class"] = getattr(item, "replacement", None) or getattr(item, "cache_class", None)
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
    return mutant.adapter


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
    """Run every mutant in turn under one seed; ``on_kill`` sees each outcome as it comes."""
    return [rate.kills[0] for rate in kill_rates(mutants, settings=settings, seeds=[seed], on_kill=on_kill)]


@dataclass
class Rate:
    """One mutant run under several seeds: how many killed it, and how fast."""

    mutant: Mutant
    settings: str
    kills: list[Kill]
    """One per seed, in seed order."""

    @property
    def killed(self) -> int:
        """How many of the seeds killed the mutant."""
        return sum(kill.killed for kill in self.kills)

    @property
    def seeds(self) -> int:
        """How many seeds were run."""
        return len(self.kills)

    @property
    def kill_seconds(self) -> list[float]:
        """Wall time of each run that killed the mutant."""
        return [kill.seconds for kill in self.kills if kill.killed]

    @property
    def median_seconds(self) -> float | None:
        """Median time to kill over the killing seeds, or None if none killed it."""
        times = self.kill_seconds
        return statistics.median(times) if times else None

    @property
    def worst_seconds(self) -> float | None:
        """Longest time to kill over the killing seeds, or None if none killed it."""
        times = self.kill_seconds
        return max(times) if times else None

    @property
    def survived_seeds(self) -> list[int]:
        """The seeds under which the mutant survived (or its adapter faulted)."""
        return [kill.report.seed for kill in self.kills if not kill.killed]

    @property
    def invariants(self) -> Counter[str]:
        """How often each invariant was credited with the kill."""
        return Counter(kill.invariant for kill in self.kills if kill.invariant is not None)


def kill_rates(
    mutants: Iterable[Mutant],
    *,
    settings: str = "ci",
    seeds: Sequence[int] = (0,),
    on_kill: Callable[[Kill], None] | None = None,
    on_rate: Callable[[Rate], None] | None = None,
    jobs: int = 1,
) -> list[Rate]:
    """Run every mutant under each seed; ``on_kill`` sees each run, ``on_rate`` each mutant done.

    ``jobs`` processes run the searches side by side; the callbacks and the result keep mutant and
    seed order.
    """
    mutants, seeds = list(mutants), list(seeds)
    tasks = [(mutant, settings, seed) for mutant in mutants for seed in seeds]
    outcomes = ordered_map(_run_task, tasks, jobs)
    rates = []
    for mutant in mutants:
        kills = []
        for _ in seeds:
            kill = next(outcomes)
            if on_kill is not None:
                on_kill(kill)
            kills.append(kill)
        rate = Rate(mutant, settings, kills)
        if on_rate is not None:
            on_rate(rate)
        rates.append(rate)
    return rates


def _run_task(task: tuple[Mutant, str, int]) -> Kill:
    """One search of the matrix, in a worker process (module level, so that it pickles)."""
    mutant, settings, seed = task
    return run_mutant(mutant, settings=settings, seed=seed)


def header(width: int) -> str:
    """The table's header line for mutant names up to ``width`` characters."""
    return f"{'mutant':<{width}}  {'killed':>7}  {'invariant':<32}  {'steps':>5}  {'median s':>8}  {'worst s':>7}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def line(rate: Rate, width: int) -> str:
    """One row of the table: seeds that killed the mutant, the invariant credited most, times to kill."""
    credited = rate.invariants.most_common()
    if credited:
        invariant = credited[0][0] + (f" +{len(credited) - 1}" if len(credited) > 1 else "")
    elif any(kill.report.fault is not None for kill in rate.kills):
        invariant = "adapter fault"
    else:
        invariant = "survived"
    steps = [kill.steps for kill in rate.kills if kill.killed and kill.steps is not None]
    most = str(max(steps)) if steps else "-"
    killed = f"{rate.killed}/{rate.seeds}"
    return (
        f"{rate.mutant.name:<{width}}  {killed:>7}  {invariant:<32}  {most:>5}  "
        f"{_seconds(rate.median_seconds):>8}  {_seconds(rate.worst_seconds):>7}"
    )


def summary(rates: list[Rate]) -> str:
    """Runs killed, mutants killed under every seed, median and worst seconds to kill; the survivors."""
    kills = [kill for rate in rates for kill in rate.kills]
    killed = [kill for kill in kills if kill.killed]
    always = sum(rate.killed == rate.seeds for rate in rates)
    lines = [f"killed {len(killed)}/{len(kills)} runs; {always}/{len(rates)} mutants killed under every seed"]
    if killed:
        seconds = [kill.seconds for kill in killed]
        lines.append(f"seconds to kill: median {statistics.median(seconds):.1f}, worst {max(seconds):.1f}")
        steps = [kill.steps for kill in killed if kill.steps is not None]
        if steps:
            lines.append(f"counterexample length: max {max(steps)}, median {statistics.median(steps):g} steps")
    for rate in rates:
        survived = [kill for kill in rate.kills if not kill.killed]
        if survived:
            kill = survived[0]
            why = f"adapter fault: {kill.report.fault}" if kill.report.fault else "no invariant broke"
            seeds = ", ".join(str(seed) for seed in rate.survived_seeds)
            lines.append(
                f"SURVIVED {len(survived)}/{rate.seeds} (seeds {seeds}): {rate.mutant.name} "
                f"({rate.mutant.profile}: {rate.mutant.description}): {why}"
            )
    return "\n".join(lines)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _run_json(kill: Kill) -> dict[str, Any]:
    return {
        "seed": kill.report.seed,
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


def to_json(rates: list[Rate], *, settings: str, seed: int) -> dict[str, Any]:
    """The kill matrix as plain data: one object per mutant (``killed`` of ``seeds``), each with its runs."""
    kills = [kill for rate in rates for kill in rate.kills]
    times = [kill.seconds for kill in kills if kill.killed]
    return {
        "settings": settings,
        "seed": seed,
        "seeds": len(rates[0].kills) if rates else 0,
        "mutants_killed_every_seed": sum(rate.killed == rate.seeds for rate in rates),
        "total": len(rates),
        "median_seconds": _rounded(statistics.median(times)) if times else None,
        "worst_seconds": _rounded(max(times)) if times else None,
        "mutants": [
            {
                "name": rate.mutant.name,
                "profile": rate.mutant.profile,
                "description": rate.mutant.description,
                "settings": rate.settings,
                "seeds": rate.seeds,
                "killed": rate.killed,
                "survived_seeds": rate.survived_seeds,
                "median_seconds": _rounded(rate.median_seconds),
                "worst_seconds": _rounded(rate.worst_seconds),
                "invariants": dict(rate.invariants),
                "runs": [_run_json(kill) for kill in rate.kills],
            }
            for rate in rates
        ],
    }


__all__ = [
    "Kill",
    "Mutant",
    "Rate",
    "factory_for",
    "header",
    "kill_matrix",
    "kill_rates",
    "line",
    "load_mutants",
    "run_mutant",
    "summary",
    "to_json",
]
