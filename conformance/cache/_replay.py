"""Replaying a saved case against an adapter: the same monitor, one fixed sequence of steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from ledgerspec.conformance._errors import AdapterFault, InputError, close_factory, shown_lines
from ledgerspec.conformance._verdict import CONFORM_EXIT, Verdict
from ledgerspec.conformance.cache._case import Case, model_divergence
from ledgerspec.conformance.cache._engine import dispatched_copies, needs
from ledgerspec.conformance.cache._judged import judged
from ledgerspec.conformance.cache._report import case_config_lines
from ledgerspec.conformance.cache.adapters import AdapterFactory, mask
from ledgerspec.conformance.cache.machine._core import Step
from ledgerspec.spec.cache import Monitor, Observation, Release, ReplayIncrement, Violation, claimed
from ledgerspec.spec.cache._monitor import MODEL


@dataclass
class ReplayOutcome:
    """What happened: the steps run, and the violations or fault at the last one."""

    case: Case
    adapter: str
    history: list[Step] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    fault: str | None = None
    skipped: list[str] = field(default_factory=list)
    divergence: tuple[int, str] | None = None
    """Where the candidate first left the model, and the rule it broke, when the broken invariant is another."""

    @property
    def verdict(self) -> Verdict:
        """PASS, FAIL or ERROR."""
        if self.fault:
            return Verdict.ERROR
        return Verdict.FAIL if self.violations else Verdict.PASS

    @property
    def exit_status(self) -> int:
        """0, 1 or 3."""
        return int(CONFORM_EXIT[self.verdict])

    def render(self) -> str:
        """Numbered steps with the candidate's results, and the verdict."""
        case = self.case
        lines = [f"{self.verdict}: case {case.description!r} against {self.adapter} (profile {case.profile})"]
        lines += [f"  {line}" for line in case_config_lines(case)]
        divergence = []
        if self.divergence is not None:
            at, difference = self.divergence
            divergence = f"first difference from the {case.profile} model at step {at}: {difference}".splitlines()
        for index, step in enumerate(self.history, start=1):
            lines.append(f"  {index:>2}. {step.op.describe()}  -> {step.result!r}")
        for violation in self.violations:
            first, *rest = violation.message.splitlines() or [""]
            lines += [f"      {violation.invariant}: {first}", *(f"        {line}" for line in rest)]
        lines += [f"      {line}" for line in divergence]
        if not self.case.steps and not self.fault:
            lines.append(
                "  no steps: the adapter started, was configured and stopped without a fault (the case recorded one)"
            )
        if self.fault:
            lines += shown_lines(self.fault, "adapter fault: ", "      ")
        if self.skipped:
            lines.append(f"  not checkable with this adapter: {', '.join(self.skipped)}")
        return "\n".join(lines)


def replay(case: Case, factory: AdapterFactory, *, every_invariant: bool = False) -> ReplayOutcome:  # noqa: C901, PLR0912 - one branch per step kind of a replay file
    """Run the case's steps and check them.

    A case that records a broken invariant is about that invariant: only it is checked, unless
    ``every_invariant``; a plain vector is checked against every invariant the profile claims that the
    adapter can show. A case of a fault with no step taken has none: the adapter is only
    started, configured and stopped, so the fault comes again (ERROR) or does not (PASS, saying so).
    """
    adapter = factory()
    info = adapter.info
    outcome = ReplayOutcome(case=case, adapter=info.name)
    missing = [c for c in case.requires if c not in info.capabilities]
    if missing:
        adapter.stop()
        raise InputError(f"case {case.description!r} requires {missing}, which {info.name} does not support")
    invariants = []
    for invariant in claimed(case.profile):
        if case.invariant and not every_invariant and invariant.id != case.invariant:
            continue
        if needs(invariant.id, case.profile) <= info.capabilities:
            invariants.append(invariant.id)
        else:
            outcome.skipped.append(invariant.id)
    unchecked = _unchecked(case, info.name, info.capabilities, invariants)
    if unchecked:
        adapter.stop()
        raise InputError(f"{case.source or repr(case.description)}: {unchecked}")
    observed = info.observed_in(case.profile)

    def project(observation: Observation) -> Observation:
        return mask(observation, observed)

    monitor = Monitor(case.profile, case.config, invariants=invariants, project=project)
    open_copies: set[int] = set()
    try:
        adapter.start(case.config)
        for index, op in enumerate(case.steps):
            if not info.supports(op):
                raise InputError(f"{info.name} does not support {op.kind}, which the case uses")
            if isinstance(op, Release | ReplayIncrement) and op.copy not in open_copies:
                held = ", ".join(map(str, sorted(open_copies))) or "none"
                raise InputError(
                    f"{case.source or repr(case.description)}: steps[{index}] ({op.describe()}): copy {op.copy} is "
                    f"not open: {info.name} holds {held} open here, so the case does not apply to it"
                )
            result = adapter.apply(op)
            observation = mask(adapter.observe(), observed)
            outcome.history.append(Step(op, result, observation))
            open_copies.update(dispatched_copies(outcome.history[-1]))
            if isinstance(op, Release):
                open_copies.discard(op.copy)
            outcome.violations = judged(monitor, op, result, observation)
            if outcome.violations:
                if all(violation.invariant != MODEL for violation in outcome.violations):
                    outcome.divergence = model_divergence(case.profile, case.config, outcome.history, project=project)
                break
    except AdapterFault as fault:
        outcome.fault = f"{type(fault).__name__}: {fault}"
    finally:
        adapter.stop()
        stop_fault = close_factory(factory)  # a process's final ``stop``
    if stop_fault is not None and outcome.fault is None:
        outcome.fault = f"{type(stop_fault).__name__}: {stop_fault}"
    return outcome


def _unchecked(case: Case, adapter: str, capabilities: frozenset[str], invariants: list[str]) -> str | None:
    """Why replaying the case would check nothing it is about, or None: a PASS must rest on a check."""
    if case.invariant is not None:
        if case.invariant not in {invariant.id for invariant in claimed(case.profile)}:
            return f"invariant {case.invariant} is not claimed by profile {case.profile}"
        missing = sorted(needs(case.invariant, case.profile) - capabilities)
        if missing:
            return (
                f"{case.invariant} cannot be checked with {adapter}: it does not claim {', '.join(missing)}, "
                "which the check needs"
            )
    if not invariants:
        return f"no invariant of profile {case.profile} can be checked with {adapter}"
    return None
