"""The bulk replay against the normative rules: the same verdict and the same first violating event.

For a broker's events, :func:`compare` runs the trace checkers' bulk replay (numpy) and the plain
:class:`~ledgerspec.spec.cache._normative.Judge` with the invariants that have a rule, and names every
invariant on which they part: one finds a violation and the other none, their first violations are
at different events, one says the events end unjudged and the other not, or one refuses the events
as badly bracketed and the other not (or at another event).

The corpus (:func:`corpus`): the sample traces, every injected violation of each profile, generated
workloads of each profile, and the traces ``traces record`` writes of every reference adapter and
catalogue mutant (tests/quality/recorded.py). Run as a script to print the mismatches of one
invariant: ``python tests/quality/differential.py CACHE-FIFO``.
"""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.spec.cache import CacheConfig
from ledgerspec.spec.cache._events import CONFIG, CONFIG_FIELDS, KIND_NAMES, KINDS, PASS_KINDS
from ledgerspec.spec.cache._normative import Judge
from ledgerspec.spec.cache._normative import TraceStructureError as PlainStructureError
from ledgerspec.spec.cache._shadow import Event
from ledgerspec.spec.cache.invariants import CATALOGUE
from ledgerspec.traces.cache.bulk import Replay, TraceStructureError
from ledgerspec.traces.cache.bulk._chunk import NULL, Chunk, chunk_from_events

ROOT = Path(__file__).resolve().parents[2]


def ruled(profile: str) -> list[str]:
    """The invariants ``profile`` claims whose rule is written, that traces can show."""
    return [i.id for i in CATALOGUE if i.claimed_by(profile) and i.check is not None and i.on_traces]


def events_of(c: Chunk) -> list[Event]:
    """A chunk's events as the plain rules read them."""
    out = []
    for i in range(len(c)):
        kind = int(c.kind[i])
        reason_code = int(c.reason[i])
        if reason_code < 0:
            reason = None
        elif kind == CONFIG:
            reason = CONFIG_FIELDS[reason_code]
        elif KIND_NAMES[kind] == "miss":
            reason = KINDS["miss"].reasons[reason_code]
        else:
            reason = PASS_KINDS[reason_code]
        value = float(c.value[i])

        def num(column: Any, at: int = i) -> int | None:
            v = int(column[at])
            return None if v == NULL else v

        out.append(
            Event(
                KIND_NAMES[kind],
                int(c.seq[i]),
                int(c.row[i]),
                int(c.time[i]),
                num(c.ledger),
                num(c.entry),
                num(c.size),
                num(c.count),
                num(c.timestamp),
                reason,
                num(c.copy),
                c.cursor_names[int(c.cursor[i])] if int(c.cursor[i]) >= 0 else None,
                None if math.isnan(value) else value,
                num(c.result),
            )
        )
    return out


@dataclass(frozen=True)
class Outcome:
    """What one engine says of a broker: per invariant its first violation (seq) or None; unjudged; refused."""

    first: dict[str, int | None]
    unjudged: str | None
    refused: int | None


def bulk(profile: str, config: CacheConfig, chunks: list[Chunk], ids: list[str]) -> Outcome:
    replay = Replay("b", profile, config, [i for i in CATALOGUE if i.id in ids], keep=None)
    try:
        for c in chunks:
            replay.feed(c)
    except TraceStructureError as error:
        return Outcome({}, None, error.seq)
    return Outcome(_firsts(replay.findings, ids), _claims(replay.finish()), None)


def plain(profile: str, config: CacheConfig, chunks: list[Chunk], ids: list[str]) -> Outcome:
    rules = [(i.id, i.check) for i in CATALOGUE if i.id in ids and i.check is not None]
    judge = Judge("b", profile, config, rules, keep=None)
    try:
        for c in chunks:
            judge.feed(events_of(c))
    except PlainStructureError as error:
        return Outcome({}, None, error.seq)
    return Outcome(_firsts(judge.findings, ids), _claims(judge.finish()), None)


def _firsts(findings: list[Any], ids: list[str]) -> dict[str, int | None]:
    first: dict[str, int | None] = dict.fromkeys(ids)
    for f in findings:
        seq = f.seq if f.first is None else f.first[0]
        current = first[f.invariant]
        first[f.invariant] = seq if current is None else min(current, seq)
    return first


def _claims(reason: str | None) -> str | None:
    """Which invariants say the events end unjudged (the wording is each engine's)."""
    if reason is None:
        return None
    names = sorted(
        {part.split(":")[0].strip() for part in reason.split(";") if part.strip().startswith(("CACHE", " CACHE"))}
    )
    return ",".join(names) or "pass"


def compare(
    label: str, profile: str, config: CacheConfig, chunks: list[Chunk], ids: list[str] | None = None
) -> list[str]:
    """The invariants on which the two engines part on these events, said in one line each."""
    ids = ruled(profile) if ids is None else ids
    if not ids:
        return []
    a, b = bulk(profile, config, chunks, ids), plain(profile, config, chunks, ids)
    if a.refused != b.refused:
        return [f"{label}: bulk refuses at seq {a.refused}, plain at seq {b.refused}"]
    out = [
        f"{label}: {invariant}: bulk first at {a.first[invariant]}, plain first at {b.first[invariant]}"
        for invariant in ids
        if a.first.get(invariant) != b.first.get(invariant)
    ]
    if a.unjudged != b.unjudged:
        out.append(f"{label}: unjudged: bulk {a.unjudged}, plain {b.unjudged}")
    return out


