"""Entries created without a read-count handler (``Insert(expected_reads=None)``); the invariants
that judge them fail on mutants in tests/unit/test_invariants.py (``NO_HANDLER_CASES``).

pip430 gives every entry a handler unless it is created without one; then the entry is cached with
no count, is always evictable, a duplicate of it takes the normal path (nothing merged) and nothing
reaches it through its copies. pulsar-master reads None as 0 (``maybeCreate``: no handler either).
"""

from __future__ import annotations

import pytest
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.spec.cache import (
    CacheConfig,
    EvictSize,
    Get,
    Insert,
    InvalidateLedger,
    Release,
    ReplayIncrement,
    get_profile,
    op_from_dict,
)

SMALL = CacheConfig(max_size=100, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1, extend_ttl=True)


def run_candidate(profile: str, ops: list, config: CacheConfig) -> list[tuple[object, object, object]]:
    """The (op, result, observation) history of the profile's model."""
    model = get_profile(profile)
    state, history = model.init(config), []
    for op in ops:
        (outcome,) = model.step(state, op)
        state = outcome.state
        history.append((op, outcome.result, model.observe(state)))
    return history


def bare(now: int, ledger: int, entry: int, size: int) -> Insert:
    return Insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=None)


def last(profile: str, ops: list) -> tuple[object, object]:
    _, result, observation = run_candidate(profile, ops, SMALL)[-1]
    return result, observation


def test_pip430_caches_it_without_a_count():
    result, seen = last("pip430", [bare(1, 1, 0, 5)])
    assert result is True
    assert [(e.position, e.count) for e in seen.entries] == [((1, 0), None)]


def test_pip430_size_pass_evicts_it_while_a_protected_entry_stays():
    # max 100: trigger 98, watermark 50; A (60, 1 read) is protected, B (60, no handler) is not
    ops = [Insert(now=1, ledger=1, entry=0, size=60, expected_reads=1), bare(2, 1, 1, 60), EvictSize(now=3)]
    _, seen = last("pip430", ops)
    assert [e.position for e in seen.entries] == [(1, 0)]


@pytest.mark.parametrize(("first", "second"), [(None, 2), (2, None)])
def test_pip430_duplicate_with_or_onto_no_handler_merges_nothing(first, second):
    ops = [
        Insert(now=1, ledger=1, entry=0, size=5, expected_reads=first),
        Insert(now=2, ledger=1, entry=0, size=5, expected_reads=second),
    ]
    result, seen = last("pip430", ops)
    assert result is False
    assert seen.entries[0].count == first


def test_pip430_copies_without_a_handler_count_nothing():
    ops = [bare(1, 1, 0, 5), Get(now=2, ledger=1, entry=0), Get(now=3, ledger=1, entry=0)]
    history = run_candidate("pip430", [*ops, ReplayIncrement(now=4, copy=0), Release(now=5, copy=1)], SMALL)
    assert history[3][1] is False  # nothing to increment
    assert history[-1][2].copies == ((0, None),)
    _, seen = last("pip430", [*ops, InvalidateLedger(now=4, ledger=1)])  # no handler to mark EVICTED
    assert seen.copies == ((0, None), (1, None))


def test_pulsar_master_reads_none_as_zero():
    with_none, with_zero = (
        last("pulsar-master", [Insert(now=1, ledger=1, entry=0, size=5, expected_reads=reads)]) for reads in (None, 0)
    )
    assert with_none == with_zero


def test_the_wire_form_and_the_reference_adapter_take_null():
    op = op_from_dict({"op": "insert", "now": 1, "ledger": 1, "entry": 0, "size": 5, "expected_reads": None})
    assert op == bare(1, 1, 0, 5)
    adapter = ReferenceAdapter("pip430")
    adapter.start(SMALL)
    assert adapter.apply(op) is True
    assert adapter.observe().entries[0].count is None
