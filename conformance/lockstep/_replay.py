"""``ledgerspec replay`` of a lockstep system's counterexample: its steps against an adapter, once.

The file is what ``conform --system S --json`` wrote (or its ``counterexample``); the adapter is any
the system takes (a reference, a mutant, real code, ``exec:COMMAND``). The model steps on each
operation in lockstep with the adapter, as in the search, and the case's invariant (every claimed
one with ``--all``) judges each step: exit 1 if one breaks, 0 if every step holds, 3 on an adapter
fault. So a fix is checked against the very steps that showed the bug.
"""

from __future__ import annotations

import argparse
from typing import Any

from ledgerspec.conformance._errors import AdapterFault, InputError, close_factory, shown_lines
from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_OK
from ledgerspec.conformance.lockstep._case import read_case
from ledgerspec.conformance.lockstep._engine import LockstepRun, claiming, replay
from ledgerspec.conformance.render._explain import lockstep_config_lines
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.spec import SpecError

EXIT_FAIL = 1


def run_replay_system(args: argparse.Namespace, system: str, data: Any) -> int:
    """Replay the case in ``data`` (read from ``args.case``) against ``args.adapter``."""
    from ledgerspec.conformance.lockstep._adapters import resolve_adapter, unclaimed  # noqa: PLC0415

    case = read_case(system, data, args.case)
    default, factory, process, capabilities = resolve_adapter(
        system, args.adapter, timeout=args.timeout or 60.0, validate=args.validate_protocol
    )
    try:
        profile = case.profile or default
        record = SYSTEMS[system]
        if profile not in record.profiles:
            profiles = ", ".join(record.profiles)
            raise InputError(f"{args.case}: field 'profile': {profile!r}; the {system} system has {profiles}")
        problem = unclaimed(system, case.config, case.steps, capabilities)
        if problem is not None:
            raise InputError(f"{args.case}: {problem}, which {args.adapter} does not claim")
        which = () if args.all or case.invariant is None else (case.invariant,)
        machine = record
        what = "every claimed invariant" if not which else case.invariant
        if case.invariant is not None and which and case.invariant not in {i.id for i in machine.claimed(profile)}:
            known = [inv.id for inv in record.invariants]
            if case.invariant not in known:
                raise InputError(f"{args.case}: field 'invariant': {case.invariant!r}; the {system} system has {known}")
            machine = claiming(machine, case.invariant)  # a finding about a profile that does not claim it
            what = f"{case.invariant} (which {profile} does not claim)"
        run = LockstepRun(machine, factory, profile, which, capabilities)
        head = f"{system}: {len(case.steps)} steps of {args.case} against {args.adapter} / {profile}, judged by {what}"
        try:
            broken = replay(run, case.config, case.steps, strict=True)
        except AdapterFault as fault:
            print(head)
            print("\n".join(shown_lines(str(fault), "ADAPTER FAULT: ", "")))
            return EXIT_ADAPTER_FAULT
        except SpecError as error:
            raise InputError(f"{args.case}: the steps are not possible for {profile}: {error}") from None
    finally:
        stop_fault = close_factory(process)  # the final ``stop``: a fault there is no PASS
    print(head)
    print("\n".join(f"  {line}" for line in lockstep_config_lines(system, profile, case.config)))
    if stop_fault is not None:
        print("\n".join(shown_lines(str(stop_fault), "ADAPTER FAULT: ", "")))
        return EXIT_ADAPTER_FAULT
    if broken is not None:
        first, *rest = broken[1].splitlines() or [""]
        print("\n".join([f"FAIL: {broken[0]}: {first}", *(f"  {line}" for line in rest)]))
        return EXIT_FAIL
    print(f"PASS: every step held ({what}; the case said: {case.invariant or 'nothing'})")
    return EXIT_OK
