"""The cache's ``traces record``: drive an adapter with a generated workload and write its trace."""

from __future__ import annotations

import argparse
import json
import sys

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.adapters import load_adapter
from ledgerspec.conformance.systems import SYSTEMS, lockstep_system
from ledgerspec.spec import ConfigError
from ledgerspec.spec.cache import PROFILES, CacheConfig
from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
from ledgerspec.traces.cache._record import record_trace


def config_option(text: str | None) -> CacheConfig:
    """``--config``: overrides of the default configuration, a JSON object (an option error, not the trace's)."""
    if not text:
        return DEFAULT_CONFIG
    try:
        overrides = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"--config: invalid JSON: {error.msg}") from None
    if not isinstance(overrides, dict):
        raise ConfigError(f"--config: want a JSON object, got {json.dumps(overrides)[:40]}")
    return CacheConfig.from_dict({**DEFAULT_CONFIG.to_dict(), **overrides}, where="--config")


def run_record(args: argparse.Namespace) -> int:
    """Drive a cache adapter with a workload and write its trace (the shared ``traces record`` checked ``--out``)."""
    if args.profile is not None and args.profile not in PROFILES:
        raise InputError(f"--profile {args.profile}: the cache has profiles {', '.join(sorted(PROFILES))}")
    for option, value in (("--histories", args.histories), ("--case", args.case)):
        if value is not None:
            lockstep = "|".join(name for name in SYSTEMS if lockstep_system(name))
            raise InputError(f"{option} {value}: lockstep systems only (--system {lockstep})")
    recorded = record_trace(
        load_adapter(args.adapter),
        args.out,
        workload=args.workload or "mixed",
        events=args.events or 20_000,
        seed=args.seed or 0,
        profile=args.profile,
        config=config_option(args.config),
    )
    print(f"recorded {recorded.events} events of {args.adapter} to {args.out}", file=sys.stdout)
    if recorded.left_out:
        unsent = ", ".join(f"{name} x{count}" for name, count in recorded.left_out.items())
        print(f"not sent (the profile lacks them, or the adapter does not claim what they need): {unsent}")
    return 0
