"""``ledgerspec spec show``: the invariant catalogue, as each invariant's module declares it.

Id, statement, citation, claiming profiles, the adapter capabilities and trace events its check
needs, the partition it is checked on and why that is sound, and what only conformance checks.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._names import PROFILE_HELP, add_system_option, check_profile
from ledgerspec.conformance.cli._options import check_outputs
from ledgerspec.conformance.systems import SYSTEMS, system_named


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
        "--system", metavar="SYSTEM", help="a system with committed findings (default: the one that has them)"
    )
    findings.add_argument("--json", metavar="FILE", help="also write every finding's replays as JSON")
    findings.set_defaults(run=run_findings)


def run_findings(args: argparse.Namespace) -> int:
    """``spec findings``: each finding replayed on the design and on the fix; exit 1 if one is not shown."""
    import importlib  # noqa: PLC0415

    if args.system is None:
        having = [name for name in SYSTEMS if SYSTEMS[name].findings]
        if len(having) != 1:
            raise InputError(f"--system: give one of the systems with committed findings: {', '.join(having)}")
        args.system = having[0]
    system = system_named(args.system)
    if not system.findings:
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


def run_show(args: argparse.Namespace) -> int:
    """Print the catalogue of the chosen system as a table or JSON (the catalogues load only here)."""
    check_profile(args.system, args.profile)
    from ledgerspec.conformance.systems import commands_of  # noqa: PLC0415 - a usage error costs no import

    return commands_of(args.system).show(args)
