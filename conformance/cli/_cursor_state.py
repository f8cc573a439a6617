"""``--system cursor-state`` of ``conform``, ``spec show`` and ``mutants``: PIP-381's cursor state."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._lockstep import Candidate, Report
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_OK
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.cursor_state import CursorStateAdapter, conform_cursor
from ledgerspec.conformance.cursor_state._process import CursorProcessFactory
from ledgerspec.conformance.mutants._cursor_state import CURSOR_MUTANTS, CursorMutant
from ledgerspec.spec.cursor_state import CAPABILITIES, INVARIANTS, PROFILES, claimed

SYSTEMS = ("cache", "cursor-state")
ADAPTERS: dict[str, tuple[str, Callable[[], Candidate]]] = {
    "reference-pip381": ("pip381", lambda: CursorStateAdapter("pip381")),
    "reference-pulsar-master": ("pulsar-master", lambda: CursorStateAdapter("pulsar-master")),
}
"""The cursor-state adapters, with the profile each implements (process and Java adapters: issue 17)."""
EXIT_FAIL = 1


def add_system_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--system", choices=SYSTEMS, default="cache", help="the system to check (default: the entry cache)"
    )


def _profile(args: argparse.Namespace, default: str) -> str:
    profile = getattr(args, "profile", None) or default
    if profile not in PROFILES:
        raise InputError(f"--profile {profile}: the cursor-state system has profiles {', '.join(PROFILES)}")
    return profile


def _invariants(args: argparse.Namespace, profile: str) -> tuple[str, ...]:
    wanted = tuple(getattr(args, "invariant", None) or ())
    ids = {inv.id for inv in claimed(profile)}
    unknown = [name for name in wanted if name not in ids]
    if unknown:
        raise InputError(f"--invariant {', '.join(unknown)}: profile {profile} claims {', '.join(sorted(ids))}")
    return wanted


def _seed(args: argparse.Namespace) -> int:
    return random.randrange(2**32) if args.seed is None else int(args.seed)


def run_conform(args: argparse.Namespace) -> int:
    """``conform --system cursor-state``: search, print the verdict per invariant and any counterexample."""
    check_outputs(args, files=("json",))
    process = None
    capabilities = frozenset(CAPABILITIES)
    if args.adapter.startswith("exec:"):
        process = CursorProcessFactory(args.adapter[5:], timeout=args.timeout, validate=args.validate_protocol)
        factory: Callable[[], Candidate] = process
        default, capabilities = process.profiles[0], frozenset(process.capabilities)
    elif args.adapter in ADAPTERS:
        default, factory = ADAPTERS[args.adapter]
    else:
        known = ", ".join(ADAPTERS)
        raise InputError(f"--adapter {args.adapter}: cursor-state adapters are {known}, or exec:COMMAND")
    try:
        profile = _profile(args, default)
        report = conform_cursor(
            factory,
            profile,
            settings_name=args.settings,
            seed=_seed(args),
            invariants=_invariants(args, profile),
            capabilities=capabilities,
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
        "system": "cursor-state",
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
    """``spec show --system cursor-state``: the invariants and who claims them."""
    profile = _profile(args, PROFILES[0]) if getattr(args, "profile", None) else None
    shown = [inv for inv in INVARIANTS if profile is None or profile in inv.profiles]
    if args.json:
        document = {
            "system": "cursor-state",
            "profiles": list(PROFILES),
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
    """``mutants --system cursor-state``: each mutant under N seeds; exit 1 if one survived a seed."""
    check_outputs(args, files=("json",))
    mutants: list[CursorMutant] = list(CURSOR_MUTANTS)
    if args.mutant:
        unknown = sorted(set(args.mutant) - {m.name for m in mutants})
        if unknown:
            raise InputError(f"unknown mutant(s) {unknown}; cursor-state has {[m.name for m in mutants]}")
        mutants = [m for m in mutants if m.name in args.mutant]
    seed = _seed(args)
    seeds = range(seed, seed + args.seeds)
    width = max(len(m.name) for m in mutants)
    print(f"{len(mutants)} cursor-state mutants (settings {args.settings}, seeds {seed}-{seeds[-1]})")
    print(f"{'mutant':<{width}}  {'killed':>7}  {'invariant':<28}  {'median s':>8}  {'worst s':>7}")
    rows = []
    for mutant in mutants:
        kills: list[tuple[int, str | None, float]] = []
        for each in seeds:
            start = time.perf_counter()
            report = conform_cursor(mutant.adapter, mutant.profile, settings_name=args.settings, seed=each)
            found = report.violation.invariant if report.violation else None
            kills.append((each, found, time.perf_counter() - start))
        times = [t for _, found, t in kills if found]
        row = {
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
        rows.append(row)
        median = "-" if row["median_seconds"] is None else f"{row['median_seconds']:.1f}"
        worst = "-" if row["worst_seconds"] is None else f"{row['worst_seconds']:.1f}"
        killed = f"{row['killed']}/{row['seeds']}"
        invariant = ", ".join(row["invariants"]) or "-"
        print(f"{mutant.name:<{width}}  {killed:>7}  {invariant:<28}  {median:>8}  {worst:>7}", flush=True)
    every = sum(r["killed"] == r["seeds"] for r in rows)
    print(f"\n{every}/{len(rows)} mutants killed under every seed")
    if args.json:
        document = {"system": "cursor-state", "settings": args.settings, "seed": seed, "seeds": args.seeds}
        Path(args.json).write_text(json.dumps({**document, "mutants": rows}, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK if every == len(rows) else EXIT_FAIL
