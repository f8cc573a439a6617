"""The cache monitor's verdict on one step, as the search, ``replay`` and a case's re-run all take it."""

from __future__ import annotations

from typing import Any

from ledgerspec.conformance._errors import AdapterFault, clip
from ledgerspec.spec.cache import Monitor, Observation, Op, Violation


def judged(monitor: Monitor, op: Op, result: Any, observation: Observation) -> list[Violation]:
    """The monitor's violations; an integer no long holds in the answer is the adapter's fault, not a finding."""
    try:
        return monitor.check(op, result, observation)
    except OverflowError:
        raise AdapterFault(
            f"{op.describe()}: the answer holds an integer outside a 64-bit signed integer: "
            f"{clip(repr(result), 200)}, {clip(repr(observation), 400)}"
        ) from None
