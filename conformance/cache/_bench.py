"""Benchmarks of the hot paths: reference operations, lockstep conformance, the process protocol.

Every figure is measured in one run and, where a comparison is meant, reported as a ratio to a
baseline measured in the same run (the machine is shared and noisy). ``ledgerspec bench`` prints
them; BENCHMARKS.md records them with the command.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache._presets import get_preset
from ledgerspec.conformance.cache.adapters import AdapterFactory, load_adapter
from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import (
    CacheConfig,
    EvictSize,
    EvictTimestamp,
    Get,
    Insert,
    Op,
    Release,
)

MIXED_CONFIG = CacheConfig(max_size=8 * 1024 * 1024, ttl=1_000_000_000, ttl_max=5_000_000_000)


def mixed_workload(operations: int, seed: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """A broker-like mix of operations, as (method, keyword arguments).

    Tailing inserts expected by 0-3 cursors, reads of recent and older entries (hits and misses),
    releases of the copies, a TTL pass every ~10 ms and a size eviction whenever the inserts since
    the last one may have crossed the trigger.
    """
    rng = random.Random(seed)
    now, tails, open_copies = 0, [0] * 16, 0
    calls: list[tuple[str, dict[str, Any]]] = []
    since_size, next_ttl = 0, 10_000_000
    while len(calls) < operations:
        now += rng.randint(20, 200) * 1000
        ledger = rng.randrange(16)
        roll = rng.random()
        if roll < 0.4:
            size = int(rng.lognormvariate(8.5, 1.0)) + 64
            calls.append(
                (
                    "insert",
                    {
                        "now": now,
                        "ledger": ledger,
                        "entry": tails[ledger],
                        "size": size,
                        "expected_reads": rng.randint(0, 3),
                    },
                )
            )
            tails[ledger] += 1
            since_size += size
            if since_size > MIXED_CONFIG.max_size // 50:
                calls.append(("evict_size", {"now": now}))
                since_size = 0
        elif roll < 0.75:
            entry = max(0, tails[ledger] - int(rng.expovariate(1 / 20)))
            calls.append(("get", {"now": now, "ledger": ledger, "entry": entry}))
            open_copies += 1
        elif open_copies:
            calls.append(("release", {"now": now, "copy": None}))
            open_copies -= 1
        if now >= next_ttl:
            calls.append(("evict_timestamp", {"now": now}))
            next_ttl = now + 10_000_000
    return calls


def reference_ops_per_second(profile: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[float, int]:
    """Run the workload on a fresh reference cache; (operations per second, operations run)."""
    cache = CACHES[profile](**MIXED_CONFIG.to_dict())
    copies: list[int] = []
    started = time.perf_counter()
    for method, kwargs in calls:
        if method == "release":
            if not copies:
                continue
            cache.release(now=kwargs["now"], copy=copies.pop(0))
        elif method == "get":
            copy = cache.get(**kwargs)
            if copy is not None:
                copies.append(copy)
        else:
            getattr(cache, method)(**kwargs)
    elapsed = time.perf_counter() - started
    return len(calls) / elapsed, len(calls)


def lockstep_steps_per_second(factory: AdapterFactory, profile: str, seed: int = 1) -> tuple[float, int, str]:
    """One passing conformance run (quick settings): (steps per second, steps, verdict)."""
    report = conform(factory, profile=profile, settings="quick", seed=seed)
    return report.steps / report.seconds, report.steps, report.verdict


def round_trips(
    factory: AdapterFactory, steps: int = 3000, seed: int = 2, warmup: int = 1000, preset: str = "minimal"
) -> dict[str, float]:
    """Time each step of a conformance-like mix: one apply, its reply and the observation after it.

    On the ``minimal`` preset's configuration a handful of entries is cached; on ``pulsar-defaults``
    nothing is evicted, so the cache grows by about one entry every other step. Microseconds.
    ``warmup`` steps on a first cache are not timed (a JVM compiles its hot code meanwhile).
    """
    config = get_preset(preset).config
    adapter = factory()
    try:
        _timed_steps(adapter, config, warmup, seed)
        samples = sorted(_timed_steps(adapter, config, steps, seed))
    finally:
        adapter.stop()
        closer = getattr(factory, "close", None)
        if callable(closer):
            closer()
    return {
        "median_us": statistics.median(samples),
        "p90_us": samples[int(len(samples) * 0.9)],
        "p99_us": samples[int(len(samples) * 0.99)],
        "steps_per_second": len(samples) / (sum(samples) / 1e6),
    }


def _timed_steps(adapter: Any, config: CacheConfig, steps: int, seed: int) -> list[float]:
    """A fresh cache, then ``steps`` timed steps; microseconds each."""
    rng = random.Random(seed)
    adapter.start(config)
    copies: list[int] = []
    samples = []
    for now in range(1, steps + 1):
        roll = rng.random()
        if roll < 0.45:
            op: Op = Insert(now=now, ledger=rng.randrange(4), entry=now, size=rng.randint(1, 120), expected_reads=1)
        elif roll < 0.8:
            op = Get(now=now, ledger=rng.randrange(4), entry=max(1, now - rng.randint(1, 30)))
        elif roll < 0.95 and copies:
            op = Release(now=now, copy=copies.pop())
        elif roll < 0.9:
            op = EvictTimestamp(now=now)
        else:
            op = EvictSize(now=now)
        started = time.perf_counter()
        result = adapter.apply(op)
        adapter.observe()
        samples.append((time.perf_counter() - started) * 1e6)
        if isinstance(op, Get) and result is not None:
            copies.append(result)
    return samples


ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


def java_example_command(build: Path) -> str:
    """Compile the Java example (with the protocol sources it shares) into ``build``; its exec: command."""
    javac = shutil.which("javac")
    if javac is None:
        raise RuntimeError("javac (JDK 17) is needed for the Java example")
    example = ADAPTERS / "java-example" / "src"
    protocol = ADAPTERS / "real" / "protocol" / "src" / "main" / "java"
    sources = sorted(str(p) for p in example.glob("*.java"))
    command = [javac, "-Xlint:all", "-Werror", "-d", str(build), "--source-path", f"{example}{os.pathsep}{protocol}"]
    subprocess.run([*command, *sources], check=True)
    return f"exec:java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp {build} Harness"  # see its README


ROUNDS = 5
"""Rounds of the minimal preset's round trips: the machine's speed drifts within a minute."""


def run_all(out: Callable[[str], None] = print, operations: int = 200_000) -> None:
    """Every benchmark, printed as it goes."""
    calls = mixed_workload(operations)
    out(f"reference, mixed workload of {len(calls)} operations (ops/s, best of 3):")
    for profile in CACHES:
        rate = max(reference_ops_per_second(profile, calls)[0] for _ in range(3))
        out(f"  {profile:<14} {rate:>12,.0f} ops/s")
    serve = "ledgerspec.conformance.cache.adapters.process_reference"
    python_process = f"exec:{sys.executable} -m {serve} --profile pip430"
    with tempfile.TemporaryDirectory() as build:
        java = java_example_command(Path(build))
        adapters = [
            ("reference-pip430 (in-process)", "reference-pip430"),
            ("python process", python_process),
            ("java-example process", java),
            ("python process, full observations", f"{python_process} --full-observations"),
        ]
        out("\nlockstep conformance, quick settings, profile pip430 (steps/s):")
        baseline = None
        for label, name in adapters:
            rate, steps, verdict = lockstep_steps_per_second(load_adapter(name), "pip430")
            baseline = baseline or rate
            out(f"  {label:<34} {rate:>9,.0f} steps/s  ({steps} steps, {verdict}, {rate / baseline:.2f}x in-process)")
        for profile in ("pulsar-master", "legacy", "segmented"):
            rate, steps, verdict = lockstep_steps_per_second(load_adapter(f"reference-{profile}"), profile)
            out(f"  reference-{profile:<24} {rate:>9,.0f} steps/s  ({steps} steps, {verdict})")
        for preset, what, rounds in (
            ("minimal", "a few entries cached", ROUNDS),
            ("pulsar-defaults", "a cache growing to ~1,350", 1),
        ):
            out(f"\nround trip per step (apply with observation), {what}, 3000 steps after 1000 untimed:")
            if rounds > 1:
                out(f"  ({rounds} rounds, adapters taking turns: each figure is the median over the rounds;")
                out("   in brackets, the range of the rounds' medians)")
            figures = interleaved_round_trips(adapters, rounds, preset)
            for (label, _), line in zip(adapters, _round_trip_lines(figures), strict=True):
                out(f"  {label:<34} {line}")


def interleaved_round_trips(adapters: list[tuple[str, str]], rounds: int, preset: str) -> list[list[dict[str, float]]]:
    """:func:`round_trips` of every adapter, in turns, ``rounds`` times: ``figures[round][adapter]``.

    Taking turns spreads the machine's slow and fast spells over every adapter alike, and a ratio
    taken within one round compares adapters measured seconds apart.
    """
    return [[round_trips(load_adapter(name), preset=preset) for _, name in adapters] for _ in range(rounds)]


def _round_trip_lines(figures: list[list[dict[str, float]]]) -> list[str]:
    """One line per adapter: medians over the rounds, and the ratio to the first adapter's (in-process)."""
    lines = []
    for index in range(len(figures[0])):
        mine = [round_[index] for round_ in figures]
        medians = sorted(f["median_us"] for f in mine)
        ratio = statistics.median(round_[index]["median_us"] / round_[0]["median_us"] for round_ in figures)
        spread = f" ({medians[0]:.1f}-{medians[-1]:.1f})" if len(medians) > 1 else ""
        lines.append(
            f"median {statistics.median(medians):7.1f} us{spread}  "
            f"p90 {statistics.median(f['p90_us'] for f in mine):7.1f}  "
            f"p99 {statistics.median(f['p99_us'] for f in mine):7.1f}  "
            f"{statistics.median(f['steps_per_second'] for f in mine):>9,.0f} steps/s  ({ratio:.2f}x in-process)"
        )
    return lines


def run_bench(args: Any) -> int:
    """``ledgerspec bench`` of the cache: every figure, or (``--real``) the real harnesses against the reference."""
    if args.real:
        from ledgerspec.conformance.cache._bench_real import run_real  # noqa: PLC0415 - Maven

        run_real()
        return 0
    run_all(operations=args.operations)
    return 0
