"""The monitor: a candidate's observed history, checked step by step against a profile's invariants.

For each step the monitor sees the operation, the candidate's result and its observation afterwards.
It derives the step's events (``_derive.py``) and feeds them to each invariant's normative check
(``_normative.py``) over the plain shadow (``_shadow.py``), the checks the trace checkers'
accelerators are held equal to; the few properties only an observation shows run in the check's
``step`` part. After each step the shadow takes the counts the observation shows, as the events of a
trace make it take the counts they show. Only ``CACHE-MODEL`` also runs the profile's model.

The clock must strictly increase from step to step (the conformance engine makes it so; the
derivation refuses a clock that does not, ``_derive.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ledgerspec.spec._errors import SpecError
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._derive import Derivation
from ledgerspec.spec.cache._normative import Judge, TraceStructureError
from ledgerspec.spec.cache._observation import Counters, Observation, describe_difference
from ledgerspec.spec.cache._ops import Op
from ledgerspec.spec.cache._profiles import get_profile
from ledgerspec.spec.cache._shadow import Event
from ledgerspec.spec.cache.invariants import INVARIANTS, StepView, claimed

EMPTY = Observation(entries=(), size=0, counters=Counters(), copies=())
MODEL = "CACHE-MODEL"


@dataclass(frozen=True)
class Violation:
    """An invariant that does not hold at a step, with what was seen."""

    invariant: str
    message: str


class Monitor:
    """Checks a candidate's history, step by step, against invariants of one profile."""

    def __init__(
        self,
        profile: str,
        config: CacheConfig,
        *,
        invariants: Iterable[str] | None = None,
        project: Callable[[Observation], Observation] | None = None,
    ) -> None:
        """Check ``invariants`` (default: all the profile claims).

        ``project`` is applied to the model's observations before they are compared with the
        candidate's, for candidates that observe less than everything (see conformance ``mask``).
        """
        self.profile = get_profile(profile)
        self.project = project or (lambda observation: observation)
        ids = [i.id for i in claimed(profile)] if invariants is None else list(invariants)
        for invariant_id in ids:
            if invariant_id not in INVARIANTS:
                raise SpecError(f"unknown invariant {invariant_id!r}; known: {', '.join(INVARIANTS)}")
            if not INVARIANTS[invariant_id].claimed_by(profile):
                raise SpecError(
                    f"profile {profile!r} does not claim {invariant_id}; its predicate has no meaning there"
                )
        self.invariants = ids
        self.config = config
        self.enabled = config.max_size > 0
        self.before = EMPTY
        self.states = frozenset({self.profile.init(config)})
        chosen = [INVARIANTS[i] for i in ids]
        self.checks = [(i.id, i.check) for i in chosen if i.check is not None]
        self.judge = Judge("candidate", profile, config, self.checks, keep=None)
        self.derivation = Derivation()
        self._seq = 0

    def check(self, op: Op, result: Any, after: Observation) -> list[Violation]:
        """Record one step of the candidate and return the invariants it breaks."""
        result = tuple(result) if isinstance(result, list) else result  # a range read's copies: values, not container
        cursors = dict(self.derivation.cursors)  # the active cursors before the step, as the operations placed them
        reopens = frozenset(self.derivation.reopens)
        events = self.derivation.step(op, result, self.before, after)
        label = type(op).__name__
        first = self._seq + 1
        shadow = self.judge.shadow
        made_from = shadow.index
        shadow.forget_shown()
        self.judge.findings = []
        try:
            self.judge.feed([Event.of(e, first + n, first + n - 1) for n, e in enumerate(events)], label)
        except TraceStructureError as error:  # the derivation brackets every pass
            raise SpecError(f"{op.describe()}: derived events are not well formed: {error}") from error
        shadow.settle()
        self._seq += len(events)
        found = [(f.invariant, f.message) for f in self.judge.findings]
        view = StepView(
            profile=self.profile.name,
            config=shadow.config,
            op=op,
            result=result,
            before=self.before,
            after=after,
            enabled=self.enabled,
            project=self.project,
            differences=shadow.count_differences(after, self._copy_positions(after), made_from),
            sink=lambda invariant, message: found.append((invariant, message)),
            cursors=cursors,
            reopens=reopens,
        )
        for invariant, check in self.checks:
            view.invariant = invariant
            check.step(view)
        if MODEL in self.invariants:
            found += [(MODEL, message) for message in self._model(op, result, after)]
        shadow.resync(after)
        self.before = after
        order = {invariant: index for index, invariant in enumerate(self.invariants)}
        return [Violation(invariant, message) for invariant, message in sorted(found, key=lambda f: order[f[0]])]

    def _copy_positions(self, after: Observation) -> dict[int, tuple[int, int]]:
        """Open copies and the position each was dispatched from."""
        origins = self.derivation.origins
        return {copy: origins[copy][0] for copy, _ in after.copies if copy in origins}

    def _model(self, op: Op, result: Any, after: Observation) -> list[str]:
        if not self.states:
            return []
        outcomes = [o for state in self.states for o in self.profile.step(state, op)]
        if not outcomes:
            raise SpecError(f"{op.describe()} is not allowed by the {self.profile.name} model here")

        def seen(outcome: Any) -> Observation:
            return self.project(self.profile.observe(outcome.state))

        matching = frozenset(o.state for o in outcomes if o.result == result and seen(o) == after)
        if matching:
            self.states = matching
            return []
        best = min(outcomes, key=lambda o: (o.result != result, len(describe_difference(seen(o), after))))
        self.states = frozenset()
        lines = []
        if best.result != result:
            lines.append(f"result: expected {best.result!r}, candidate {result!r}")
        lines += describe_difference(seen(best), after)
        alternatives = "" if len(outcomes) == 1 else f" (closest of {len(outcomes)} allowed outcomes)"
        message = f"{type(op).__name__} differs from the {self.profile.name} model{alternatives}: " + "; ".join(lines)
        rule = self.profile.citations.cite(op.kind, differing_aspects(seen(best), after))
        return [message if rule is None else f"{message}\n{rule}"]


def differing_aspects(expected: Observation, actual: Observation) -> list[str]:
    """The parts of two observations that differ and have a rule of their own (the profiles' ``CITATIONS``).

    The operation's own rule explains entries cached or not; only when the same entries are cached does
    a narrower part name a rule: ``requeue`` (an entry stamped, requeued or flagged differently),
    and, with the entries equal, ``copies`` (a count through an open copy: a removal's ``markRead``,
    pip430's ``markEvicted``), ``queue_length``, ``non_evictable_size``, ``size`` and ``statistics``.
    """
    want, got = expected.by_position(), actual.by_position()
    if set(want) != set(got):
        return []
    if want != got:
        moved = any(
            (want[pos].timestamp, want[pos].requeues, want[pos].accessed)
            != (got[pos].timestamp, got[pos].requeues, got[pos].accessed)
            for pos in want
        )
        return ["requeue"] if moved else []
    aspects = ["copies"] if expected.copy_counts() != actual.copy_counts() else []
    parts = ("queue_length", "non_evictable_size", "size")
    aspects += [name for name in parts if getattr(expected, name) != getattr(actual, name)]
    stats = ("evictions", "hit_bytes")
    if [getattr(expected.counters, name) for name in stats] != [getattr(actual.counters, name) for name in stats]:
        aspects.append("statistics")
    return aspects


__all__ = ["Monitor", "Violation"]
