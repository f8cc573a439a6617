"""The cache's ``spec show``: its invariant catalogue, as each invariant's module declares it.

Id, statement, citation, claiming profiles, the adapter capabilities and trace events its check
needs, the partition it is checked on and why that is sound, and what only conformance checks.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from ledgerspec.spec.cache import Invariant


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


def show(args: argparse.Namespace) -> int:  # noqa: C901 - JSON and text outputs of one command
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
