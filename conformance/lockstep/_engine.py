"""Lockstep conformance for the systems whose model answers each step exactly.

The cursor state and the transaction-log writer: the search, its machine's plumbing, its verdict and
its counterexample.

A system is a ``System``: its profiles, its pure model (``init``, ``step``), its invariants
(``claimed``) and the ``Step`` record its checks read. A machine subclasses ``Lockstep`` and adds the
rules; every operation goes through ``do``: the model steps, the candidate answers, every invariant
the profile claims judges the answer. Hypothesis shrinks a failure to a minimal sequence of steps.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test
from ledgerspec.conformance._errors import AdapterFault, shown_lines
from ledgerspec.conformance._search import Faulted, Journal, guard, hunt
from ledgerspec.conformance._settings import get_settings
from ledgerspec.conformance._verdict import Status, Verdict
from ledgerspec.conformance.render._explain import lockstep_config_lines
from ledgerspec.conformance.systems import Checked, System
from ledgerspec.spec import SpecError


class Candidate(Protocol):
    """What an implementation under test offers: a fresh instance per ``start``, one answer per op."""

    def start(self, config: Any) -> None: ...
    def apply(self, op: Any) -> Any: ...
    def stop(self) -> None: ...


class Violation(AssertionError):  # noqa: N818 - a finding, not an error of the run
    """The candidate broke an invariant; ``steps`` replays it from ``config``."""

    def __init__(self, invariant: str, message: str, config: Any, steps: list[Any]) -> None:
        self.invariant, self.message, self.config, self.steps = invariant, message, config, steps
        super().__init__(f"{invariant}: {message}")


@dataclass
class LockstepRun:
    """One search: the candidate, the profile, the invariants to check, and counters."""

    system: System
    factory: Callable[[], Candidate]
    profile: str
    invariants: tuple[str, ...] = ()
    """Ids to check (empty: every invariant the profile claims)."""
    capabilities: frozenset[str] = frozenset()
    """What the candidate claims: operations and settings outside it are never sent."""
    examples: int = 0
    steps: int = 0
    checked: set[str] = field(default_factory=set)
    unreported: set[str] = field(default_factory=set)
    """Invariants left out because the candidate does not report what they read (``System.reads``)."""
    on_example: Callable[[int, int], None] | None = None
    """Told (examples, steps) as each example starts: a progress bar's feed."""
    journal: Journal = field(default_factory=lambda: Journal("the adapter"))
    """Every answer by the steps that led to it: the same steps answered differently is nondeterminism."""

    def checks(self, candidate: Any = None) -> list[Checked]:
        """The invariants to check; given the candidate, not those reading what it does not report."""
        reported = self.system.reported(candidate) if candidate is not None else {}
        silent = {name for name, value in reported.items() if value is None}
        wanted = [inv for inv in self.system.claimed(self.profile) if not self.invariants or inv.id in self.invariants]
        self.unreported |= {inv.id for inv in wanted if self.system.reads.get(inv.id) in silent}
        return [inv for inv in wanted if inv.id not in self.unreported]


class Lockstep(RuleBasedStateMachine):
    """The plumbing of a system's machine: ``begin`` (from an ``@initialize`` rule) and ``do``."""

    run: LockstepRun

    def __init__(self) -> None:
        super().__init__()
        self.run.examples += 1
        if self.run.on_example is not None:
            self.run.on_example(self.run.examples, self.run.steps)
        self.history: list[Any] = []
        self.config: Any = None
        self.candidate = guard(self.run.factory, (), stage="start")  # a restart after a crash may fault
        self.started = False
        self._checks = self.run.checks(self.candidate)

    def begin(self, config: Any) -> None:
        self.config = config
        self.model = self.run.system.init(self.run.profile, config)
        self.node = self.run.journal.root(config)
        guard(lambda: self.candidate.start(config), (), stage="start", config=config)
        self.started = True

    def teardown(self) -> None:
        if self.started:
            guard(self.candidate.stop, self.history, stage="stop", config=self.config)

    def do(self, op: Any) -> Any:
        """The model steps, the candidate answers, the claimed invariants judge the answer.

        An adapter fault leaves the search at once, as :class:`Faulted` (``_search``), with the steps before it.
        """
        run = self.run
        run.steps += 1
        before = self.model
        self.model, expected = run.system.step(before, op)
        result = guard(lambda: self.candidate.apply(op), self.history, op, config=self.config)
        self.node = run.journal.note(self.node, op, result, self.history, self.config)
        self.history.append(op)
        facts = run.system.facts(before, self.model, op, result, expected, **run.system.reported(self.candidate))
        for inv in self._checks:
            message = inv.check(facts)
            if message is not None:
                raise Violation(inv.id, message, self.config, list(self.history))
            judges = getattr(inv, "judges", None)
            if judges is None or judges(facts):
                run.checked.add(inv.id)  # "held" means judged on some step, never merely not contradicted
        return result


