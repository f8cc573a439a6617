"""An adapter that answers the same steps differently is named at the step, in ledgerspec's words.

Hypothesis replays steps (to shrink, to confirm): a real harness that settled a step by timing answered a
replay otherwise, and the run ended in Hypothesis's own error ("Inconsistent data generation! ... Is your
data generation depending on external state?") or in a fault that did not say which step. The journal
(``conformance._search.Journal``) keeps every answer by the steps that led to it and names the step with
both answers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from ledgerspec.conformance._search import Faulted, Journal
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache.adapters.reference import pulsar_master
from ledgerspec.conformance.lockstep._engine import conform as lockstep_conform
from ledgerspec.conformance.systems import SYSTEMS

HYPOTHESIS_WORDS = ("Inconsistent", "data generation", "Flaky", "hypothesis")


class Drifts:
    """One candidate per example, sharing a count of them: every other one answers differently (late callbacks)."""

    def __init__(self, make: Any) -> None:
        self.make, self.examples = make, 0

    def __call__(self) -> Any:
        self.examples += 1
        return _Drifting(self, self.make())


class _Drifting:
    def __init__(self, owner: Drifts, inner: Any) -> None:
        self.owner, self.inner = owner, inner
        self.info = getattr(inner, "info", None)

    def start(self, config: Any) -> None:
        self.inner.start(config)

    def apply(self, op: Any) -> Any:
        result = self.inner.apply(op)
        if self.info is not None or self.owner.examples % 2:  # a cache drifts in what it shows (observe)
            return result
        return ("late", result)

    def observe(self) -> Any:
        seen = self.inner.observe()
        return seen if self.owner.examples % 2 else dataclasses.replace(seen, size=seen.size + 1)

    def stop(self) -> None:
        self.inner.stop()


def _assert_named(fault: str, drift: str) -> None:
    assert "answered differently: step " in fault, fault
    assert "and earlier in this search" in fault, fault
    assert drift in fault, "both answers are shown"
    for word in HYPOTHESIS_WORDS:
        assert word not in fault, fault


def test_a_cache_adapter_drifting_between_examples_is_named_at_the_step():
    report = conform(Drifts(pulsar_master), settings="quick", seed=1)
    assert report.verdict.value == "ERROR"
    assert not report.failed(), "no invariant is reported as broken by a nondeterministic adapter"
    _assert_named(str(report.fault), "size=")


@pytest.mark.parametrize("system", ["cursor-state", "txlog-writer"])
def test_a_lockstep_candidate_drifting_between_examples_is_named_at_the_step(system):
    chosen = SYSTEMS[system]
    profile = chosen.profiles[-1]
    drifting = Drifts(chosen.references()[f"reference-{profile}"][1])
    report = lockstep_conform(chosen, drifting, profile, settings_name="quick", seed=1)
    assert report.verdict.value == "ERROR"
    assert report.violation is None
    _assert_named(report.fault, "'late'")
    assert report.fault_steps, "the steps that led to it are shown"


def test_the_journal_keeps_answers_by_configuration_and_steps():
    journal = Journal("candidate")
    a, b = journal.root({"ttl": 1}), journal.root({"ttl": 2})
    assert a != b
    node = journal.note(a, "op1", 1, [])
    assert journal.note(a, "op1", 1, []) == node
    assert journal.note(b, "op1", 2, []) != node, "another configuration may answer otherwise"
    with pytest.raises(Faulted) as raised:
        journal.note(a, "op1", 3, [])
    assert "step 1 ('op1') answered 3, and earlier in this search 1" in str(raised.value)
    assert journal.note(a, ["unhashable"], 1, []) == a, "an unhashable step is not journaled"
