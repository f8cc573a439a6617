"""The lockstep engine's commands over a system's record: ``conform``, ``spec show``, ``mutants``, ``replay``.

Every system of the registry (``conformance/systems.py``), read from its ``System`` record; the cache,
the default, has commands of its own.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import shlex
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError, close_factory
from ledgerspec.conformance._jobs import ordered_map
from ledgerspec.conformance._settings import get_settings
from ledgerspec.conformance._verdict import Verdict
from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES, harness_lines
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_OK
from ledgerspec.conformance.cli._options import check_outputs, pick_named
from ledgerspec.conformance.lockstep import _views as lockstep_views
from ledgerspec.conformance.lockstep._engine import Report, conform, fault_at_stop
from ledgerspec.conformance.render._term import Out
from ledgerspec.conformance.systems import SYSTEMS, Commands, System, lazy

EXIT_FAIL = 1


def adapter_lines(system: System) -> list[str]:
    """One system's adapters for ``ledgerspec adapters``: references, real-code harnesses, ``exec:``."""
    lines = [f"system {system.name} (--system {system.name}):"]
    claims = ", ".join(system.capabilities) or "none (the system has no capability)"
    for name, (profile, _) in system.references().items():
        lines += [f"  {name}: python reference, profile {profile}", f"      capabilities: {claims}"]
    for name in system.real():
        lines += harness_lines(name, SYSTEM_HARNESSES[name][1])
    if system.process is not None:
        page = f"{system.protocol_page}; capabilities from its start reply"
        lines.append(f"  exec:COMMAND: any language over process protocol v1 ({page})")
    return lines


def chosen_profile(system: System, args: argparse.Namespace, default: str) -> str:
    profile = getattr(args, "profile", None) or default
    if profile not in system.profiles:
        raise InputError(f"--profile {profile}: the {system.name} system has profiles {', '.join(system.profiles)}")
    return profile


def _invariants(system: System, args: argparse.Namespace, profile: str) -> tuple[str, ...]:
    wanted = tuple(getattr(args, "invariant", None) or ())
    ids = {inv.id for inv in system.claimed(profile)}
    unknown = [name for name in wanted if name not in ids]
    if unknown:
        raise InputError(f"--invariant {', '.join(unknown)}: profile {profile} claims {', '.join(sorted(ids))}")
    return wanted


def _seed(args: argparse.Namespace) -> int:
    return random.randrange(2**32) if args.seed is None else int(args.seed)


CACHE_ONLY = {
    "examples": (None, "its search is sized by --settings"),
    "config_preset": (None, "the cache's named configurations; the search draws the system's"),
    "preset": ("minimal", "its search is sized by --settings"),
    "junit_xml": (None, "the cache's per-invariant report; --json and --html report the system's"),
    "cases_dir": ("ledgerspec-cases", "its counterexample is printed, and kept in --json's 'counterexample'"),
}
"""``conform`` options of the cache's search only, with their defaults and what a lockstep system has instead."""


def refuse_cache_only(args: argparse.Namespace, system: str) -> None:
    """An input error naming the first cache-only option given a value (a run must be what was asked for)."""
    for name, (default, instead) in CACHE_ONLY.items():
        value = getattr(args, name, default)
        if value != default:
            option = "--" + name.replace("_", "-")
            raise InputError(f"{option} {value}: the {system} system does not take it (cache only: {instead})")


def run_conform(args: argparse.Namespace) -> int:
    """``conform --system S``: search, print the verdict per invariant and any counterexample."""
    system = SYSTEMS[args.system]
    refuse_cache_only(args, system.name)
    check_outputs(args, files=("json", "html"))
    out = Out.for_args(args)
    from ledgerspec.conformance.lockstep._adapters import resolve_adapter  # noqa: PLC0415 - one resolution for every command

    default, factory, process, claims = resolve_adapter(
        system.name, args.adapter, timeout=args.timeout, validate=args.validate_protocol
    )
    extra: dict[str, Any] = {"capabilities": claims} if process is not None else {}
    try:
        profile = chosen_profile(system, args, default)
        examples = get_settings(args.settings).examples
        with out.progress(f"{system.name}: {args.adapter} / {profile}: examples", total=examples) as advance:
            report = conform(
                system,
                factory,
                profile,
                settings_name=args.settings,
                seed=_seed(args),
                invariants=_invariants(system, args, profile),
                on_example=lambda done, steps: advance(completed=done, note=f"{steps} steps"),
                **extra,
            )
    finally:
        stop_fault = close_factory(process)
    fault_at_stop(report, stop_fault)  # the final ``stop`` went wrong: no PASS
    _show(out, report, args.adapter)
    if args.html:
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked

        page = HtmlReport(f"ledgerspec conform: {lockstep_views.title(report, args.adapter)}")
        lockstep_views.section(page, report, args.adapter)
        page.write(args.html)
    if args.json:
        Path(args.json).write_text(json.dumps(report_json(report, args.adapter), indent=2) + "\n", encoding="utf-8")
        if report.violation is not None:  # pastes back as is
            out.text(f"replay: {shlex.join(['ledgerspec', 'replay', args.json, '--adapter', args.adapter])}")
    return {Verdict.PASS: EXIT_OK, Verdict.FAIL: EXIT_FAIL}.get(report.verdict, EXIT_ADAPTER_FAULT)


