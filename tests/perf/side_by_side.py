"""Conformance steps per second of two checkouts, measured side by side (BENCHMARKS.md).

Each round runs the same ``ledgerspec`` command once with each checkout's interpreter, alternating
which goes first, and reads the steps and seconds from ``--json``. The ratio of the medians is what
BENCHMARKS.md records: the machine is shared, so only a ratio measured in the same run means anything.

    python tests/perf/side_by_side.py OLD_PYTHON NEW_PYTHON [--rounds 3] -- conform --adapter ... --seed 1

``OLD_PYTHON`` and ``NEW_PYTHON`` are the interpreters of two virtualenvs with each checkout installed
(``pip install -e``). ``{python}`` in the command is replaced by each side's interpreter, so that a
process adapter runs each checkout's own serve loop:
``-- conform --adapter "exec:{python} -m ledgerspec.conformance.cache.adapters.process_reference \
--profile pulsar-master"``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def run(python: str, command: list[str]) -> tuple[int, float]:
    """(steps, seconds) of one run of ``ledgerspec COMMAND --json``; ``{python}`` in it is this side's interpreter."""
    command = [part.replace("{python}", python) for part in command]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        done = subprocess.run(
            [python, "-m", "ledgerspec.conformance.cli", *command, "--json", str(out), "--quiet"],
            capture_output=True,
            text=True,
            check=False,
        )
        if not out.exists():
            sys.exit(f"{python}: {' '.join(command)} wrote no JSON (exit {done.returncode}): {done.stderr[-400:]}")
        data = json.loads(out.read_text())
    return int(data["steps"]), float(data["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("the ledgerspec command follows --")
    cut = argv.index("--")
    args, command = parser.parse_args(argv[:cut]), argv[cut + 1 :]
    rates: dict[str, list[float]] = {"old": [], "new": []}
    for number in range(args.rounds):
        order = [("old", args.old), ("new", args.new)]
        for name, python in order if number % 2 == 0 else order[::-1]:
            steps, seconds = run(python, command)
            rates[name].append(steps / seconds)
            print(f"round {number + 1} {name}: {steps} steps in {seconds:.1f} s = {steps / seconds:.0f} steps/s")
    old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
    print(f"median steps/s: old {old:.0f}, new {new:.0f}; new/old = {new / old:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