@dataclass(frozen=True)
class Row:
    """One invariant's line of a report: its status and why (as the cache's ``_engine.Row``)."""

    invariant: str
    status: Status
    detail: str = ""


@dataclass
class Report:
    """One search's verdict.

    PASS with what was checked, FAIL with a replayable counterexample, or ERROR when the candidate
    faulted.
    """

    system: str
    profile: str
    seed: int
    settings: str
    invariants: list[str]
    examples: int = 0
    steps: int = 0
    violation: Violation | None = None
    fault: str | None = None
    fault_at: str | None = None
    """Where the fault came (before the first step, at step N of an example, at stop), for a fault of one example."""
    fault_steps: list[Any] = field(default_factory=list)
    """The example's steps up to the fault: up to the step that faulted, or all it took before a fault at stop."""
    fault_step: int | None = None
    """The 1-based step of ``fault_steps`` that faulted (None: the fault came at start or stop)."""
    checked: list[str] = field(default_factory=list)
    unclaimed: list[str] = field(default_factory=list)
    """Capabilities the candidate did not claim: what they cover was not sent or not compared, so a PASS says so."""
    unreported: list[str] = field(default_factory=list)
    """Invariants not checked because the candidate does not report what they read (a process's writes)."""
    catalogue: list[str] = field(default_factory=list)
    """Every invariant of the system, in catalogue order: the report names each (empty: ``invariants``)."""
    claimed: list[str] = field(default_factory=list)
    """The invariants the profile claims (empty: ``invariants``)."""
    reads: dict[str, str] = field(default_factory=dict)
    """Invariant id -> the capability whose report its check reads (``System.reads``)."""

    @property
    def verdict(self) -> Verdict:
        if self.fault is not None:
            return Verdict.ERROR
        return Verdict.FAIL if self.violation is not None else Verdict.PASS

    def case(self) -> dict[str, Any] | None:
        """The counterexample as data: system, profile, config and steps."""
        if self.violation is None:
            return None
        return {
            "system": self.system,
            "profile": self.profile,
            "invariant": self.violation.invariant,
            "message": self.violation.message,
            "config": self.violation.config.to_dict(),
            "steps": [op.to_dict() for op in self.violation.steps],
        }

    def rows(self) -> list[Row]:
        """Every invariant of the catalogue with its status, in the cache report's words (``Status``).

        pass (judged on some step, never contradicted), fail, error (the search stopped at an adapter
        fault), not claimed (by the profile), not checkable (the adapter lacks what its check reads),
        not run (not selected, or no step reached it): a reader of any system's report reads one table.
        """
        broken = self.violation.invariant if self.violation is not None else None
        claimed = self.claimed or self.invariants
        rows = []
        for inv in self.catalogue or self.invariants:
            if inv not in claimed:
                row = Row(inv, Status.NOT_CLAIMED, f"profile {self.profile} does not claim it")
            elif inv in self.unreported:
                row = Row(inv, Status.NOT_CHECKABLE, f"adapter lacks {self.reads.get(inv, 'what its check reads')}")
            elif inv not in self.invariants:
                row = Row(inv, Status.NOT_RUN, "not selected")
            elif inv == broken:
                row = Row(inv, Status.FAIL, self.violation.message if self.violation is not None else "")
            elif self.fault is not None:
                held = " (held until then; the search stopped there)" if inv in self.checked else ""
                row = Row(inv, Status.ERROR, f"adapter fault{held}")
            elif inv in self.checked:
                row = Row(inv, Status.PASS)
            else:
                row = Row(inv, Status.NOT_RUN, "no step reached it")
            rows.append(row)
        return rows

    def statuses(self) -> dict[str, Status]:
        """Each invariant of the catalogue: its status (:meth:`rows`)."""
        return {row.invariant: row.status for row in self.rows()}

    def render(self) -> str:
        lines = [
            (
                f"{self.system}, profile {self.profile}, settings {self.settings}, seed {self.seed}: "
                f"{self.examples} examples, {self.steps} steps"
            ),
        ]
        rows = self.rows()
        width = max((len(row.invariant) for row in rows), default=0)
        for row in rows:  # the cache's table (conformance/cache/_report.py): invariant, STATUS, why
            note = row.detail
            if row.status == Status.FAIL and self.violation is not None:
                note = f"counterexample of {len(self.violation.steps)} steps (below)"
            elif row.status == Status.PASS:
                note = "held on every step that reached it"
            lines.append(f"  {row.invariant:<{width}}  {row.status.upper():<13}  {note}".rstrip())
        if self.unclaimed:
            lines.append(f"  not claimed, so not checked: {', '.join(self.unclaimed)} (the system's protocol page)")
        if self.fault_at is not None:
            lines.append(f"{self.fault_at}{':' if self.fault_steps else ''}")
            lines += [
                f"  {i}. {op.describe()}" + ("   <- faulted" if i == self.fault_step else "")
                for i, op in enumerate(self.fault_steps, 1)
            ]
        if self.fault is not None:
            lines += shown_lines(self.fault, "adapter fault: ", "", "in --json's fault")
        if self.violation is not None:
            config = json.dumps(self.violation.config.to_dict())
            lines.append(f"counterexample ({len(self.violation.steps)} steps, config {config}):")
            lines += [f"  {line}" for line in lockstep_config_lines(self.system, self.profile, self.violation.config)]
            lines += [f"  {i}. {op.describe()}" for i, op in enumerate(self.violation.steps, 1)]
            first, *rest = self.violation.message.splitlines() or [""]
            lines += [f"  {self.violation.invariant}: {first}", *(f"    {line}" for line in rest)]
        lines.append(f"verdict: {self.verdict.value}")
        return "\n".join(lines)