def _show(out: Out, report: Report, adapter: str) -> None:
    """The run's plain text, its rich tables, or (``--quiet``) its verdict and the invariant it broke."""
    out.text(report.render())
    if out.rich:
        out.show(lockstep_views.report_table(report, adapter))
        if report.violation is not None:
            out.show(lockstep_views.counterexample_table(report))
        if report.fault is not None:
            out.show(lockstep_views.fault_table(report))
    if out.mode == "quiet":
        out.verdict(f"{report.verdict.value}: {report.system}: {adapter} / {report.profile}")
        if report.violation is not None:
            out.verdict(f"FAIL: {report.violation.invariant}")


def report_json(report: Report, adapter: str) -> dict[str, Any]:
    return {
        "system": report.system,
        "adapter": adapter,
        "profile": report.profile,
        "settings": report.settings,
        "seed": report.seed,
        "verdict": report.verdict.value,
        "fault": report.fault,
        "fault_at": report.fault_at,
        "fault_steps": [op.to_dict() for op in report.fault_steps],
        "examples": report.examples,
        "steps": report.steps,
        "invariants": {row.invariant: row.status.value for row in report.rows()},
        "rows": [
            {"invariant": row.invariant, "status": row.status.value, "detail": row.detail} for row in report.rows()
        ],
        "not_claimed": report.unclaimed,
        "not_reported": report.unreported,
        "counterexample": report.case(),
    }


