"""The real ManagedCursorImpl as cursor-state adapters: ``real-cursor-4.2.4`` and ``real-cursor-4.0.8``.

One Java harness, ``CursorHarness`` (conformance/adapters/real/managed-cursor-common), compiled against each
release's managed-ledger (modules managed-cursor-4.2 and managed-cursor-4.0) and started as a process adapter
(conformance/protocol/cursor-state.md). No release holds the chunked writer of PIP-381 (DEVIATIONS.md, "Cursor
state (PIP-381)"): both claim only ``pulsar-master``, and declare what they cannot express by leaving it out of
their capabilities (``rollover``, ``zlib``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ledgerspec.conformance._lockstep import Report
from ledgerspec.conformance._real_cursor import FINDINGS
from ledgerspec.conformance.adapters._harness import Harness
from ledgerspec.conformance.cursor_state._machine import conform_cursor
from ledgerspec.conformance.cursor_state._process import CursorProcessFactory

_MAIN = "org.apache.bookkeeper.mledger.impl.CursorHarness"
_DRIVES = "ManagedCursorImpl + ManagedLedgerImpl + ManagedLedgerFactoryImpl over PulsarMockBookKeeper"

REAL_CURSOR_4_2 = Harness(
    name="real-cursor-4.2.4",
    module="managed-cursor-4.2",
    main=_MAIN,
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.master.version",
    drives=_DRIVES,
    profile="pulsar-master",
)
REAL_CURSOR_4_0 = Harness(
    name="real-cursor-4.0.8",
    module="managed-cursor-4.0",
    main=_MAIN,
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.legacy.version",
    drives=_DRIVES,
    profile="pulsar-master",
)
REAL_CURSORS: dict[str, Harness] = {h.name: h for h in (REAL_CURSOR_4_2, REAL_CURSOR_4_0)}


def real_cursor_command(name: str) -> str:
    """The ``exec:`` command of a built cursor harness (built first if needed); it names its release."""
    harness = REAL_CURSORS[name]
    return f"{harness.command()} {harness.version}"


@dataclass(frozen=True)
class CursorVerdict:
    """What one invariant's search on a real cursor must end in, and which findings may explain a FAIL."""

    adapter: str
    invariant: str
    verdict: str
    findings: tuple[str, ...] = ()
    """A FAIL's counterexample must hold every operation one of these findings ``needs`` (no cry wolf)."""
    withhold: frozenset[str] = frozenset()
    """Capabilities not used in this search, so that the findings they show cannot hide another one."""

    @property
    def label(self) -> str:
        """The invariant, and what the search withholds."""
        return self.invariant + (f" without {', '.join(sorted(self.withhold))}" if self.withhold else "")


SEED = 1
"""The seed of the pinned verdicts (settings ``ci``)."""
_SAFETY_PASS = ("CURSOR-CALLBACK-ONCE", "CURSOR-MARK-DELETE-MONOTONE", "CURSOR-NO-PHANTOM-ACK")
CURSOR_VERDICTS: tuple[CursorVerdict, ...] = tuple(
    verdict
    for adapter in REAL_CURSORS
    for verdict in (
        CursorVerdict(adapter, "CURSOR-MODEL", "FAIL", ("C6", "C4")),
        CursorVerdict(adapter, "CURSOR-RECOVER-ACKNOWLEDGED", "FAIL", ("C6", "C2")),
        CursorVerdict(adapter, "CURSOR-NO-ACK-LOSS", "FAIL", ("C2", "C6")),
        *(CursorVerdict(adapter, invariant, "PASS") for invariant in _SAFETY_PASS),
    )
)
"""Each invariant searched alone: a search stops at its first violation, so one search per invariant lets every
finding show (CURSOR-MODEL, broken first by C6, would hide C2)."""


def search(verdict: CursorVerdict, *, settings: str, seed: int) -> Report:
    """One invariant's conformance search on a real cursor (the harness is built first if needed)."""
    factory = CursorProcessFactory(real_cursor_command(verdict.adapter))
    try:
        return conform_cursor(
            factory,
            "pulsar-master",
            settings_name=settings,
            seed=seed,
            invariants=(verdict.invariant,),
            capabilities=frozenset(factory.capabilities) - verdict.withhold,
        )
    finally:
        factory.close()


def surprise(verdict: CursorVerdict, report: Report) -> str | None:
    """How a report differs from the pinned verdict; None if it is as declared."""
    if report.fault is not None:
        return f"adapter fault: {report.fault.splitlines()[0]}"
    if report.verdict.value != verdict.verdict:
        found = f": {report.violation}" if report.violation else ""
        return f"{report.verdict.value}, declared {verdict.verdict}{found}"
    if report.violation is None:
        return None
    kinds = {op.kind for op in report.violation.steps}
    needs = {f.key: f.needs for f in FINDINGS if f.key in verdict.findings}
    if not any(need and need <= kinds for need in needs.values()):
        return f"a violation no finding of {', '.join(verdict.findings)} explains: {report.violation}"
    return None


def judge_real_cursors(out: Callable[[str], None], *, settings: str, seed: int) -> bool:
    """Run every pinned search; print a line each; True if every one is as declared."""
    ok = True
    for verdict in CURSOR_VERDICTS:
        report = search(verdict, settings=settings, seed=seed)
        problem = surprise(verdict, report)
        ok &= problem is None
        explained = f"  ({', '.join(verdict.findings)})" if verdict.findings else ""
        out(
            f"   {verdict.adapter:<20} {verdict.label:<44} {report.verdict.value:<5} {report.steps:>6} steps"
            f"{explained}  {'as declared' if problem is None else 'NOT AS DECLARED: ' + problem}"
        )
    return ok
