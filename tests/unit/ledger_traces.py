"""Helpers of the managed-ledger trace tests: traces recorded from references and mutants, or written by hand.

Not a test module (pytest collects ``test_*.py``): the tests load it by path, as the project imports tests
in importlib mode.
"""

from __future__ import annotations

import json
from pathlib import Path

from ledgerspec.conformance.cache._mutants import factory_for, load_mutants
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.spec.cache import CacheConfig, Op
from ledgerspec.traces.cache._format import Header
from ledgerspec.traces.cache._generate import Recorder
from ledgerspec.traces.cache._io import TraceWriter
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._record import RecordingAdapter

CONFIG = CacheConfig(max_size=10_000, watermark=0.5, ttl=1_000, ttl_max=5_000)


def adapter(name: str):
    mutants = {m.name: m for m in load_mutants()}
    return factory_for(mutants[name])() if name in mutants else load_adapter(name)()


def record(name: str, profile: str, ops: list[Op], path: Path, config: CacheConfig = CONFIG) -> Path:
    """The trace ``traces record`` writes of ``ops`` run by ``name`` (a reference or a mutant)."""
    events = Recorder("b1")
    recording = RecordingAdapter(adapter(name), events)
    recording.start(config)
    for op in ops:
        recording.apply(op)
    with TraceWriter(path, Header(profile=profile, config=config.to_dict(), description=name)) as writer:
        writer.write_columns(events.take())
    return path


def broken(path: Path) -> dict[str, list[str]]:
    result = check_local(str(path))
    found: dict[str, list[str]] = {}
    for violation in result.violations:
        found.setdefault(violation.invariant, []).append(violation.message)
    assert (result.verdict == "VIOLATION") == bool(found)
    return found


def written(tmp_path: Path, profile: str, config: dict, events: list[dict]) -> Path:
    path = tmp_path / "hand.jsonl"
    header = {"format": "ledgerspec-trace", "version": 1, "profile": profile, "config": config}
    rows = [{"broker": "b1", "seq": seq, "time": seq, **event} for seq, event in enumerate(events, start=1)]
    path.write_text("\n".join(json.dumps(row) for row in [header, *rows]) + "\n")
    return path
