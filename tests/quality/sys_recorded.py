"""Recorded histories of every cursor-state and txlog-writer candidate, and what conform says of them.

Shared by tests/quality/test_sys_trace_agreement.py (local engine) and
tests/slow/test_sys_trace_agreement_spark.py (Spark). Each reference and each mutant is recorded on
seeded random walks (small chunks and entries, so that the cursor's chunking, overflow and faults
happen) and, for a mutant, on the counterexample ``conform`` finds at the kill matrix's seed; each
recording also has a partial twin, without an output kind (``recovered`` / ``metrics``). The expected
verdict of a recording is the lockstep replay's on the same steps (``conformance.lockstep._engine.replay``):
the first invariant broken, among those the trace can decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance.cursor_state import CURSOR_STATE
from ledgerspec.conformance.lockstep._adapters import walk
from ledgerspec.conformance.lockstep._engine import LockstepRun, conform, replay
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.conformance.systems import SYSTEMS as CLI
from ledgerspec.conformance.txlog_writer._machine import TXLOG_WRITER
from ledgerspec.spec import cursor_state
from ledgerspec.spec import txlog_writer as txlog
from ledgerspec.traces.lockstep._io import read_system_trace
from ledgerspec.traces.lockstep._record import record_history
from ledgerspec.traces.lockstep._replay import decidable

SEED = 1
"""The kill matrices' seed (tests/quality/test_cursor_state_mutants.py, test_txlog_mutants.py)."""
WALKS, STEPS = 3, 120
LOCKSTEP = {"cursor-state": CURSOR_STATE, "txlog-writer": TXLOG_WRITER}
CONFIGS: dict[str, list[Any]] = {
    "cursor-state": [
        cursor_state.CursorConfig(chunk_size=11, max_entry_size=64, max_ranges=2, batch_size=2),
        cursor_state.CursorConfig(chunk_size=16, max_entry_size=1000, max_ranges=3, compression="zlib"),
    ],
    "txlog-writer": [txlog.WriterConfig(), txlog.WriterConfig(max_records=3, max_size=16, max_delay=2)],
}
PARTIAL = {"cursor-state": ("recovered",), "txlog-writer": ("metrics",)}


@dataclass(frozen=True)
class Candidate:
    system: str
    name: str
    profile: str
    factory: Any
    mutant: bool


SHIPPED = {system: entry for system, entry in CLI.items() if system in CONFIGS}
"""The shipped lockstep systems (the test-only FIFO queue has its own tests: tests/unit/test_fourth_system.py)."""
CANDIDATES = [
    Candidate(system, name, profile, factory, False)
    for system, entry in SHIPPED.items()
    for name, (profile, factory) in entry.references().items()
] + [
    Candidate(system, m.name, m.profile, m.adapter, True) for system, entry in SHIPPED.items() for m in entry.mutants()
]


@dataclass
class Recording:
    candidate: Candidate
    path: Path
    config: Any
    steps: list[Any]
    omit: tuple[str, ...]

    def expected(self) -> tuple[tuple[str, str] | None, list[str]]:
        """(the first (invariant, message) conform gives on these steps among the decidable ones, UNKNOWN reasons)."""
        c = self.candidate
        checks, unknown = decidable(
            SYSTEMS[c.system], c.profile, [k for k in SYSTEMS[c.system].vocabulary.kinds if k not in self.omit]
        )
        ids = tuple(inv.id for inv in checks)
        run = LockstepRun(LOCKSTEP[c.system], c.factory, c.profile, ids)
        return replay(run, self.config, self.steps), list(unknown.values())


def unjudged_after(path: Path, system: str, result: Any) -> list[str]:
    """The report's lines for the histories whose first violation has operations after it (not judged)."""
    rows = read_system_trace(str(path)).rows
    inputs = SYSTEMS[system].vocabulary.inputs
    lines = []
    for broker in dict.fromkeys(v.broker for v in result.violations):
        first = min(v.row for v in result.violations if v.broker == broker)
        after = [r["row"] for r in rows if r["broker"] == broker and r["row"] > first and r["kind"] in inputs]
        if after:
            message = f"history {broker!r} is not judged after row {first}, whose operation broke an invariant: "
            lines.append((after[0], message + "the model's state is no longer the candidate's there"))
    return [line for _, line in sorted(lines)]


def histories(candidate: Candidate) -> list[tuple[Any, list[Any]]]:
    """(config, steps) to record: the walks, and a mutant's counterexample."""
    found = [
        (config, walk(candidate.system, candidate.profile, config, seed, STEPS))
        for config in CONFIGS[candidate.system]
        for seed in range(WALKS)
    ]
    if candidate.mutant:
        report = conform(CLI[candidate.system], candidate.factory, candidate.profile, settings_name="ci", seed=SEED)
        assert report.violation is not None, f"{candidate.name} survived conform at seed {SEED}"
        found.append((report.violation.config, list(report.violation.steps)))
    return found


def record_all(candidate: Candidate, directory: Path) -> list[Recording]:
    """Every history of the candidate, recorded whole and without its partial kind, one trace each."""
    made = []
    for number, (config, steps) in enumerate(histories(candidate)):
        for omit in ((), PARTIAL[candidate.system]):
            suffix = ".parquet" if number % 2 else ".jsonl"
            path = directory / f"{candidate.system}-{candidate.name}-{number}{'-partial' if omit else ''}{suffix}"
            _, applied = record_history(
                candidate.factory, candidate.system, candidate.profile, config, [steps], str(path), omit=omit
            )
            made.append(Recording(candidate, path, config, applied[0], omit))
    return made