def claiming(system: System, invariant: str) -> System:
    """``system`` whose every profile also claims ``invariant`` (of its catalogue).

    The judge of a finding about a profile that does not claim it (PIP-381's pip381 breaks what
    pulsar-master claims): replaying the finding judges it, instead of checking nothing.
    """
    every = system.invariants

    def claimed(profile: str) -> Sequence[Checked]:
        return [inv for inv in every if profile in inv.profiles or inv.id == invariant]

    return dataclasses.replace(system, claimed=claimed)


def replay(run: LockstepRun, config: Any, steps: Sequence[Any], *, strict: bool = False) -> tuple[str, str] | None:
    """The first (invariant, message) the steps break on a fresh candidate, or None.

    Steps the model refuses (a recovery whose crash was removed) or on which the candidate faults
    break nothing here: the same invariant must break for a shorter run to stand. ``strict``: they
    raise instead (None then means every step ran and held).
    """
    candidate = run.factory()
    candidate.start(config)
    model = run.system.init(run.profile, config)
    checks = run.checks(candidate)
    try:
        for op in steps:
            before = model
            model, expected = run.system.step(before, op)
            result = candidate.apply(op)
            facts = run.system.facts(before, model, op, result, expected, **run.system.reported(candidate))
            for inv in checks:
                message = inv.check(facts)
                if message is not None:
                    return inv.id, message
    except (SpecError, AdapterFault):
        if strict:
            raise
        return None
    finally:
        with contextlib.suppress(AdapterFault):
            candidate.stop()
    return None


def minimize(run: LockstepRun, found: Violation) -> Violation:
    """Delete steps (runs of 8, 4, 2, then one) while the same invariant still breaks.

    Shorter than what Hypothesis's shrinking leaves of a stateful run whose rules take several steps.
    """
    steps = list(found.steps)
    changed = True
    while changed:
        changed = False
        for width in (8, 4, 2, 1):
            i = 0
            while i < len(steps):
                shorter = steps[:i] + steps[i + width :]
                broken = replay(run, found.config, shorter) if shorter else None
                if broken is not None and broken[0] == found.invariant:
                    steps, changed = shorter, True
                else:
                    i += 1
    final = replay(run, found.config, steps)
    return Violation(found.invariant, final[1] if final else found.message, found.config, steps)


