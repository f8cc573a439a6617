"""``ledgerspec --version``, ``--help`` and usage errors cost at most about 3x starting Python (issue 37).

Measured against ``python -c 'import argparse'`` in the same loop (``ledgerspec bench --startup``),
each the best of five runs; the bound is the goal with a margin of 2 for a busy machine (it was 25-45x
when every command's modules loaded for any command line). BENCHMARKS.md has the figures.
"""

from __future__ import annotations

from ledgerspec.conformance.bench._startup import GOAL, measure

MARGIN = 2.0


def test_version_help_and_usage_errors_start_within_the_goal():
    floor, best = measure(runs=5)
    ratios = {name: seconds / floor for name, seconds in best.items()}
    over = {name: f"{ratio:.1f}x" for name, ratio in ratios.items() if ratio > GOAL * MARGIN}
    assert not over, f"floor {floor * 1000:.0f} ms; over {GOAL * MARGIN:g}x: {over}"
