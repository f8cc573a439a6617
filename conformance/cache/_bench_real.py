"""Benchmark of the real-code harnesses: conformance steps per second through process protocol v1.

Each real target runs the same search (``ci`` settings, one seed) as the Python reference of its
profile behind the same protocol (``process_reference``), in turns, ``rounds`` times; the figure is
each one's median steps per second and the median of the per-round ratios. Both processes are
started before their run is timed, so a JVM's start is not billed to its steps.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable

from ledgerspec.conformance.adapters._harness import HARNESSES
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache.adapters._process import ProcessFactory, process_factory


def python_process(profile: str) -> ProcessFactory:
    """The Python reference of ``profile`` behind the process protocol."""
    serve = "ledgerspec.conformance.cache.adapters.process_reference"
    return process_factory(f"{sys.executable} -m {serve} --profile {profile}")


def steps_per_second(factory: ProcessFactory, profile: str, settings: str, seed: int) -> tuple[float, str]:
    """One conformance run over an already started process: (steps per second, verdict)."""
    factory().stop()  # start the process outside the timed run
    try:
        report = conform(factory, profile=profile, settings=settings, seed=seed)
    finally:
        factory.close()
    return report.steps / report.seconds, report.verdict


def run_real(out: Callable[[str], None] = print, rounds: int = 3, settings: str = "ci", seed: int = 1) -> None:
    """Print, per real target, steps/s of it and of the Python reference, and their ratio."""
    out(
        f"real-code harnesses, conformance steps/s through the protocol ({settings} settings, seed {seed}, "
        f"{rounds} rounds taking turns; medians):"
    )
    for harness in HARNESSES.values():
        real, python, ratios = [], [], []
        for _ in range(rounds):
            real_rate, verdict = steps_per_second(harness.factory(), harness.profile, settings, seed)
            python_rate, _ = steps_per_second(python_process(harness.profile), harness.profile, settings, seed)
            real.append(real_rate)
            python.append(python_rate)
            ratios.append(real_rate / python_rate)
        out(
            f"  {harness.name:<28} {statistics.median(real):>7,.0f} steps/s ({verdict})   python reference "
            f"{statistics.median(python):>7,.0f} steps/s   ratio {statistics.median(ratios):.2f}x"
        )
