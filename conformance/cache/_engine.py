"""The conformance engine: search for counterexamples, one invariant at a time, and report.

A run starts with every invariant the profile claims and the adapter can be checked on. Hypothesis
searches for any violation (its own shrinking is off: it replays the whole history hundreds of times,
minutes per failure) and :func:`minimize` makes the history short for each invariant broken at its
last step; those are recorded as failed, each with its case, and the search goes on with the rest. It ends
when a search finds nothing (the rest pass) or every invariant has failed. An adapter fault ends it
at once: it is reported as an error, never as a verdict.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import get_state_machine_test
from ledgerspec.conformance._errors import AdapterFault, InputError, Nondeterministic, close_factory
from ledgerspec.conformance._search import Faulted, hunt
from ledgerspec.conformance._settings import get_settings, hypothesis_settings
from ledgerspec.conformance._verdict import Status, Verdict
from ledgerspec.conformance.cache._case import Case, expected_observations, model_divergence
from ledgerspec.conformance.cache._judged import judged
from ledgerspec.conformance.cache._presets import get_preset
from ledgerspec.conformance.cache.adapters import AdapterFactory, AdapterInfo, mask
from ledgerspec.conformance.cache.machine._core import Broken, Run, Step, make_machine
from ledgerspec.spec import SpecError
from ledgerspec.spec.cache import (
    CATALOGUE,
    INVARIANTS,
    CursorRead,
    EvictBefore,
    Get,
    GetRange,
    Insert,
    Monitor,
    Op,
    Release,
    ReplayIncrement,
    Violation,
    get_named_config,
)


def needs(invariant: str, profile: str) -> frozenset[str]:
    """Adapter capabilities an invariant's check needs under a profile (its declaration says).

    Without them it is not checkable. Checks compare masked fields alike, so most need nothing.
    """
    return INVARIANTS[invariant].needs_for(profile)


@dataclass
class Row:
    """The verdict on one invariant."""

    invariant: str
    status: Status
    case: Case | None = None
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Report:
    """The outcome of one conformance run."""

    adapter: AdapterInfo
    profile: str
    preset: str
    settings: str
    seed: int
    rows: list[Row] = field(default_factory=list)
    examples: int = 0
    steps: int = 0
    seconds: float = 0.0
    fault: str | None = None
    fault_case: Case | None = None
    named_config: str | None = None

    @property
    def verdict(self) -> Verdict:
        """ERROR on an adapter fault, FAIL if an invariant failed, else PASS."""
        if self.fault is not None:
            return Verdict.ERROR
        return Verdict.FAIL if any(row.status == Status.FAIL for row in self.rows) else Verdict.PASS

    def failed(self) -> list[Row]:
        """The rows that failed, in catalogue order."""
        return [row for row in self.rows if row.status == Status.FAIL]

    def row(self, invariant: str) -> Row:
        """The row of one invariant."""
        return next(row for row in self.rows if row.invariant == invariant)


def conform(
    factory: AdapterFactory,
    *,
    profile: str | None = None,
    preset: str = "minimal",
    settings: str = "quick",
    examples: int | None = None,
    seed: int | None = None,
    invariants: list[str] | None = None,
    stop_at_first: bool = False,
    on_progress: Callable[[str, Run], None] | None = None,
    config: dict[str, Any] | None = None,
    exclude: frozenset[str] = frozenset(),
    named_config: str | None = None,
) -> Report:
    """Check one adapter against one profile; see the module docstring for the search.

    ``config`` overrides fields of the preset's configuration; so does ``named_config`` (a name of
    ``NAMED_CONFIGS`` for the profile), whose fields then stay as they are for the whole run.
    """
    started = time.perf_counter()
    info = probe(factory)
    profile = profile or info.profiles[0]
    chosen_preset, search = get_preset(preset), get_settings(settings)
    pinned: frozenset[str] = frozenset()
    if named_config is not None:
        try:
            values = get_named_config(named_config, profile).values
        except SpecError as error:
            raise InputError(f"--config-preset: {error}") from None
        config, pinned = {**(config or {}), **values}, frozenset(values)
    if config:
        chosen_preset = dataclasses.replace(chosen_preset, config=chosen_preset.config.replace(**config))
    if invariants:
        unknown = [i for i in invariants if i not in INVARIANTS]
        if unknown:
            raise InputError(f"unknown invariant(s) {unknown}; see `ledgerspec spec show`")
    report = Report(
        adapter=info,
        profile=profile,
        preset=preset,
        settings=settings,
        seed=random.randrange(2**32) if seed is None else seed,
        named_config=named_config,
    )
    active = []
    for invariant in CATALOGUE:
        if not invariant.claimed_by(profile):
            report.rows.append(Row(invariant.id, Status.NOT_CLAIMED))
        elif not needs(invariant.id, profile) <= info.capabilities:
            missing = sorted(needs(invariant.id, profile) - info.capabilities)
            report.rows.append(Row(invariant.id, Status.NOT_CHECKABLE, detail=f"adapter lacks {', '.join(missing)}"))
        elif invariants and invariant.id not in invariants:
            report.rows.append(Row(invariant.id, Status.NOT_RUN, detail="not selected"))
        else:
            report.rows.append(Row(invariant.id, Status.PASS))
            active.append(invariant.id)
    _refuse_unchecked_selection(report, invariants or [])
    try:
        _run_searches(
            report,
            factory,
            info,
            profile,
            chosen_preset,
            search,
            examples,
            active,
            exclude | {f"configure:{field}" for field in pinned},
            stop_at_first,
            on_progress,
        )
    finally:
        stop_fault = close_factory(factory)
    _fault_at_stop(report, stop_fault)
    report.seconds = time.perf_counter() - started
    _refuse_nothing_checked(report)
    return report


def _fault_at_stop(report: Report, fault: AdapterFault | None) -> None:
    """A run whose final ``stop`` faulted is no PASS: the fault is the verdict (unless one came before)."""
    if fault is None or report.fault is not None:
        return
    report.fault = f"{type(fault).__name__}: {fault}"
    for row in report.rows:
        if row.status == Status.PASS:
            row.status, row.detail = Status.ERROR, "adapter fault at the final stop"


def _refuse_nothing_checked(report: Report) -> None:
    """A run that checked no invariant on any step has no verdict: a usage error, never a PASS."""
    if report.fault is not None or report.verdict == Verdict.FAIL:
        return
    if not any(row.status == Status.PASS for row in report.rows):
        raise InputError(
            f"nothing to check: no invariant of profile {report.profile} is both claimed and checkable on "
            f"{report.adapter.name} (`ledgerspec spec show --profile {report.profile}` lists what each needs)"
        )
    if report.steps == 0:
        raise InputError(
            f"nothing was checked: the search sent no operation in {report.examples} example(s) "
            "(the first example is the empty one); ask for more with --examples"
        )


def _refuse_unchecked_selection(report: Report, selected: list[str]) -> None:
    """An invariant asked for by name that this run cannot check is a usage error, never a quiet pass."""
    for row in report.rows:
        if row.invariant not in selected:
            continue
        if row.status == Status.NOT_CLAIMED:
            raise InputError(
                f"--invariant {row.invariant}: profile {report.profile} does not claim it "
                f"(`ledgerspec spec show --profile {report.profile}` lists what it claims)"
            )
        if row.status == Status.NOT_CHECKABLE:
            missing = ", ".join(sorted(needs(row.invariant, report.profile) - report.adapter.capabilities))
            raise InputError(
                f"--invariant {row.invariant}: {report.adapter.name} does not claim {missing}, which its check needs"
            )


def _run_searches(  # noqa: C901, PLR0912 - the search loop: per seed, per example, its stop conditions in one place
    report: Report,
    factory: AdapterFactory,
    info: AdapterInfo,
    profile: str,
    chosen_preset: Any,
    search: Any,
    examples: int | None,
    active: list[str],
    exclude: frozenset[str],
    stop_at_first: bool,
    on_progress: Callable[[str, Run], None] | None,
) -> None:
    """Search until nothing more breaks (see the module docstring)."""
    attempt = 0
    while active:
        attempt += 1
        run = Run(
            factory=factory, info=info, profile=profile, preset=chosen_preset, invariants=list(active), exclude=exclude
        )
        if on_progress is not None:
            run.on_example = functools.partial(_notify, on_progress, ",".join(active))
        search_started = time.perf_counter()
        outcome = _search(run, search, examples, report.seed + attempt - 1)
        report.examples += run.examples
        report.steps += run.steps
        if outcome is None:
            break
        if isinstance(outcome, Faulted):
            if isinstance(outcome.fault, Nondeterministic):
                _discredit(report)
            report.fault = f"{type(outcome.fault).__name__}: {outcome.fault}"
            if outcome.stage != "search":  # a fault Hypothesis saw when replaying has no steps to save
                report.fault_case = _case(
                    report, None, outcome.history, str(outcome.fault), chosen_preset.config, pending=outcome.op
                )
            for row in report.rows:
                if row.invariant in active:
                    row.status, row.detail = Status.ERROR, "adapter fault"
            break
        broken = sorted({v.invariant for v in outcome.violations}, key=active.index)
        unstable = _nondeterminism(run, outcome.history, chosen_preset.config)
        if unstable is not None:
            _discredit(report)
            report.fault = f"Nondeterministic: {unstable}"
            for row in report.rows:
                if row.invariant in active:
                    row.status, row.detail = Status.ERROR, "adapter fault"
            break
        for invariant in broken:
            history, violations = minimize(run, invariant, outcome.history, chosen_preset.config)
            message = "; ".join(v.message for v in violations if v.invariant == invariant)
            row = report.row(invariant)
            row.status, row.detail, row.seconds = Status.FAIL, message, time.perf_counter() - search_started
            row.case = _case(report, invariant, history, message, chosen_preset.config)
            active.remove(invariant)
        if stop_at_first:
            for invariant in active:
                row = report.row(invariant)
                row.status, row.detail = Status.NOT_RUN, "stopped at the first failure"
            break


def _discredit(report: Report) -> None:
    """A nondeterministic adapter: failures found before it showed may not reproduce either."""
    for row in report.rows:
        if row.status == Status.FAIL:
            row.status, row.detail = Status.ERROR, "found before the adapter proved nondeterministic; not a verdict"


def _notify(callback: Callable[[str, Run], None], label: str, run: Run) -> None:
    callback(label, run)


def probe(factory: AdapterFactory) -> AdapterInfo:
    """Create one adapter to read its metadata, then stop it."""
    adapter = factory()
    try:
        return adapter.info
    finally:
        adapter.stop()


def minimize(run: Run, invariant: str, history: list[Step], config: Any) -> tuple[list[Step], list[Violation]]:
    """Make a counterexample short: the search does not shrink, this does, knowing the domain.

    While the invariant still breaks: shift the clock to start at 1 (and again at the end), delete
    runs of steps (halving the run length down to single steps, as delta debugging does), and when
    no deletion works, enlarge one insert to a bigger preset size (fewer writes then fill the cache)
    and try deleting again. A replay stops at the step where the invariant breaks, so the tail goes
    for free. Every step keeps its own ``now``, so the clock still increases; a trial that becomes invalid (a copy
    or cursor that no longer exists) is rejected.
    """
    ops = [step.op for step in history]
    best = replay_steps(run, invariant, _shift(ops), config) or replay_steps(run, invariant, ops, config)
    if best is None:
        return history, []
    while True:
        smaller = _delete_runs(run, invariant, best, config) or _enlarge_one(run, invariant, best, config)
        if smaller is None:
            break
        best = smaller
    return replay_steps(run, invariant, _shift([step.op for step in best[0]]), config) or best


def _shift(ops: list[Op]) -> list[Op]:
    """The clock moved back to start at 1, an explicit cutoff with it (else it lands after its ``now``)."""
    if not ops:
        return ops
    shift = ops[0].now - 1
    moved = [dataclasses.replace(op, now=op.now - shift) for op in ops]
    return [dataclasses.replace(op, cutoff=op.cutoff - shift) if isinstance(op, EvictBefore) else op for op in moved]


def _delete_runs(run: Run, invariant: str, best: Any, config: Any) -> Any:
    """The shortest failure found by deleting runs of steps, longest runs first; None if none goes."""
    improved = None
    length = max(1, len(best[0]) // 2)
    while length >= 1:
        end = len(best[0])
        while end > 0:
            start = max(0, end - length)
            trial = replay_steps(run, invariant, _cut(best[0], start, end), config)
            if trial is not None:
                best = improved = trial
                end = min(start, len(best[0]))
            else:
                end = start
        length //= 2
    return improved


def _cut(history: list[Step], start: int, end: int) -> list[Op]:
    """The ops without ``history[start:end]``, and without the releases of the copies those dispatched.

    Copy ids count up from 0 in order of dispatch (SPEC.md), so the copies of the steps kept are
    renumbered: a release keeps naming the copy it released, not whichever copy now has its old id.
    """
    ops: list[Op] = []
    renumbered: dict[int, int] = {}
    for index, step in enumerate(history):
        if start <= index < end:
            continue
        dispatched = dispatched_copies(step)
        op = step.op
        if isinstance(op, Release | ReplayIncrement):
            if op.copy not in renumbered:
                continue
            op = dataclasses.replace(op, copy=renumbered[op.copy])
        for copy in dispatched:
            renumbered[copy] = len(renumbered)
        ops.append(op)
    return ops


def dispatched_copies(step: Step) -> list[int]:
    """The copy ids a read step returned: a get, a range read, or a cursor's read of the managed ledger."""
    if isinstance(step.op, Get) and isinstance(step.result, int):
        return [step.result]
    if isinstance(step.op, GetRange | CursorRead) and isinstance(step.result, list | tuple):
        return [copy for copy in step.result if isinstance(copy, int)]
    return []


