"""``traces check`` for the lockstep systems' traces, on both engines, with one verdict.

The driver reads and row-checks the file (``_io``), the histories are replayed per broker
(``_replay``: locally in this process, or by Spark over the rows repartitioned by broker and
sorted by row, ``mapInArrow``), and the driver turns the findings into the report: the smallest
row's input error (exit 2), else the violations with their context, else UNKNOWN for every claimed
invariant the trace cannot decide, naming the event kind it lacks. Both engines run the same replay
on the same rows, so their results are equal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance._verdict import Status
from ledgerspec.conformance.systems import SYSTEMS
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.core._files import jsonl_lines, parse_spec
from ledgerspec.traces.core._result import CONTEXT, KEEP_PER_INVARIANT, TraceResult, TraceViolation
from ledgerspec.traces.lockstep._io import SystemTrace, peek_system, read_system_trace
from ledgerspec.traces.lockstep._replay import Plan, SysFinding, by_broker, decidable, replay_history

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class SystemCheckResult(TraceResult):
    """A system trace's outcome: as the cache's, with the system's invariants."""

    system: str = "cache"
    not_decided: dict[str, str] = field(default_factory=dict)
    unjudged: list[str] = field(default_factory=list)
    """Where histories are not judged from: a last operation cut (no end mark), the rest after a violation."""

    def statuses(self) -> dict[str, Status]:
        result = {}
        for inv in SYSTEMS[self.system].invariants:
            if self.profile not in inv.profiles:
                result[inv.id] = Status.NOT_CLAIMED
            elif self.counts.get(inv.id):
                result[inv.id] = Status.VIOLATION
            elif inv.id in self.not_decided or self.unjudged:
                result[inv.id] = Status.UNKNOWN
            else:
                result[inv.id] = Status.OK
        return result

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, **super().to_dict()}


def refuse_budget(path: str, system: str, budget: float | None) -> None:
    """Refuse ``--budget`` for a system trace, rather than ignore it silently.

    A budget stops a cache check part-way (UNKNOWN); a system trace's histories are short and replayed
    whole by both engines.
    """
    if budget is not None:
        raise InputError(
            f"--budget: {path} is a {system} trace; its histories are replayed whole, and --budget applies "
            "to cache traces only (leave it out)"
        )


def plan_of(trace: SystemTrace) -> Plan:
    header = trace.header
    return Plan(header.system, header.profile, header.config, header.events)


def check_system(path: str, *, engine: str = "local", spark: SparkSession | None = None) -> SystemCheckResult:
    """Check a system trace with the chosen engine."""
    started = time.monotonic()
    trace = read_system_trace(path)
    plan = plan_of(trace)
    if engine == "spark":
        from ledgerspec.traces.lockstep._spark import replay_spark  # noqa: PLC0415 - pyspark only when asked

        findings = replay_spark(trace, plan, spark)
    else:
        findings = [f for rows in by_broker(trace.rows).values() for f in replay_history(plan, rows)]
    return _report(trace, findings, engine, started)


def _report(trace: SystemTrace, findings: list[SysFinding], engine: str, started: float) -> SystemCheckResult:
    errors = sorted((f for f in findings if f.invariant is None and not f.unjudged), key=lambda f: f.row)
    if errors:
        raise TraceInputError(f"{trace.path}: {errors[0].message}")
    system = SYSTEMS[trace.header.system]
    _, unknown = decidable(system, trace.header.profile, trace.header.events)
    order = {inv.id: i for i, inv in enumerate(system.invariants)}
    result = SystemCheckResult(
        path=trace.path,
        engine=engine,
        profile=trace.header.profile,
        events=len(trace.rows),
        brokers=len({row["broker"] for row in trace.rows}),
        system=trace.header.system,
        not_decided=unknown,
        unjudged=[f.message for f in sorted(findings, key=lambda f: f.row) if f.unjudged],
    )
    result.unknown = [*unknown.values(), *result.unjudged]
    kept: dict[str, int] = {}
    brokers = by_broker(trace.rows)
    violations = (f for f in findings if f.invariant is not None)
    for finding in sorted(violations, key=lambda f: (f.row, order[f.invariant or ""])):
        invariant = finding.invariant or ""
        result.counts[invariant] = result.counts.get(invariant, 0) + 1
        if kept.get(invariant, 0) < KEEP_PER_INVARIANT:
            kept[invariant] = kept.get(invariant, 0) + 1
            result.violations.append(_violation(finding, brokers[finding.broker]))
    if not trace.files and result.violations:  # JSON lines: each violation's line beside its row, as the cache's
        lines = jsonl_lines(parse_spec(trace.path)[1], {v.row for v in result.violations})
        for violation in result.violations:
            violation.line = lines.get(violation.row)
    result.seconds = time.monotonic() - started
    return result


def _violation(finding: SysFinding, rows: list[dict[str, Any]]) -> TraceViolation:
    at = next(i for i, row in enumerate(rows) if row["row"] == finding.row)
    shown = [_shown(rows[i]) for i in range(max(0, at - CONTEXT), min(len(rows), at + CONTEXT + 1)) if i != at]
    return TraceViolation(
        finding.invariant or "", finding.broker, finding.seq, finding.row, finding.message, _shown(rows[at]), shown
    )


def _shown(event: dict[str, Any]) -> dict[str, Any]:
    """An event as written in the trace (without the row number the reader added)."""
    return {k: v for k, v in event.items() if k != "row"}


def check_trace(
    path: str, engine: str, _master: str | None, budget: float | None, spark: Any = None, _on_rows: Any = None
) -> SystemCheckResult:
    """``traces check`` of a lockstep system's trace (or of one naming an unknown system: its reader says so)."""
    refuse_budget(path, str(peek_system(path)), budget)
    return check_system(path, engine=engine, spark=spark)