# --- the corpus ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    label: str
    profile: str
    config: CacheConfig
    chunks: list[Chunk]


def from_trace(path: Path, label: str) -> Iterator[Case]:
    from ledgerspec.traces.cache._io import open_trace
    from ledgerspec.traces.cache._local import split_by_broker

    trace = open_trace(path)
    by_broker: dict[str, list[Chunk]] = {}
    for first, batch in trace.batches():
        for broker, chunk in split_by_broker(batch, first):
            by_broker.setdefault(broker, []).append(chunk)
    for broker, chunks in by_broker.items():
        yield Case(f"{label}:{broker}", trace.header.profile, trace.config, chunks)


def samples() -> Iterator[Case]:
    for path in sorted((ROOT / "traces" / "samples").glob("*.jsonl")):
        yield from from_trace(path, path.name)


def injections() -> Iterator[Case]:
    from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
    from ledgerspec.traces.cache._inject import inject, injectable

    for profile in ("pip430", "pulsar-master", "legacy", "segmented"):
        for invariant in injectable(profile):
            events, _ = inject(invariant, profile, DEFAULT_CONFIG)
            rows = [dict(zip(events, values, strict=True)) for values in zip(*events.values(), strict=True)]
            yield Case(f"inject {profile} {invariant}", profile, DEFAULT_CONFIG, [chunk_from_events(rows)])


def generated(events: int = 3000, seeds: tuple[int, ...] = (0, 1)) -> Iterator[Case]:
    from ledgerspec.traces.cache._generate import WORKLOADS, generate_trace

    with tempfile.TemporaryDirectory() as folder:
        for profile in ("pip430", "pulsar-master", "legacy", "segmented"):
            for workload in sorted(WORKLOADS):
                for seed in seeds:
                    out = Path(folder) / f"{profile}-{workload}-{seed}.parquet"
                    try:
                        generate_trace(
                            str(out), workload=workload, events=events, seed=seed, profile=profile, brokers=1
                        )
                    except Exception:  # noqa: BLE001 - a workload a profile does not run
                        continue
                    yield from from_trace(out, out.name)


def load_recorded() -> Any:
    """tests/quality/recorded.py, loaded once (its recordings are made once per session)."""
    import importlib.util

    name = "_ledgerspec_recorded"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("recorded.py"))
    assert spec is not None
    assert spec.loader is not None
    recorded = importlib.util.module_from_spec(spec)
    sys.modules[name] = recorded
    spec.loader.exec_module(recorded)
    return recorded


def recordings() -> Iterator[Case]:
    """The recordings of tests/quality/recorded.py; kept in ``$LEDGERSPEC_RECORDINGS`` when set (made once).

    Judged by the monitor as they are made, so that test_trace_agreement.py, in the same session,
    reuses them instead of recording them again.
    """
    import os

    kept = os.environ.get("LEDGERSPEC_RECORDINGS")
    if kept and (Path(kept) / "DONE").exists():
        for path in sorted(Path(kept).glob("*/*.jsonl")):
            yield from from_trace(path, f"{path.parent.name} {path.stem}")
        return
    recorded = load_recorded()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(kept) if kept else Path(scratch)
        for candidate in recorded.CANDIDATES:
            (folder / candidate.name).mkdir(parents=True, exist_ok=True)
            for recording in recorded.record_all(candidate, folder / candidate.name):
                yield from from_trace(recording.path, f"{candidate.name} {recording.label}")
        if kept:
            (folder / "DONE").touch()


def corpus(*, quick: bool = False) -> Iterator[Case]:
    """Every case of the differential test (``quick``: the samples and the injections only)."""
    yield from samples()
    yield from injections()
    if not quick:
        yield from generated()
        yield from recordings()


def _default_recordings() -> None:
    """The script keeps its recordings between runs, under a key of the code that makes them."""
    import hashlib
    import os

    if "LEDGERSPEC_RECORDINGS" in os.environ:
        return
    digest = hashlib.sha256()
    sources = ("reference", "conformance/mutants", "conformance/adapters", "spec/cache", "traces")
    for folder in sources:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "invariants" not in path.parts:
                digest.update(path.read_bytes())
    digest.update((Path(__file__).with_name("recorded.py")).read_bytes())
    home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    os.environ["LEDGERSPEC_RECORDINGS"] = str(home / "ledgerspec" / f"recordings-{digest.hexdigest()[:16]}")


def main(argv: list[str]) -> int:
    _default_recordings()
    ids = argv[1:] or None
    quick = "--quick" in argv
    ids = [i for i in (ids or []) if not i.startswith("--")] or None
    bad = 0
    for case in corpus(quick=quick):
        wanted = ruled(case.profile) if ids is None else [i for i in ids if i in ruled(case.profile)]
        for line in compare(case.label, case.profile, case.config, case.chunks, wanted):
            bad += 1
            print(line)
    print(f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
