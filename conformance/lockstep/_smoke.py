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
from collections import Counter
from typing import Any

from ledgerspec.conformance._errors import AdapterFault, InputError, close_factory
from ledgerspec.conformance._settings import get_settings
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_FAIL, EXIT_OK
from ledgerspec.conformance.lockstep._commands import refuse_cache_only
from ledgerspec.conformance.lockstep._engine import conform
from ledgerspec.conformance.render._term import Out, simple_table
from ledgerspec.conformance.systems import SYSTEMS

SMOKE_STEPS = 200
"""Operations of the walk: every kind the adapter claims shows up in far fewer."""


def run_smoke(args: argparse.Namespace) -> int:
    """0 if the adapter starts, answers every operation of the walk and stops; 3 (an adapter fault) otherwise."""
    from ledgerspec.traces.lockstep._record import resolve_adapter, walk  # noqa: PLC0415

    system = SYSTEMS[args.system]
    default, factory, process, capabilities = resolve_adapter(system.name, args.adapter, timeout=args.timeout or 60.0)
    profile = args.profile or default
    if profile not in system.profiles:
        raise InputError(f"--profile {profile}: the {system.name} system has profiles {', '.join(system.profiles)}")
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
    out = Out.for_args(args)
    adapters = [*system.references(), *system.real()]
    seed = 0 if args.seed is None else int(args.seed)
    rows: list[list[Any]] = []
    faulted = False
    with out.progress("matrix: adapter x profile runs", total=len(adapters) * len(system.profiles)) as advance:
        for adapter in adapters:
            cells = []
            for profile in system.profiles:
                verdict = _verdict(system.name, adapter, profile, args.settings, seed)
                faulted |= verdict.startswith("ERROR")
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
    return EXIT_FAIL if faulted else EXIT_OK


def _verdict(system: str, adapter: str, profile: str, settings: str, seed: int) -> str:
    """One search of ``adapter`` against ``profile``: PASS, FAIL (the invariant it broke first), or ERROR (a fault)."""
    from ledgerspec.traces.lockstep._record import resolve_adapter  # noqa: PLC0415

    get_settings(settings)
    _, factory, process, capabilities = resolve_adapter(system, adapter)
    try:
        report = conform(
            SYSTEMS[system], factory, profile, settings_name=settings, seed=seed, capabilities=capabilities
        )
    finally:
        close_factory(process)
    broken = report.violation.invariant if report.violation is not None else None
    return report.verdict.value + (f" ({broken})" if broken else "")
