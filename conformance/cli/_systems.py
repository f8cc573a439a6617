"""``--system`` of ``conform``, ``spec show`` and ``mutants`` for the lockstep systems.

``cursor-state`` (PIP-381, a cursor's persisted state) and ``txlog-writer`` (PIP-160, the batched
transaction-log writer); the cache, the default, has commands of its own.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._jobs import ordered_map
from ledgerspec.conformance._lockstep import Candidate, Report
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_OK
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.cursor_state import CursorStateAdapter, conform_cursor
from ledgerspec.conformance.cursor_state._process import CursorProcessFactory
from ledgerspec.conformance.mutants._cursor_state import CURSOR_MUTANTS
from ledgerspec.conformance.mutants._txlog import TXLOG_MUTANTS
from ledgerspec.conformance.txlog import TxlogAdapter, conform_txlog
from ledgerspec.spec import cursor_state, txlog

EXIT_FAIL = 1


@dataclass(frozen=True)
class LockstepSystem:
    """What the command line needs of one system."""

    name: str
    profiles: tuple[str, ...]
    invariants: Sequence[Any]
    claimed: Callable[[str], Sequence[Any]]
    adapters: dict[str, tuple[str, Callable[[], Candidate]]]
    conform: Callable[..., Report]
    mutants: Sequence[Any]
    process: Callable[..., Any] | None = None
    """``exec:COMMAND`` adapters, where the system has a process protocol."""


SYSTEMS: dict[str, LockstepSystem] = {
    "cursor-state": LockstepSystem(
        "cursor-state",
        cursor_state.PROFILES,
        cursor_state.INVARIANTS,
        cursor_state.claimed,
        {f"reference-{p}": (p, lambda p=p: CursorStateAdapter(p)) for p in cursor_state.PROFILES},  # type: ignore[misc]
        conform_cursor,
        CURSOR_MUTANTS,
        CursorProcessFactory,
    ),
    "txlog-writer": LockstepSystem(
        "txlog-writer",
        txlog.PROFILES,
        txlog.INVARIANTS,
        txlog.claimed,
        {f"reference-{p}": (p, lambda p=p: TxlogAdapter(p)) for p in txlog.PROFILES},  # type: ignore[misc]
        conform_txlog,
        TXLOG_MUTANTS,
    ),
}
CHOICES = ("cache", *SYSTEMS)


def add_system_option(parser: argparse.ArgumentParser) -> None:
    """``--system``, for the commands every system has."""
    parser.add_argument(
        "--system", choices=CHOICES, default="cache", help="the system to check (default: the entry cache)"
    )


def _profile(system: LockstepSystem, args: argparse.Namespace, default: str) -> str:
    profile = getattr(args, "profile", None) or default
    if profile not in system.profiles:
        raise InputError(f"--profile {profile}: the {system.name} system has profiles {', '.join(system.profiles)}")
    return profile


def _invariants(system: LockstepSystem, args: argparse.Namespace, profile: str) -> tuple[str, ...]:
    wanted = tuple(getattr(args, "invariant", None) or ())
    ids = {inv.id for inv in system.claimed(profile)}
    unknown = [name for name in wanted if name not in ids]
    if unknown:
        raise InputError(f"--invariant {', '.join(unknown)}: profile {profile} claims {', '.join(sorted(ids))}")
    return wanted


def _seed(args: argparse.Namespace) -> int:
    return random.randrange(2**32) if args.seed is None else int(args.seed)


def run_conform(args: argparse.Namespace) -> int:
    """``conform --system S``: search, print the verdict per invariant and any counterexample."""
    system = SYSTEMS[args.system]
    check_outputs(args, files=("json",))
    process = None
    extra: dict[str, Any] = {}
    if args.adapter.startswith("exec:") and system.process is not None:
        process = system.process(args.adapter[5:], timeout=args.timeout, validate=args.validate_protocol)
        factory: Callable[[], Candidate] = process
        default, extra = process.profiles[0], {"capabilities": frozenset(process.capabilities)}
    elif args.adapter in system.adapters:
        default, factory = system.adapters[args.adapter]
    else:
        known = ", ".join(system.adapters) + (", or exec:COMMAND" if system.process is not None else "")
        raise InputError(f"--adapter {args.adapter}: {system.name} adapters are {known}")
    try:
        profile = _profile(system, args, default)
        report = system.conform(
            factory,
            profile,
            settings_name=args.settings,
            seed=_seed(args),
            invariants=_invariants(system, args, profile),
            **extra,
        )
    finally:
        if process is not None:
            process.close()
    print(report.render())
    if args.json:
        Path(args.json).write_text(json.dumps(_report_json(report, args.adapter), indent=2) + "\n", encoding="utf-8")
    return {Verdict.PASS: EXIT_OK, Verdict.FAIL: EXIT_FAIL}.get(report.verdict, EXIT_ADAPTER_FAULT)


def _report_json(report: Report, adapter: str) -> dict[str, Any]:
    return {
        "system": report.system,
        "adapter": adapter,
        "profile": report.profile,
        "settings": report.settings,
        "seed": report.seed,
        "verdict": report.verdict.value,
        "fault": report.fault,
        "examples": report.examples,
        "steps": report.steps,
        "invariants": {
            inv: ("violated" if report.violation and report.violation.invariant == inv else "held")
            if inv in report.checked
            else "not checked"
            for inv in report.invariants
        },
        "counterexample": report.case(),
    }


def run_show(args: argparse.Namespace) -> int:
    """``spec show --system S``: the invariants and who claims them."""
    system = SYSTEMS[args.system]
    profile = _profile(system, args, system.profiles[0]) if getattr(args, "profile", None) else None
    shown = [inv for inv in system.invariants if profile is None or profile in inv.profiles]
    if args.json:
        document = {
            "system": system.name,
            "profiles": list(system.profiles),
            "invariants": [
                {"id": i.id, "statement": i.statement, "profiles": list(i.profiles), "source": i.citation}
                for i in shown
            ],
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    for inv in shown:
        print(f"{inv.id}\n    {inv.statement}\n    claimed by: {', '.join(inv.profiles)}\n    source: {inv.citation}\n")
    return EXIT_OK


def run_mutants(args: argparse.Namespace) -> int:
    """``mutants --system S``: each mutant under N seeds; exit 1 if one survived a seed."""
    system = SYSTEMS[args.system]
    check_outputs(args, files=("json",))
    mutants = list(system.mutants)
    if args.mutant:
        unknown = sorted(set(args.mutant) - {m.name for m in mutants})
        if unknown:
            raise InputError(f"unknown mutant(s) {unknown}; {system.name} has {[m.name for m in mutants]}")
        mutants = [m for m in mutants if m.name in args.mutant]
    seed = _seed(args)
    seeds = range(seed, seed + args.seeds)
    width = max(len(m.name) for m in mutants)
    print(f"{len(mutants)} {system.name} mutants (settings {args.settings}, seeds {seed}-{seeds[-1]})")
    print(f"{'mutant':<{width}}  {'killed':>7}  {'invariant':<28}  {'median s':>8}  {'worst s':>7}")
    tasks = [(system.name, system.mutants.index(mutant), each, args.settings) for mutant in mutants for each in seeds]
    outcomes = ordered_map(_search, tasks, args.jobs)
    rows = []
    for mutant in mutants:
        row = _rate(mutant, [next(outcomes) for _ in seeds])
        rows.append(row)
        median = "-" if row["median_seconds"] is None else f"{row['median_seconds']:.1f}"
        worst = "-" if row["worst_seconds"] is None else f"{row['worst_seconds']:.1f}"
        killed = f"{row['killed']}/{row['seeds']}"
        invariant = ", ".join(row["invariants"]) or "-"
        print(f"{row['name']:<{width}}  {killed:>7}  {invariant:<28}  {median:>8}  {worst:>7}", flush=True)
    every = sum(r["killed"] == r["seeds"] for r in rows)
    print(f"\n{every}/{len(rows)} mutants killed under every seed")
    if args.json:
        document = {"system": system.name, "settings": args.settings, "seed": seed, "seeds": args.seeds}
        Path(args.json).write_text(json.dumps({**document, "mutants": rows}, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK if every == len(rows) else EXIT_FAIL


def _search(task: tuple[str, int, int, str]) -> tuple[int, str | None, float]:
    """One mutant under one seed (system, mutant index, seed, settings): the invariant that broke, the time.

    Module level and by index, so that it runs in a worker process (``--jobs``).
    """
    name, index, seed, settings_name = task
    system = SYSTEMS[name]
    mutant = system.mutants[index]
    start = time.perf_counter()
    report = system.conform(mutant.adapter, mutant.profile, settings_name=settings_name, seed=seed)
    return seed, report.violation.invariant if report.violation else None, time.perf_counter() - start


def _rate(mutant: Any, kills: list[tuple[int, str | None, float]]) -> dict[str, Any]:
    """One mutant under each seed: how many kill it, by which invariants, how fast."""
    times = [t for _, found, t in kills if found]
    return {
        "name": mutant.name,
        "profile": mutant.profile,
        "description": mutant.description,
        "seeds": len(kills),
        "killed": len(times),
        "survived_seeds": [s for s, found, _ in kills if not found],
        "invariants": sorted({found for _, found, _ in kills if found}),
        "median_seconds": round(statistics.median(times), 3) if times else None,
        "worst_seconds": round(max(times), 3) if times else None,
    }
