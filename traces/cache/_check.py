"""What both trace checkers share: which invariants a trace can show, the verdict, and the report.

``CACHE-MODEL`` is not checked on traces: it needs the model's allowed outcomes for each operation,
and a trace records effects, not the operations' inputs. Every other invariant of the catalogue is
checked by the broker replay (``_replay.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.conformance._verdict import Status
from ledgerspec.spec.cache import CATALOGUE, claimed
from ledgerspec.spec.cache.invariants import Check, Invariant
from ledgerspec.traces.cache._io import TraceFile
from ledgerspec.traces.cache._replay import Finding
from ledgerspec.traces.core._files import jsonl_lines
from ledgerspec.traces.core._result import KEEP_PER_INVARIANT, TraceResult, TraceViolation

NOT_ON_TRACES = {i.id: i.soundness for i in CATALOGUE if not i.on_traces}
"""Invariants the replay does not check (their declaration says why)."""

PARTITIONS: dict[str, tuple[str, str]] = {i.id: (i.partition, i.soundness) for i in CATALOGUE if i.on_traces}
"""The partition each invariant is checked on and why that is sound (also in FORMAT.md)."""


JUDGED = {"event": "each event", "pass_end": "each pass, at its pass_end", "finish": "the broker's last event"}
"""What a check's methods judge (``Check``): the granularity FORMAT.md's table gives per invariant."""


def judged_at(invariant: Invariant) -> list[str]:
    """Where the replay judges ``invariant`` on a trace: per event, per pass, at a broker's end (:data:`JUDGED`)."""
    kind = type(invariant.check)
    return [what for method, what in JUDGED.items() if getattr(kind, method) is not getattr(Check, method)]


def trace_invariants(profile: str) -> list[str]:
    """The invariants a trace of this profile is checked against, in catalogue order."""
    return [i.id for i in claimed(profile) if i.id not in NOT_ON_TRACES]


def wanted_seqs(findings: list[Finding]) -> dict[str, set[int]]:
    """Per broker, the seqs whose events a report shows: each finding's, and its first divergence's."""
    wanted: dict[str, set[int]] = {}
    for finding in findings:
        wanted.setdefault(finding.broker, set()).add(finding.seq)
        if finding.first is not None:
            wanted[finding.broker].add(finding.first[0])
    return wanted


def locate(trace: TraceFile, violations: list[TraceViolation]) -> list[TraceViolation]:
    """In a JSON-lines trace, the file line of each violation's event and of its first divergence."""
    if trace.format != "jsonl" or not violations:
        return violations
    rows = {v.row for v in violations} | {v.first["row"] for v in violations if v.first is not None}
    lines = jsonl_lines(trace.path, rows)
    for violation in violations:
        violation.line = lines.get(violation.row)
        if violation.first is not None:
            violation.first["line"] = lines.get(violation.first["row"])
    return violations


@dataclass
class CheckResult(TraceResult):
    """The outcome of checking one cache trace: its statuses are the cache catalogue's."""

    def statuses(self) -> dict[str, Status]:
        """Per invariant of the catalogue: ok, violation, unknown, not claimed, not checkable on traces."""
        checked = trace_invariants(self.profile)
        result = {}
        for invariant in CATALOGUE:
            if not invariant.claimed_by(self.profile):
                result[invariant.id] = Status.NOT_CLAIMED
            elif invariant.id not in checked:
                result[invariant.id] = Status.NOT_ON_TRACES
            elif self.counts.get(invariant.id):
                result[invariant.id] = Status.VIOLATION
            else:
                result[invariant.id] = Status.UNKNOWN if self.unknown else Status.OK
        return result


def select(findings: list[Finding], counts: dict[str, int]) -> list[Finding]:
    """The violations to report: each invariant's earliest (by row), a bounded number each.

    Listed in catalogue order, then by broker and seq; the plain text shows them by row (:func:`by_row`).
    """
    order = {invariant.id: index for index, invariant in enumerate(CATALOGUE)}
    chosen: list[Finding] = []
    kept: dict[str, int] = {}
    for finding in sorted(findings, key=lambda f: (order[f.invariant], f.row, f.message)):
        if kept.get(finding.invariant, 0) < KEEP_PER_INVARIANT:
            kept[finding.invariant] = kept.get(finding.invariant, 0) + 1
            chosen.append(finding)
    del counts
    return sorted(chosen, key=lambda f: (order[f.invariant], f.broker, f.seq, f.message))


