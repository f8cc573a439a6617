"""The managed-ledger layer on the real managed-ledger 4.2.4 classes (``pulsar-managed-ledger``), pinned.

The harness (conformance/adapters/real/README.md, "pulsar-managed-ledger") claims ``managed_ledger``, so
Append, CursorRead and LedgerClose and the layer's four invariants are checked on the released
ManagedLedgerImpl, OpAddEntry and ManagedCursorImpl. One search at a fixed seed pins its verdict: every
failure it shows is one of the two known differences, each checked for what it is.

* L1: ``track_reads`` (``cacheEvictionByExpectedReadCount``) switched while a managed ledger is open. The
  constructor of ManagedLedgerImpl picks the active-cursor container by the flag, so an open ledger keeps
  the mode it was opened in; the spec switches it at once.
* L2: ``cursor_count`` of a managed ledger opened with the flag off: ``ManagedCursorImpl.
  getNumberOfCursorsAtSamePositionOrBefore()`` answers 0 (``isCacheReadEntry()`` is false); the spec counts
  the cursors as in tracking mode.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from ledgerspec.conformance._engine import Report, conform
from ledgerspec.conformance.adapters import load_adapter
from ledgerspec.conformance.adapters._harness import build
from ledgerspec.spec.cache import Configure, CursorCount

ADAPTER = "pulsar-managed-ledger"
SEED = 1
FAILING = {"CACHE-MODEL", "CACHE-CURSOR-COUNT", "CACHE-APPEND-CACHING", "CACHE-BELOW-SLOWEST"}
"""What the quick search at seed 1 finds, every one L1 or L2 (the module docstring)."""
LAYER = {"CACHE-APPEND-CACHING", "CACHE-BACKLOG-CACHING", "CACHE-BELOW-SLOWEST", "CACHE-LEDGER-CLOSE"}


@pytest.fixture(scope="module")
def report() -> Report:
    assert shutil.which("java"), "a JDK 17 is required for the real-code harnesses"
    assert shutil.which("mvn"), "Maven is required for the real-code harnesses"
    build()
    factory = load_adapter(ADAPTER)
    try:
        return conform(factory, profile="pulsar-master", preset="minimal", settings="quick", seed=SEED)
    finally:
        factory.close()


def _ledger_of(op: Any) -> int | None:
    return getattr(op, "ledger", None)


def switched_while_open(steps: list[Any]) -> bool:
    """L1: a Configure changes track_reads after a step already used a ledger (so it was open)."""
    used = False
    for op in steps:
        if isinstance(op, Configure) and op.track_reads is not None and used:
            return True
        used = used or _ledger_of(op) is not None
    return False


def counted_with_tracking_off(steps: list[Any], failing_step: int) -> bool:
    """L2: the failing step is a cursor_count, with track_reads off since before any ledger was used."""
    op = steps[failing_step - 1]
    tracking = True
    for earlier in steps[: failing_step - 1]:
        if _ledger_of(earlier) is not None:
            break
        if isinstance(earlier, Configure) and earlier.track_reads is not None:
            tracking = earlier.track_reads
    return isinstance(op, CursorCount) and not tracking


def test_the_layer_is_claimed_and_checked(report):
    assert "managed_ledger" in report.adapter.capabilities
    assert report.fault is None, report.fault
    for invariant in LAYER:
        assert report.row(invariant).status.name in {"PASS", "FAIL"}, (invariant, report.row(invariant).status)


def test_the_pinned_verdict_and_the_failing_invariants(report):
    assert report.verdict.name == "FAIL"
    assert {row.invariant for row in report.failed()} == FAILING


def test_each_failure_is_a_known_difference(report):
    for row in report.failed():
        case = row.case
        assert case is not None, row.invariant
        assert case.failing_step is not None, row.invariant
        explained = switched_while_open(case.steps[: case.failing_step]) or counted_with_tracking_off(
            case.steps, case.failing_step
        )
        assert explained, (row.invariant, [op.describe() for op in case.steps], case.message)
