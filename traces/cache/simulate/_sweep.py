"""A simulator sweep: every profile x cache size x seed of one workload, on the local engine or Spark.

The runs are independent (``_simulate.simulate_one``), so Spark runs one task per run and the driver
only averages: the numbers are the same on both engines, run by run (tests/slow/test_simulate_spark.py).
A cell (profile, cache size) reports each metric's mean over the seeds and its spread, the sample
standard deviation (0 with one seed).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledgerspec.reference.cache import CACHES
from ledgerspec.spec import ConfigError
from ledgerspec.traces._errors import TraceError
from ledgerspec.traces.cache._generate import DEFAULT_CONFIG
from ledgerspec.traces.cache.simulate._measure import METRICS, RunSpec, simulate_one
from ledgerspec.traces.cache.simulate._workload import WORKLOADS

FORMAT = "ledgerspec-simulation"
VERSION = 1
PROFILES = tuple(CACHES)
"""Every cache profile, in the catalogue's order: the default of ``--profiles``."""
DEFAULT_SIZES = (2 << 20, 8 << 20, 32 << 20, 128 << 20)
"""2, 8, 32 and 128 MiB: from a cache holding a fraction of a second of the workload to one holding it all."""
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20}
_UNITS |= {"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


class SimulationOptionError(TraceError):
    """A simulator option is invalid: the message names the option and the value.

    Likely cause: a misspelt workload or profile, a size without a number, or a count of 0. Fix the
    option as the message says (``ledgerspec simulate --help`` lists the choices).
    """

    code = "simulate-option"


def parse_names(option: str, text: str, choices: Sequence[str]) -> list[str]:
    """A comma-separated list of names, each one of ``choices``, without repeats."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise SimulationOptionError(f"{option}: expected one or more of {', '.join(choices)}, got {text!r}")
    for name in names:
        if name not in choices:
            raise SimulationOptionError(f"{option}: unknown {name!r}; choose from {', '.join(choices)}")
    if len(set(names)) != len(names):
        raise SimulationOptionError(f"{option}: {text!r} names one twice")
    return names


def parse_size(option: str, text: str) -> int:
    """A size in bytes: ``8388608``, ``512K``, ``8M``, ``8MiB``, ``1G``; must be > 0."""
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    unit = match.group(2).upper() if match else ""
    if match is None or unit not in _UNITS:
        raise SimulationOptionError(f"{option}: expected a size such as 8M or 8388608, got {text!r}")
    size = int(match.group(1)) * _UNITS[unit]
    if size <= 0:
        raise SimulationOptionError(f"{option}: a cache size must be > 0, got {text!r}")
    return size


def parse_sizes(option: str, text: str) -> list[int]:
    """Comma-separated sizes (:func:`parse_size`), sorted, without repeats."""
    sizes = [parse_size(option, part) for part in text.split(",")]
    if len(set(sizes)) != len(sizes):
        raise SimulationOptionError(f"{option}: {text!r} names a size twice")
    return sorted(sizes)


def positive(option: str, value: int) -> int:
    """A count that must be > 0."""
    if value <= 0:
        raise SimulationOptionError(f"{option}: must be > 0, got {value}")
    return value


@dataclass
class Sweep:
    """What to simulate: one workload, profiles x cache sizes x seeds, each run ``steps`` steps."""

    workload: str = "catchup"
    profiles: list[str] = field(default_factory=lambda: list(PROFILES))
    cache_sizes: list[int] = field(default_factory=lambda: list(DEFAULT_SIZES))
    seeds: int = 3
    steps: int = 20_000
    topics: int = 8

    def __post_init__(self) -> None:
        if self.workload not in WORKLOADS:
            raise SimulationOptionError(f"--workload: unknown {self.workload!r}; choose from {', '.join(WORKLOADS)}")
        parse_names("--profiles", ",".join(self.profiles), PROFILES)
        for size in self.cache_sizes:
            parse_size("--cache-sizes", str(size))
            try:  # a size the cache configuration refuses, refused before any run (SIMULATOR.md)
                RunSpec(workload=self.workload, profile=self.profiles[0], cache_size=size, seed=0, steps=1).config()
            except ConfigError as error:
                kept = f"every run keeps segment_size_max at {DEFAULT_CONFIG.segment_size_max} bytes"
                raise SimulationOptionError(f"--cache-sizes: {size} bytes: {error}; {kept}") from None
        positive("--seeds", self.seeds)
        positive("--steps", self.steps)
        positive("--topics", self.topics)

    def runs(self) -> list[RunSpec]:
        """Every run, profile-major, then size, then seed."""
        return [
            RunSpec(workload=self.workload, profile=p, cache_size=s, seed=seed, steps=self.steps, topics=self.topics)
            for p in self.profiles
            for s in self.cache_sizes
            for seed in range(self.seeds)
        ]


Engine = Callable[[list[RunSpec]], list[dict[str, float]]]


def run_local(runs: list[RunSpec], progress: Callable[[int], None] | None = None) -> list[dict[str, float]]:
    """Every run in this process, in order."""
    results = []
    for done, spec in enumerate(runs, 1):
        results.append(simulate_one(spec))
        if progress is not None:
            progress(done)
    return results


def run_spark(runs: list[RunSpec], master: str | None = None) -> list[dict[str, float]]:
    """One Spark task per run (a partition of one), collected in the runs' order."""
    from ledgerspec.traces.core._spark import spark_session  # noqa: PLC0415 - pyspark only where Spark runs

    spark = spark_session(master, **{"spark.app.name": "ledgerspec-simulate"})
    indexed = list(enumerate(runs))
    rdd = spark.sparkContext.parallelize(indexed, numSlices=max(1, len(indexed)))
    collected = rdd.map(_spark_task).collect()
    return [metrics for _, metrics in sorted(collected, key=lambda pair: pair[0])]


def _spark_task(item: tuple[int, RunSpec]) -> tuple[int, dict[str, float]]:
    """Worker: one run, keyed by its index."""
    index, spec = item
    return index, simulate_one(spec)


def summarize(sweep: Sweep, runs: list[RunSpec], results: list[dict[str, float]]) -> list[dict[str, Any]]:
    """Per (profile, cache size): each metric's mean and spread over the seeds."""
    cells: dict[tuple[str, int], list[dict[str, float]]] = {}
    for spec, metrics in zip(runs, results, strict=True):
        cells.setdefault((spec.profile, spec.cache_size), []).append(metrics)
    summary = []
    for profile in sweep.profiles:
        for size in sweep.cache_sizes:
            values = cells[(profile, size)]
            summary.append(
                {
                    "profile": profile,
                    "cache_size": size,
                    "mean": {m: statistics.fmean(v[m] for v in values) for m in METRICS},
                    "spread": {m: statistics.stdev(v[m] for v in values) if len(values) > 1 else 0.0 for m in METRICS},
                }
            )
    return summary


def result_document(sweep: Sweep, engine: str, runs: list[RunSpec], results: list[dict[str, float]]) -> dict[str, Any]:
    """The JSON document: the sweep, every run's numbers and the per-cell summary."""
    config = runs[0].config().to_dict() if runs else {}
    config.pop("max_size", None)
    return {
        "format": FORMAT,
        "version": VERSION,
        "workload": sweep.workload,
        "profiles": sweep.profiles,
        "cache_sizes": sweep.cache_sizes,
        "seeds": sweep.seeds,
        "steps": sweep.steps,
        "topics": sweep.topics,
        "engine": engine,
        "config": config,
        "metrics": list(METRICS),
        "runs": [
            {"profile": s.profile, "cache_size": s.cache_size, "seed": s.seed, "metrics": m}
            for s, m in zip(runs, results, strict=True)
        ],
        "summary": summarize(sweep, runs, results),
    }


def simulate(
    sweep: Sweep,
    *,
    engine: str = "local",
    master: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Run a sweep on ``engine`` (``local`` or ``spark``) and return its JSON document.

    ``progress`` is told how many runs are done after each one (local engine only).
    """
    runs = sweep.runs()
    if engine == "local":
        results = run_local(runs, progress)
    elif engine == "spark":
        results = run_spark(runs, master)
    else:
        raise SimulationOptionError(f"--engine: unknown {engine!r}; choose local or spark")
    return result_document(sweep, engine, runs, results)


def human_size(size: float) -> str:
    """Bytes as KiB / MiB / GiB with one decimal where it helps."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size:.0f} B"


COLUMNS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("hit rate", "hit_rate", lambda v: f"{v:.3f}"),
    ("BK reads", "bk_reads", lambda v: f"{v:.0f}"),
    ("BK bytes", "bk_bytes", human_size),
    ("awaited evicted", "awaited_evicted", lambda v: f"{v:.0f}"),
    ("younger evicted", "younger_evicted", lambda v: f"{v:.0f}"),
    ("evicted size", "evicted_size", lambda v: f"{v:.0f}"),
    ("evicted ttl", "evicted_ttl", lambda v: f"{v:.0f}"),
    ("invalidated", "evicted_invalidate", lambda v: f"{v:.0f}"),
    ("peak size", "peak_size", human_size),
    ("mean size", "mean_size", human_size),
)
"""The table's columns: heading, metric, format of the mean."""


def table_rows(document: dict[str, Any], *, spread: bool = True) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the summary table (means, with ``± spread`` of the numeric columns when asked)."""
    headers = ["profile", "cache size", *(heading for heading, _, _ in COLUMNS)]
    rows = []
    for cell in document["summary"]:
        row = [cell["profile"], human_size(cell["cache_size"])]
        for _, metric, show in COLUMNS:
            text = show(cell["mean"][metric])
            deviation = cell["spread"][metric]
            if spread and deviation and metric in ("hit_rate", "bk_reads", "awaited_evicted"):
                text += f" ±{show(deviation)}"
            row.append(text)
        rows.append(row)
    return headers, rows


def format_table(document: dict[str, Any]) -> str:
    """The summary as a plain-text table, one line per profile and cache size."""
    headers, rows = table_rows(document)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        cells = zip(row, widths, strict=True)
        lines.append("  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(cells)))
    return "\n".join(lines)
