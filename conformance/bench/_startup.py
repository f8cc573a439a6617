"""``ledgerspec bench --startup``: what ``--version``, ``--help`` and a usage error cost against starting Python.

The floor is ``python -c 'import argparse'`` with this interpreter (the same site and .pth files), timed
here in the same loop as the commands, so a busy machine slows both; each figure is the best of
``runs`` (the least disturbed), and the ratio is what BENCHMARKS.md reports and the goal bounds: 3x.
"""

from __future__ import annotations

import subprocess
import sys
import time

FLOOR = ("-c", "import argparse")
COMMANDS: dict[str, tuple[str, ...]] = {
    "ledgerspec --version": ("--version",),
    "ledgerspec --help": ("--help",),
    "ledgerspec (no command: usage error)": (),
    "ledgerspec conform --bogus (usage error)": ("conform", "--bogus"),
    "ledgerspec conform --profile pip160 (usage error)": ("conform", "--profile", "pip160", "--adapter", "x"),
    "ledgerspec spec show --bogus (usage error)": ("spec", "show", "--bogus"),
    "ledgerspec run --bogus (usage error)": ("run", "--bogus"),
    **{
        f"ledgerspec {' '.join(command)} --bogus (usage error)": (*command, "--bogus")
        for command in (
            ("traces",),
            ("traces", "check"),
            ("traces", "generate"),
            ("traces", "record"),
            ("simulate",),
            ("mutants",),
            ("deviations",),
            ("harness",),
        )
    },
}
GOAL = 3.0
"""At most this many times the floor (ledgerspec issue 37)."""


def _seconds(argv: tuple[str, ...]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, *argv], capture_output=True, check=False)
    return time.perf_counter() - started


def measure(runs: int = 7) -> tuple[float, dict[str, float]]:
    """The floor and each command's seconds, best of ``runs``, interleaved run by run."""
    best = {name: float("inf") for name in ("floor", *COMMANDS)}
    for _ in range(runs):
        best["floor"] = min(best["floor"], _seconds(FLOOR))
        for name, argv in COMMANDS.items():
            best[name] = min(best[name], _seconds(("-m", "ledgerspec.conformance.cli", *argv)))
    floor = best.pop("floor")
    return floor, best


def run_startup(runs: int = 7) -> int:
    """Print the floor, each command's time and ratio; 1 if one is over the goal."""
    floor, best = measure(runs)
    print(f"floor: python -c 'import argparse': {floor * 1000:.0f} ms (best of {runs})")
    over = 0
    for name, seconds in best.items():
        ratio = seconds / floor
        over += ratio > GOAL
        print(f"{name}: {seconds * 1000:.0f} ms, {ratio:.2f}x the floor")
    print(f"goal: at most {GOAL:g}x: {'met' if not over else f'{over} over'}")
    return 1 if over else 0