def _enlarge_one(run: Run, invariant: str, best: Any, config: Any) -> Any:
    """Replace one insert's size by a larger one if that lets a deletion succeed; the shorter failure."""
    ops = [step.op for step in best[0]]
    for index, op in enumerate(ops):
        if not isinstance(op, Insert):
            continue
        for size in sorted((s for s in run.preset.sizes if s > op.size), reverse=True):
            enlarged = [*ops[:index], dataclasses.replace(op, size=size), *ops[index + 1 :]]
            trial = replay_steps(run, invariant, enlarged, config)
            shorter = _delete_runs(run, invariant, trial, config) if trial is not None else None
            if shorter is not None:
                return shorter
    return None


def replay_steps(run: Run, invariant: str, ops: list[Op], config: Any) -> tuple[list[Step], list[Violation]] | None:
    """Run ops on a fresh adapter; the history up to the step where ``invariant`` breaks, or None."""
    adapter = run.factory()
    observed = run.info.observed_in(run.profile)
    monitor = Monitor(run.profile, config, invariants=[invariant], project=lambda o: mask(o, observed))
    history: list[Step] = []
    try:
        adapter.start(config)
        for op in ops:
            result = adapter.apply(op)
            observation = mask(adapter.observe(), observed)
            history.append(Step(op, result, observation))
            violations = judged(monitor, op, result, observation)
            if violations:
                return history, violations
    except (AdapterFault, SpecError):
        return None
    finally:
        adapter.stop()
    return None


