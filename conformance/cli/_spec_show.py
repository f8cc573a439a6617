"""``ledgerspec spec show``: print the invariant catalogue (id, statement, claiming profiles, source)."""

from __future__ import annotations

import argparse
import json
import textwrap

from ledgerspec.spec.cache import CATALOGUE, NAMED_CONFIGS, PROFILES, get_profile


def register(subcommands: argparse._SubParsersAction) -> None:
    """Add ``spec show``."""
    spec = subcommands.add_parser("spec", help="the executable specification")
    actions = spec.add_subparsers(dest="spec_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print the invariant catalogue")
    show.add_argument("--profile", choices=sorted(PROFILES), help="only the invariants this profile claims")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(run=run_show)


def run_show(args: argparse.Namespace) -> int:
    """Print the catalogue as a table or JSON."""
    invariants = [i for i in CATALOGUE if args.profile is None or i.claimed_by(args.profile)]
    if args.json:
        document = {
            "profiles": {name: {"summary": p.summary, "source": p.source} for name, p in PROFILES.items()},
            "named_configs": {
                n.name: {"profile": n.profile, "summary": n.summary, "source": n.source, "values": n.values}
                for n in NAMED_CONFIGS.values()
                if args.profile in {None, n.profile}
            },
            "invariants": [
                {"id": i.id, "statement": i.statement, "profiles": list(i.profiles), "source": i.source}
                for i in invariants
            ],
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
        print(f"    source: {invariant.source}\n")
    return 0
