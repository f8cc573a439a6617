"""The real ManagedCursorImpl as cursor-state adapters: ``cursor-state-managed-cursor-4.2.4`` and ``-4.0.8``.

One Java harness, ``CursorHarness`` (conformance/adapters/real/managed-cursor-common), compiled against each
release's managed-ledger (modules managed-cursor-4.2 and managed-cursor-4.0) and started as a process adapter
(conformance/protocol/cursor-state.md). No release holds the chunked writer of PIP-381 (DEVIATIONS.md, "Cursor
state (PIP-381)"): both claim only ``pulsar-master``, and declare what they cannot express by leaving it out of
their capabilities (``rollover``, ``zlib``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, replace
from functools import partial
from itertools import combinations

from ledgerspec.conformance._errors import AdapterFault, close_factory
from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES, Harness
from ledgerspec.conformance.adapters._system_process import SystemProcessFactory
from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE, conform_cursor
from ledgerspec.conformance.cursor_state._process import CursorProcessFactory
from ledgerspec.conformance.lockstep._engine import Candidate, LockstepRun, Report, Violation, fault_at_stop, replay
from ledgerspec.conformance.real._rows import RealRow, Record
from ledgerspec.spec import SpecError
from ledgerspec.spec.cursor_state import (
    QUIRKS,
    Ack,
    Confirm,
    Crash,
    CursorConfig,
    CursorOp,
    FailAdd,
    Persist,
    Recover,
    init,
)

Factory = Callable[[], Candidate]
"""Makes a candidate (a release's cursor) for one replay."""
REAL_CURSORS: dict[str, Harness] = {
    name: harness for name, (system, harness) in SYSTEM_HARNESSES.items() if system == "cursor-state"
}


def _real_cursor(name: str) -> closing[SystemProcessFactory]:
    """A factory over the real cursor harness ``name``, closed (its JVM stopped) when the block ends."""
    return closing(CursorProcessFactory(real_cursor_command(name)))


def real_cursor_command(name: str) -> str:
    """The ``exec:`` command of a built cursor harness (built first if needed); it names its release."""
    return REAL_CURSORS[name].command()


@dataclass(frozen=True)
class CursorVerdict:
    """What one invariant's search on a real cursor must end in, and which findings may explain a FAIL."""

    adapter: str
    invariant: str
    verdict: str
    findings: tuple[str, ...] = ()
    """The findings that break it (DEVIATIONS.md's table), alone or together (C4's larger entries meet BookKeeper's
    frame limit where the spec's do not). A FAIL's counterexample must be explained by some of them
    (:func:`explaining`): no cry wolf, and no new bug taken for a known one."""


SETTINGS = "quick"
SEED = 1
"""The settings and seed of the pinned verdicts (``quick``: twelve searches of a JVM harness fit CI's time)."""
_PASS = ("CURSOR-MARK-DELETE-MONOTONE", "CURSOR-NO-PHANTOM-ACK")
CURSOR_VERDICTS: tuple[CursorVerdict, ...] = tuple(
    verdict
    for adapter in REAL_CURSORS
    for verdict in (
        CursorVerdict(adapter, "CURSOR-MODEL", "FAIL", ("C5", "C2", "C4")),
        CursorVerdict(adapter, "CURSOR-RECOVER-ACKNOWLEDGED", "FAIL", ("C5", "C2", "C4")),
        CursorVerdict(adapter, "CURSOR-NO-ACK-LOSS", "FAIL", ("C2", "C5", "C4")),
        CursorVerdict(adapter, "CURSOR-CALLBACK-ONCE", "FAIL", ("C5", "C4")),
        *(CursorVerdict(adapter, invariant, "PASS") for invariant in _PASS),
    )
)
"""Each invariant searched alone: a search stops at its first violation, so one search per invariant lets every
finding show (CURSOR-MODEL, broken first by C5, would hide C2). C2 changes what a recovery answers, so it
explains a CURSOR-MODEL counterexample too: the search at seed 430 met one first (with C4: the capped range).
"""


@dataclass(frozen=True)
class CursorCase:
    """A finding's minimal counterexample, pinned: it breaks ``invariant`` on both releases, not on the reference."""

    finding: str
    invariant: str
    config: CursorConfig
    steps: tuple[CursorOp, ...]


CURSOR_CASES: tuple[CursorCase, ...] = (
    CursorCase(
        "C4",
        "CURSOR-MODEL",
        CursorConfig(max_entry_size=1000, max_ranges=1, long_array=False),
        (
            Ack(ledger=1, entry=1),
            Ack(ledger=1, entry=3),
            Ack(ledger=1, entry=5),
            Persist(value=0),
            Confirm(),
            Confirm(),
            Crash(keep=0),
            Recover(),
        ),
    ),
    CursorCase(
        "C5",
        "CURSOR-NO-ACK-LOSS",
        CursorConfig(max_entry_size=1000),
        (
            Ack(ledger=1, entry=3),
            Persist(value=0),
            Confirm(),
            Confirm(),
            Crash(keep=0),
            Recover(),
            Persist(value=1),
            FailAdd(),
            Crash(keep=0),
            Recover(),
        ),
    ),
)
"""The searches stop at their first violation, which is C5 or C2 on the seeds tried; C4 shows alone only here (and
with C2 in the CURSOR-MODEL search at ``OTHER_SEED`` of tests/slow/test_real_cursor_verdicts.py, which CI runs)."""


def replay_case(case: CursorCase, adapter: str) -> tuple[str, str] | None:
    """The first (invariant, message) of ``case.invariant`` the case breaks on a real cursor, or None."""
    with _real_cursor(adapter) as factory:
        run = LockstepRun(CURSOR_STATE, factory, "pulsar-master", (case.invariant,))
        return replay(run, case.config, case.steps)


def search(
    verdict: CursorVerdict, *, settings: str, seed: int, examples: int | None = None, shrink: bool = True
) -> Report:
    """One invariant's conformance search on a real cursor (the harness is built first if needed)."""
    factory = CursorProcessFactory(real_cursor_command(verdict.adapter))
    try:
        report = conform_cursor(
            factory,
            "pulsar-master",
            settings_name=settings,
            seed=seed,
            invariants=(verdict.invariant,),
            capabilities=frozenset(factory.capabilities),
            examples=examples,
            shrink=shrink,
        )
    finally:
        stop_fault = close_factory(factory)  # the JVM's final ``stop``: a fault there is no PASS
    return fault_at_stop(report, stop_fault)


CI_PASS_EXAMPLES = 20
"""CI's budget for a PASS verdict's search: this many examples of the pinned settings' steps (not all of them)."""


def ci_search(verdict: CursorVerdict) -> Report:
    """The pinned search as CI affords it (tests/slow/test_real_cursor_verdicts.py), at the pinned seed.

    A FAIL search stops at its first counterexample unshrunk (the minimal ones are ``CURSOR_CASES`` and
    DEVIATIONS.md's, from :func:`judge_real_cursors`); a PASS search runs ``CI_PASS_EXAMPLES`` examples.
    """
    if verdict.verdict == "PASS":
        return search(verdict, settings=SETTINGS, seed=SEED, examples=CI_PASS_EXAMPLES)
    return search(verdict, settings=SETTINGS, seed=SEED, shrink=False)


def surprise(
    verdict: CursorVerdict, report: Report, *, strict: bool = True, release: Factory | None = None
) -> str | None:
    """How a report differs from the pinned verdict; None if it is as declared.

    A FAIL must be explained (:func:`explaining`) by the release's findings, replayed on ``release`` (default: the
    verdict's real cursor). Not ``strict`` (other settings or seed than the pinned ones): a declared FAIL may show
    as a PASS, a search that did not get that far; an undeclared or unexplained FAIL is a surprise all the same.
    """
    if report.fault is not None:
        return f"adapter fault: {report.fault.splitlines()[0]}"
    if report.verdict.value != verdict.verdict and (strict or report.violation is not None):
        found = f": {report.violation}" if report.violation else ""
        return f"{report.verdict.value}, declared {verdict.verdict}{found}"
    if report.violation is None:
        if verdict.verdict == "PASS" and verdict.invariant not in report.checked:
            return f"PASS, but no step gave {verdict.invariant} anything to judge (no recovery reached)"
        return None
    if release is None:
        with _real_cursor(verdict.adapter) as factory:
            explained = explaining(report.violation, factory, verdict.findings)
    else:
        explained = explaining(report.violation, release, verdict.findings)
    if explained is None:
        return f"a violation no finding of {', '.join(verdict.findings)} explains: {report.violation}"
    return None


def explaining(violation: Violation, release: Factory, findings: tuple[str, ...]) -> tuple[str, ...] | None:
    """The fewest of ``findings`` that explain a counterexample, or None.

    Explained means: replayed on ``release`` against the model taking on those findings' behaviours
    (``spec.cursor_state.QUIRKS``), every answer is that model's (``CURSOR-MODEL``): the findings reproduce what the
    release did, step by step. A finding is thus judged by what the release answers, not by where the steps go, so
    a new bug behind the same steps stays unexplained. A violation that does not happen again on the release (a race,
    a flaky harness) is explained by nothing.
    """
    again = LockstepRun(CURSOR_STATE, release, "pulsar-master", (violation.invariant,))
    try:
        if replay(again, violation.config, violation.steps, strict=True) is None:
            return None
    except (SpecError, AdapterFault):
        return None
    quirks = [key for key in findings if key in QUIRKS]
    for size in range(1, len(quirks) + 1):
        for chosen in combinations(quirks, size):
            system = replace(CURSOR_STATE, init=partial(init, quirks=frozenset(chosen)))
            run = LockstepRun(system, release, "pulsar-master", ("CURSOR-MODEL",))
            try:
                if replay(run, violation.config, violation.steps, strict=True) is None:
                    return chosen
            except (SpecError, AdapterFault):
                continue
    return None


def judge_real_cursors(
    out: Callable[[str], None],
    *,
    settings: str,
    seed: int,
    strict: bool = True,
    pinned: bool = False,
    record: Record | None = None,
) -> bool:
    """Run every pinned search; print a line each; True if every one is as declared (see :func:`surprise`).

    ``pinned``: CI's searches at the pinned settings and seed (:func:`ci_search`; ``settings`` and
    ``seed`` unused), what ``ledgerspec run`` judges within its time.
    """
    ok = True
    for verdict in CURSOR_VERDICTS:
        report = ci_search(verdict) if pinned else search(verdict, settings=settings, seed=seed)
        problem = surprise(verdict, report, strict=strict)
        ok &= problem is None
        explained = f"  ({', '.join(verdict.findings)})" if verdict.findings else ""
        said = "as declared" if problem is None else "NOT AS DECLARED: " + problem
        if problem is None and report.verdict.value != verdict.verdict:
            said = f"declared {verdict.verdict}, not reached at this seed (pinned: seed {SEED}, settings {SETTINGS})"
        out(
            f"   {verdict.adapter:<20} {verdict.invariant:<30} {report.verdict.value:<5} {report.steps:>6} steps"
            f"{explained}  {said}"
        )
        if record is not None:
            note = f"{explained.strip()} {said}".strip()
            verdict_of = report.verdict.value
            record(RealRow(verdict.adapter, verdict.invariant, verdict_of, report.steps, problem is None, note))
    return ok


def judge_for_run(out: Callable[[str], None], *, settings: str, seed: int, record: Record | None = None) -> bool:
    """``ledgerspec run``'s part for the real cursors: each invariant of pulsar-master alone, CI's pinned searches."""
    out("   The real ManagedCursorImpl, cursor-state, each invariant of pulsar-master alone (CI's pinned searches)")
    return judge_real_cursors(out, settings=settings, seed=seed, pinned=True, record=record)