def _nondeterminism(run: Run, history: list[Step], config: Any) -> str | None:
    """Run the failing steps twice more; a step answered otherwise than before, named by the run's journal."""
    ops = [step.op for step in history]
    for _ in range(2):
        try:
            _record(run, ops, config)
        except Faulted as faulted:
            return str(faulted.fault)
    return None


def _record(run: Run, ops: list[Op], config: Any) -> None:
    """Send ``ops`` to a new adapter, each answer noted in the journal (:class:`Faulted` if it differs)."""
    adapter = run.factory()
    node = run.journal.root(config)
    observed = run.info.observed_in(run.profile)
    try:
        adapter.start(config)
        for index, op in enumerate(ops):
            answer = (adapter.apply(op), mask(adapter.observe(), observed))
            node = run.journal.note(node, op, answer, ops[:index])
    except AdapterFault:
        return
    finally:
        adapter.stop()


def _search(run: Run, search: Any, examples: int | None, seed: int) -> Broken | Faulted | None:
    machine = make_machine(run)
    test = get_state_machine_test(
        machine,
        settings=hypothesis_settings(search, examples=examples),
        _min_steps=0,
        _flaky_state={"selecting_rule": False},
    )
    try:
        return hunt(hypothesis_seed(seed)(test), run.info.name)
    except Broken as found:
        return found


def _case(
    report: Report, invariant: str | None, history: list[Step], message: str, config: Any, pending: Op | None = None
) -> Case:
    """The case of a failure at the last step of ``history``, or of a fault on ``pending`` after it."""
    steps = [step.op for step in history] + ([pending] if pending is not None else [])
    what = invariant or "adapter fault"
    observed = report.adapter.observed_in(report.profile)
    divergence = model_divergence(report.profile, config, history, project=lambda o: mask(o, observed))
    comment = None
    if divergence is not None:
        comment = f"first difference from the {report.profile} model at step {divergence[0]}: {divergence[1]}"
    return Case(
        description=f"{what} broken by {report.adapter.name}"[:120],
        profile=report.profile,
        config=config,
        steps=steps,
        invariant=invariant,
        failing_step=len(steps),  # 0: a fault with no step taken (start, configure, stop)
        message=message,
        found_with=report.adapter.name,
        preset=report.preset,
        config_preset=report.named_config,
        comment=comment,
        expected=expected_observations(report.profile, config, steps) if steps else None,
    )