def search(
    run: LockstepRun,
    machine: type[Lockstep],
    *,
    settings_name: str = "ci",
    seed: int = 0,
    examples: int | None = None,
    shrink: bool = True,
) -> Report:
    """Search for a sequence of operations on which the candidate breaks one of the invariants.

    ``examples`` caps the preset's examples; without ``shrink`` the first counterexample is reported as found
    (neither Hypothesis's shrinking nor :func:`minimize`: for a slow candidate whose finding is known already).
    """
    preset = get_settings(settings_name)
    test = get_state_machine_test(
        machine,
        settings=settings(
            max_examples=min(examples, preset.examples) if examples else preset.examples,
            stateful_step_count=preset.steps,
            deadline=None,
            database=None,
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
            phases=(Phase.explicit, Phase.generate, Phase.shrink) if shrink else (Phase.explicit, Phase.generate),
            suppress_health_check=list(HealthCheck),
        ),
    )
    report = Report(run.system.name, run.profile, seed, settings_name, [inv.id for inv in run.checks()])
    report.unclaimed = sorted(set(run.system.capabilities) - run.capabilities)
    report.catalogue = [inv.id for inv in run.system.invariants]
    report.claimed = [inv.id for inv in run.system.claimed(run.profile)]
    report.reads = dict(run.system.reads)
    try:
        run.journal.adapter = f"the {run.system.name} candidate"
        faulted = hunt(hypothesis_seed(seed)(test), run.journal.adapter)
    except Violation as found:
        report.violation = minimize(run, found) if shrink else found
    else:
        if faulted is not None:
            report.fault, report.fault_at = str(faulted.fault), fault_at(faulted, run.examples)
            report.fault_steps = [*faulted.history, *([faulted.op] if faulted.op is not None else [])]
            report.fault_step = len(report.fault_steps) if faulted.op is not None else None
    report.examples, report.steps, report.checked = run.examples, run.steps, sorted(run.checked)
    report.unreported = sorted(run.unreported)
    return report


def fault_at(faulted: Faulted, example: int) -> str | None:
    """Where in the search an adapter fault came, in words; None for one Hypothesis saw when replaying."""
    config = f"config {json.dumps(faulted.config.to_dict())}" if faulted.config is not None else "no config yet"
    steps = len(faulted.history)
    if faulted.stage == "search":
        return None
    if faulted.stage == "start":
        return f"adapter fault in example {example}, before its first step (at start or configure; {config})"
    if faulted.stage == "stop":
        return f"adapter fault in example {example}, at stop after its {steps} steps ({config})"
    return f"adapter fault in example {example}, at step {steps + 1} ({config})"


def fault_at_stop(report: Report, fault: AdapterFault | None) -> Report:
    """The report, an adapter fault if the process's final ``stop`` faulted (and no fault came before)."""
    if fault is not None and report.fault is None:
        report.fault, report.fault_at = str(fault), "adapter fault at the final stop, after the search"
    return report


def conform(
    system: System,
    factory: Callable[[], Candidate],
    profile: str,
    *,
    settings_name: str = "ci",
    seed: int = 0,
    invariants: tuple[str, ...] = (),
    capabilities: frozenset[str] | None = None,
    on_example: Callable[[int, int], None] | None = None,
    examples: int | None = None,
    shrink: bool = True,
) -> Report:
    """Search for a sequence of operations on which the candidate breaks one of the profile's invariants.

    ``capabilities`` are a process's claims (None: every capability, as an in-process candidate): they
    decide what is sent and, for some systems, what an answer may leave out (``System.run_facts``).
    """
    claims = frozenset(system.capabilities) if capabilities is None else capabilities
    if system.machine is None:
        raise SpecError(f"the {system.name} system has no search (no machine)")
    run = LockstepRun(
        dataclasses.replace(system, facts=system.facts_for(claims)),
        factory,
        profile,
        invariants,
        claims,
        on_example=on_example,
    )
    return search(run, system.machine(run), settings_name=settings_name, seed=seed, examples=examples, shrink=shrink)
