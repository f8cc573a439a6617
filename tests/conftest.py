"""Shared fixtures. Where a new test belongs: tests/README.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from ledgerspec.spec.cache import CacheConfig, Observation, Op, get_profile


def run_model(profile: str, config: CacheConfig, ops: Sequence[Op]) -> tuple[list[Any], Observation]:
    """Run a deterministic script of operations through a model; results and the last observation."""
    model = get_profile(profile)
    state = model.init(config)
    results = []
    for op in ops:
        outcomes = model.step(state, op)
        assert len(outcomes) == 1, f"{op.describe()}: expected one outcome, got {len(outcomes)}"
        (outcome,) = outcomes
        results.append(outcome.result)
        state = outcome.state
    return results, model.observe(state)


@pytest.fixture
def run() -> Callable[[str, CacheConfig, Sequence[Op]], tuple[list[Any], Observation]]:
    """The :func:`run_model` helper."""
    return run_model
