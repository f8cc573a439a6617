"""``smoke`` and ``matrix`` of a lockstep system: is an adapter wired right, and every adapter against every profile.

``smoke`` drives the adapter through a seeded walk of the operations it claims, over the profile's default
configuration, and stops it: an adapter that crashes, answers in the wrong shape (a process adapter's
answers are checked against the system's protocol) or cannot stop is an adapter fault, exit 3. The answers
are not judged: that is ``conform``'s work, so ``SMOKE OK`` says nothing about conformance.

``matrix`` runs ``conform``'s search of each of the system's installed adapters (its references and real
harnesses) against each of its profiles, and prints the verdicts in one table.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import AdapterFault, InputError, close_factory
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_OK
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.lockstep._commands import chosen_profile, refuse_cache_only, report_json
from ledgerspec.conformance.lockstep._engine import conform
from ledgerspec.conformance.render._term import Out, simple_table
from ledgerspec.conformance.systems import SYSTEMS

SMOKE_STEPS = 200
"""Operations of the walk: every kind the adapter claims shows up in far fewer."""


def run_smoke(args: argparse.Namespace) -> int:
    """0 if the adapter starts, answers every operation of the walk and stops; 3 (an adapter fault) otherwise."""
    from ledgerspec.conformance.lockstep._adapters import resolve_adapter, walk  # noqa: PLC0415

    system = SYSTEMS[args.system]
    default, factory, process, capabilities = resolve_adapter(
        system.name, args.adapter, timeout=args.timeout or 60.0, validate=args.validate_protocol
    )
    profile = chosen_profile(system, args, default)
    config = system.config()
    ops = walk(system.name, profile, config, 0, SMOKE_STEPS, capabilities)
    kinds: Counter[str] = Counter(type(op).__name__ for op in ops)
    problem = None
    try:
        candidate = factory()
        candidate.start(config)
        for op in ops:
            candidate.apply(op)
        candidate.stop()
    except AdapterFault as fault:
        problem = str(fault)
    finally:
        stopped = close_factory(process)
    problem = problem or (str(stopped) if stopped is not None else None)
    print(f"{args.adapter} / {profile}: {len(ops)} operations of {system.name} ({', '.join(sorted(kinds))})")
    if problem is not None:
        print(f"SMOKE FAILED ({args.adapter}): {problem}")
        return EXIT_ADAPTER_FAULT
    print(f"SMOKE OK: {args.adapter} is wired right (this says nothing about conformance)")
    return EXIT_OK


def run_matrix(args: argparse.Namespace) -> int:
    """Each installed adapter of the system against each of its profiles; exit 1 if a run faulted."""
    system = SYSTEMS[args.system]
    refuse_cache_only(args, system.name)
    if args.html:
        raise InputError(f"--html {args.html}: the {system.name} matrix is a table and --json (no HTML page yet)")
    check_outputs(args, files=("json",))
    out = Out.for_args(args)
    adapters = [*system.references(), *system.real()]
    seed = 0 if args.seed is None else int(args.seed)
    rows: list[list[Any]] = []
    reports: list[dict[str, Any]] = []
    with out.progress("matrix: adapter x profile runs", total=len(adapters) * len(system.profiles)) as advance:
        for adapter in adapters:
            cells = []
            for profile in system.profiles:
                report = _search(system.name, adapter, profile, args.settings, seed)
                reports.append(report_json(report, adapter))
                broken = report.violation.invariant if report.violation is not None else None
                verdict = report.verdict.value + (f" ({broken})" if broken else "")
                cells.append(verdict)
                advance(note=f"{adapter} / {profile}: {verdict}")
                if out.mode == "quiet":
                    out.verdict(f"{verdict}: {adapter} / {profile}")
            rows.append([adapter, *cells])
    table = [["adapter", *system.profiles], *rows]
    widths = [max(len(str(cell)) for cell in column) for column in zip(*table, strict=True)]
    for row in table:
        out.text("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=True)).rstrip())
    if out.rich:
        out.show(simple_table(f"{system.name}: adapters against profiles", ["adapter", *system.profiles], rows))
    if out.mode != "quiet":
        print("\nFAIL (I): the search stopped at invariant I; `ledgerspec conform --system` shows the counterexample.")
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK


def _search(system: str, adapter: str, profile: str, settings: str, seed: int) -> Any:
    """One search of ``adapter`` against ``profile`` (its report: PASS, FAIL at an invariant, or ERROR)."""
    from ledgerspec.conformance.lockstep._adapters import resolve_adapter  # noqa: PLC0415

    _, factory, process, capabilities = resolve_adapter(system, adapter)
    try:
        return conform(SYSTEMS[system], factory, profile, settings_name=settings, seed=seed, capabilities=capabilities)
    finally:
        close_factory(process)