def run_show(args: argparse.Namespace) -> int:
    """``spec show --system S``: the invariants and who claims them."""
    system = SYSTEMS[args.system]
    profile = chosen_profile(system, args, system.profiles[0]) if getattr(args, "profile", None) else None
    shown = [inv for inv in system.invariants if profile is None or profile in inv.profiles]
    if args.json:
        document = {
            "system": system.name,
            "profiles": list(system.profiles),
            "invariants": [
                {
                    "id": i.id,
                    "statement": i.statement,
                    "profiles": list(i.profiles),
                    "source": i.citation,
                    "trace_events": list(i.trace_events),
                }
                for i in shown
            ],
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    for inv in shown:
        print(
            f"{inv.id}\n    {inv.statement}\n    claimed by: {', '.join(inv.profiles)}\n    source: {inv.citation}\n"
            f"    on traces: reads {', '.join(inv.trace_events)} events\n"
        )
    return EXIT_OK


def run_mutants(args: argparse.Namespace) -> int:
    """``mutants --system S``: each mutant under N seeds; exit 1 if one survived a seed."""
    system = SYSTEMS[args.system]
    check_outputs(args, files=("json", "html"))
    out = Out.for_args(args)
    every_mutant = list(system.mutants())
    mutants = pick_named(every_mutant, args.mutant, f"{system.name} has")
    seed = _seed(args)
    seeds = range(seed, seed + args.seeds)
    width = max(len(m.name) for m in mutants)
    which = f"seed {seed}" if args.seeds == 1 else f"seeds {seed}-{seeds[-1]}"
    title = f"{len(mutants)} {system.name} mutants (settings {args.settings}, {which})"
    out.text(title)
    out.text(f"{'mutant':<{width}}  {'killed':>7}  {'invariant':<28}  {'median s':>8}  {'worst s':>7}")
    rows = []
    cells = []
    tasks = [(system.name, every_mutant.index(mutant), each, args.settings) for mutant in mutants for each in seeds]
    outcomes = ordered_map(_search, tasks, args.jobs)
    with out.progress(f"{system.name} mutants x seeds", total=len(mutants) * len(seeds)) as advance:
        for mutant in mutants:
            kills = []
            for _ in seeds:
                kills.append(next(outcomes))
                advance(note=f"{mutant.name}: {'killed' if kills[-1][1] else 'survived'}")
            row = _rate(mutant, kills)
            rows.append(row)
            name, profile, killed, invariant, median, worst = _cells(row)
            cells.append([name, profile, killed, invariant, median, worst])
            out.text(f"{name:<{width}}  {killed:>7}  {invariant:<28}  {median:>8}  {worst:>7}")
            if out.mode == "quiet":
                out.verdict(f"{'KILLED' if row['killed'] == row['seeds'] else 'SURVIVED'}: {name} {killed}")
    every = sum(r["killed"] == r["seeds"] for r in rows)
    if out.rich:
        from ledgerspec.conformance.render._term import simple_table  # noqa: PLC0415 - only on a terminal

        out.show(simple_table(title, ["mutant", "profile", "killed", "invariant", "median s", "worst s"], cells))
    out.text()
    out.text(f"{every}/{len(rows)} mutants killed under every seed")
    out.show(f"{every}/{len(rows)} mutants killed under every seed")
    if args.html:
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked

        page = HtmlReport(f"ledgerspec mutants --system {system.name}")
        lockstep_views.mutants_section(page, system.name, rows, settings=args.settings, seeds=which)
        page.paragraph(f"{every}/{len(rows)} mutants killed under every seed.")
        page.write(args.html)
    if args.json:
        document = {"system": system.name, "settings": args.settings, "seed": seed, "seeds": args.seeds}
        Path(args.json).write_text(json.dumps({**document, "mutants": rows}, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK if every == len(rows) else EXIT_FAIL


def _cells(row: dict[str, Any]) -> tuple[str, str, str, str, str, str]:
    """A matrix row as printed: name, profile, killed/seeds, invariants, median and worst seconds."""
    median = "-" if row["median_seconds"] is None else f"{row['median_seconds']:.1f}"
    worst = "-" if row["worst_seconds"] is None else f"{row['worst_seconds']:.1f}"
    invariant = ", ".join(row["invariants"]) or "-"
    return row["name"], row["profile"], f"{row['killed']}/{row['seeds']}", invariant, median, worst


def _search(task: tuple[str, int, int, str]) -> tuple[int, str | None, float]:
    """One mutant under one seed (system, mutant index, seed, settings): the invariant that broke, the time.

    Module level and by index, so that it runs in a worker process (``--jobs``).
    """
    name, index, seed, settings_name = task
    system = SYSTEMS[name]
    mutant = system.mutants()[index]
    start = time.perf_counter()
    report = conform(system, mutant.adapter, mutant.profile, settings_name=settings_name, seed=seed)
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


def _refuse(command: str, instead: str) -> Callable[..., int]:
    def refuse(args: argparse.Namespace, *_: Any) -> int:
        raise InputError(f"--system {args.system}: `ledgerspec {command}` is the cache's; {instead}")

    return refuse


def _record(args: argparse.Namespace) -> int:
    from ledgerspec.traces.lockstep._cli import run_record_system  # noqa: PLC0415 - pyarrow only when recording

    return run_record_system(args)


def _replay(args: argparse.Namespace, data: Any) -> int:
    from ledgerspec.conformance.lockstep._replay import run_replay_system  # noqa: PLC0415

    return run_replay_system(args, args.case_system, data)


def _mutants(args: argparse.Namespace) -> int:
    """Its own mutants (``--path`` is the cache's: refused, never ignored)."""
    if args.path:
        raise InputError(f"--path {args.path}: the {args.system} system runs its own mutants only (cache only)")
    return run_mutants(args)


def commands(system: System) -> Commands:
    """The lockstep engine's commands over ``system``'s record (``systems.commands_of``)."""
    return Commands(
        conform=run_conform,
        replay=_replay,
        smoke=lazy("ledgerspec.conformance.lockstep._smoke:run_smoke"),
        matrix=lazy("ledgerspec.conformance.lockstep._smoke:run_matrix"),
        mutants=_mutants,
        show=run_show,
        record=_record,
        adapters=functools.partial(adapter_lines, system),
        check_trace=lazy("ledgerspec.traces.lockstep._check:check_trace"),
        trace_rows=lambda _path: None,
        generate=_refuse("traces generate", f"`ledgerspec traces record --system {system.name}` writes its traces"),
        bench_traces=_refuse("traces bench", "its histories are short and replayed whole"),
        deviations=_refuse("deviations", "its section of DEVIATIONS.md is its record's (System.deviations)"),
        bench=_refuse("bench", "`ledgerspec conform --system NAME --json FILE` records its steps and seconds"),
    )
