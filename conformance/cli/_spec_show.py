"""``ledgerspec spec show``: the invariant catalogue, as each invariant's module declares it.

Id, statement, citation, claiming profiles, the adapter capabilities and trace events its check
needs, the partition it is checked on and why that is sound, and what only conformance checks.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._names import PROFILE_HELP, add_system_option, check_profile
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.systems import lockstep_system

if TYPE_CHECKING:
    from ledgerspec.spec.cache import Invariant


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``spec show``."""
    spec = subcommands.add_parser("spec", help="the executable specification of each system")
    actions = spec.add_subparsers(dest="spec_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print the invariant catalogue")
    add_system_option(show)
    show.add_argument(
        "--profile",
        metavar="PROFILE",
        help="only the invariants this profile claims; " + PROFILE_HELP.split(": ", 1)[1],
    )
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(run=run_show)
    findings = actions.add_parser(
        "findings", help="replay the committed cases of a system's findings about its design (PIP-381: P1-P4)"
    )
    findings.add_argument(
        "--system", choices=("cursor-state",), default="cursor-state", help="the system (default: cursor-state)"
    )
    findings.add_argument("--json", metavar="FILE", help="also write every finding's replays as JSON")
    findings.set_defaults(run=run_findings)


def run_findings(args: argparse.Namespace) -> int:
    """``spec findings``: each finding replayed on the design and on the fix; exit 1 if one is not shown."""
    import importlib  # noqa: PLC0415

    system = lockstep_system(args.system)
    if system is None or not system.findings:
        raise InputError(f"--system {args.system}: the system has no committed findings to replay")
    findings = importlib.import_module(system.findings)  # the system's modules, when asked
    check_outputs(args, files=("json",))
    shown = [findings.show(finding) for finding in findings.load_findings()]
    if not shown:
        raise InputError(f"{findings.FINDINGS_DIR}: no finding's case (*.json) to replay")
    for each in shown:
        print(findings.render(each) + "\n")
    every = sum(each.demonstrated for each in shown)
    print(
        f"{every}/{len(shown)} findings demonstrated: reference-{findings.DESIGN} breaks each, "
        f"reference-{findings.FIXED} keeps it"
    )
    if args.json:
        document = {"system": args.system, "findings": [findings.to_json(each) for each in shown]}
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0 if every == len(shown) else 1


def _by_profile(invariant: Invariant, what: str) -> dict[str, list[str]]:
    """Per claiming profile, the sorted capabilities (``needs``) or trace events (``events``) it needs."""
    pick = invariant.needs_for if what == "needs" else invariant.events_for
    return {profile: sorted(pick(profile)) for profile in invariant.profiles}


def describe(invariant: Invariant) -> dict[str, Any]:
    """An invariant's declaration as plain data (``spec show --json``)."""
    return {
        "id": invariant.id,
        "statement": invariant.statement,
        "profiles": list(invariant.profiles),
        "source": invariant.citation,
        "needs": _by_profile(invariant, "needs"),
        "events": _by_profile(invariant, "events"),
        "checked_on_traces": invariant.on_traces,
        "partition": invariant.partition,
        "soundness": invariant.soundness,
        "conformance_only": invariant.conformance_only,
    }


def run_show(args: argparse.Namespace) -> int:
    """Print the catalogue of the chosen system as a table or JSON (the catalogues load only here)."""
    check_profile(args.system, args.profile)
    if lockstep_system(args.system) is not None:
        from ledgerspec.conformance.cli import _systems  # noqa: PLC0415 - a usage error costs no import

        return _systems.run_show(args)
    return _show_cache(args)


def _show_cache(args: argparse.Namespace) -> int:  # noqa: C901 - JSON and text outputs of one command
    """The cache's catalogue."""
    from ledgerspec.spec.cache import CATALOGUE, NAMED_CONFIGS, PROFILES, get_profile  # noqa: PLC0415

    invariants = [i for i in CATALOGUE if args.profile is None or i.claimed_by(args.profile)]
    if args.json:
        document: dict[str, Any] = {
            "profiles": {name: {"summary": p.summary, "source": p.source} for name, p in PROFILES.items()},
            "named_configs": {
                n.name: {"profile": n.profile, "summary": n.summary, "source": n.source, "values": n.values}
                for n in NAMED_CONFIGS.values()
                if args.profile in {None, n.profile}
            },
            "invariants": [describe(i) for i in invariants],
        }
        if args.profile:
            document["profile"] = args.profile
        print(json.dumps(document, indent=2))
        return 0
    if args.profile:
        profile = get_profile(args.profile)
        print(f"profile {profile.name}: {profile.summary}\n  source: {profile.source}\n")
        for named in NAMED_CONFIGS.values():
            if named.profile == profile.name:
                values = ", ".join(f"{k}={v!r}" for k, v in named.values.items())
                print(f"  config preset {named.name} ({values}): {named.summary}")
                print(textwrap.indent(textwrap.fill(f"source: {named.source}", 96), "    "))
        print()
    for invariant in invariants:
        print(invariant.id)
        print(textwrap.indent(textwrap.fill(invariant.statement, 96), "    "))
        print(f"    claimed by: {', '.join(invariant.profiles)}")
        print(textwrap.indent(textwrap.fill(f"source: {invariant.citation}", 96), "    "))
        for label, what in (("adapter needs", "needs"), ("trace events", "events")):
            shown = {p: v for p, v in _by_profile(invariant, what).items() if v}
            if shown:
                distinct = {", ".join(v) for v in shown.values()}
                text = (
                    next(iter(distinct))
                    if len(distinct) == 1 and len(shown) == len(invariant.profiles)
                    else "; ".join(f"{p}: {', '.join(v)}" for p, v in shown.items())
                )
                print(f"    {label}: {text}")
        if not invariant.on_traces:
            print(textwrap.indent(textwrap.fill(f"not on traces: {invariant.soundness}", 96), "    "))
        else:
            print(
                textwrap.indent(textwrap.fill(f"partition: {invariant.partition}, {invariant.soundness}", 96), "    ")
            )
        if invariant.conformance_only:
            print(textwrap.indent(textwrap.fill(f"conformance only: {invariant.conformance_only}", 96), "    "))
        print()
    return 0
