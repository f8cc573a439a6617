"""The real TxnLogBufferedWriter judged over the txlog-writer protocol: its run and its expected verdict.

``txlog-writer-buffered-writer-4.2.4`` (conformance/adapters/real/txlog-writer-4.2, ``TxlogWriterHarness``) is judged
against
``pulsar-master`` as the cache's real targets are (conformance/cache/_real.py): the verdict must be what
``conformance/txlog_writer/_real_section.py`` declares (PROTOCOL_VERDICT), and a failure must be one of its declared
findings; anything else, a new failure or a fault, means the release or the harness changed. The findings
the protocol cannot reach (T1 needs a second writer, T2 a serializer fault) stay declared with their JUnit
reproductions; the run shows they are not mistaken for anything else.
"""

from __future__ import annotations

from collections.abc import Callable

from ledgerspec.conformance._errors import close_factory
from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES
from ledgerspec.conformance.lockstep._engine import Report, fault_at_stop
from ledgerspec.conformance.real._rows import RealRow, Record
from ledgerspec.conformance.txlog_writer._machine import conform_txlog
from ledgerspec.conformance.txlog_writer._process import TxlogProcessFactory
from ledgerspec.conformance.txlog_writer._real_section import ADAPTER, FINDINGS, PROFILE, PROTOCOL_VERDICT


def run_real(*, settings: str, seed: int, timeout: float | None = None) -> Report:
    """One conformance run of the real writer (the harnesses are built first if needed)."""
    _, harness = SYSTEM_HARNESSES[ADAPTER]
    factory = TxlogProcessFactory(harness.command(), timeout=timeout)
    try:
        report = conform_txlog(
            factory, PROFILE, settings_name=settings, seed=seed, capabilities=frozenset(factory.capabilities)
        )
    finally:
        stop_fault = close_factory(factory)  # the JVM's final ``stop``: a fault there is no PASS
    return fault_at_stop(report, stop_fault)


def surprises(report: Report) -> list[str]:
    """How a report differs from what is declared: a fault, or a failure (no declared finding is reachable)."""
    if report.fault is not None:
        return [f"adapter fault: {report.fault.splitlines()[0]}"]
    if report.violation is not None:
        return [f"undeclared failure of {report.violation.invariant}: {report.violation.message}"]
    return []


def judge_real(out: Callable[[str], None], *, settings: str, seed: int, record: Record | None = None) -> bool:
    """Run the real writer; print one line (and ``record`` it); True if the verdict is as declared."""
    report = run_real(settings=settings, seed=seed)
    problems = surprises(report)
    failed = report.violation.invariant if report.violation else "none"
    note = "as declared" if not problems else "NOT AS DECLARED: " + problems[0]
    out(
        f"   {ADAPTER + ' (txlog-writer)':<44} {PROFILE:<14} {report.verdict.value:<5} {report.steps:>6} steps"
        f"  failed: {failed}  deviations: {', '.join(f.key for f in FINDINGS)} (JUnit only)  {note}"
    )
    if record is not None:
        declared = f"failed: {failed}; deviations: {', '.join(f.key for f in FINDINGS)} (JUnit only); {note}"
        as_declared = not problems and report.verdict.value == PROTOCOL_VERDICT.verdict
        record(RealRow(f"{ADAPTER} (txlog-writer)", PROFILE, report.verdict.value, report.steps, as_declared, declared))
    return not problems and report.verdict.value == PROTOCOL_VERDICT.verdict


judge_for_run = judge_real
"""``ledgerspec run``'s part for the real writer (``System.judge_real``)."""
