"""CACHE-LEGACY-SIZE-POLICY beyond its catalogue case: when the legacy size eviction runs (an insert
scheduled it) and how much it frees (the captured size's shares), on the legacy model and on models
with one rule broken, and every tie order the model allows passes.

max 100, trigger 98, watermark 50 throughout.
"""

from __future__ import annotations

import dataclasses

import pytest
from ledgerspec.spec.cache import CacheConfig, EvictSize, Insert, InvalidateBefore, Monitor, Op, get_profile, legacy
from ledgerspec.spec.cache._base import deterministic

CONFIG = CacheConfig(max_size=100, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1, extend_ttl=True)
POLICY = "CACHE-LEGACY-SIZE-POLICY"


def _insert(now: int, ledger: int, entry: int, size: int) -> Insert:
    return Insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=0)


def _tens(ledger: int, count: int, now: int = 1) -> list[Op]:
    """``count`` entries of 10 bytes in one ledger."""
    return [_insert(now, ledger, entry, 10) for entry in range(count)]


def _histories(ops: list[Op]) -> list[list[tuple[Op, object, object]]]:
    """Every history the legacy model allows for ``ops`` (equal-sized caches rank in any order), one
    nanosecond per step."""
    ops = [dataclasses.replace(op, now=step) for step, op in enumerate(ops, start=1)]
    model = get_profile("legacy")
    runs: list[tuple[object, list[tuple[Op, object, object]]]] = [(model.init(CONFIG), [])]
    for op in ops:
        runs = [
            (outcome.state, [*history, (op, outcome.result, model.observe(outcome.state))])
            for state, history in runs
            for outcome in model.step(state, op)
        ]
    return [history for _, history in runs]


def _violations(history: list[tuple[Op, object, object]]) -> list[str]:
    monitor = Monitor("legacy", CONFIG, invariants=[POLICY])
    return [v.message for op, result, after in history for v in monitor.check(op, result, after)]


def _trigger_inclusive(work, op):
    """Schedules at a size equal to the trigger, not only above it."""
    if not work.disabled and work.pending is None and work.size() == work.config.trigger_size:
        work.pending = work.size()
    return legacy._insert(work, op)


def _watermark_from_trigger(work, op):
    """Frees down to the trigger, not the watermark."""
    if work.pending is not None:
        work.pending -= work.config.trigger_size - work.config.watermark_size
    return legacy._evict_size(work, op)


def _current_size(work, op):
    """Frees from the size at the pass, not the size the scheduling insert captured."""
    if work.pending is not None:
        work.pending = work.size()
    return legacy._evict_size(work, op)


# At 98 (the trigger), an insert schedules nothing: the size pass frees nothing.
AT_TRIGGER = [*_tens(1, 6), _insert(2, 2, 0, 38), _insert(3, 1, 6, 1), EvictSize(now=4)]
# 99 > 98: scheduled with 99, to free 49; ledger 1 (60) is selected alone and frees 5 entries (50 >= 49).
SCHEDULED = [*_tens(1, 6), _insert(2, 2, 0, 39), _insert(3, 2, 1, 1), EvictSize(now=4)]
# As SCHEDULED, but ledger 2 is invalidated before the pass: still 49 to free, from the 99 captured.
SHRUNK = [*SCHEDULED[:-1], InvalidateBefore(now=4, ledger=2, entry=2), EvictSize(now=5)]

CASES = [
    pytest.param(Insert, deterministic(_trigger_inclusive), AT_TRIGGER, id="trigger"),
    pytest.param(EvictSize, _watermark_from_trigger, SCHEDULED, id="watermark"),
    pytest.param(EvictSize, _current_size, SHRUNK, id="captured"),
]
"""(operation, its broken rule, a scenario the rule changes the outcome of)."""


@pytest.mark.parametrize(("op", "broken", "ops"), CASES)
def test_the_policy_holds_on_the_model_and_fails_when_one_rule_breaks(op, broken, ops, monkeypatch):
    (history,) = _histories(ops)
    assert _violations(history) == []
    with monkeypatch.context() as patch:
        patch.setitem(legacy.RULES, op, broken)
        (broken_history,) = _histories(ops)
    assert _violations(broken_history), f"{POLICY} did not notice {broken.__name__}"


def test_a_pass_nothing_scheduled_frees_nothing():
    (history,) = _histories(AT_TRIGGER)
    assert history[-1][2].size == 99  # the pass ran as a no-op: nothing was scheduled at 98


def test_every_order_of_equal_caches_passes():
    # 30, 30, 30 and 10 bytes (99, scheduled by the insert after): 2 of the 3 equal caches are selected
    # (running totals 0, 30 < 50); each frees int(49 * 30 / 60) = 24, that is 3 entries.
    ops = [*_tens(1, 3), *_tens(2, 3), *_tens(3, 3), _insert(1, 4, 0, 9), _insert(2, 4, 1, 1), EvictSize(now=3)]
    histories = _histories(ops)
    assert len(histories) == 3
    for history in histories:
        assert _violations(history) == []
        assert history[-1][2].size == 100 - 30 - 30


def test_more_equal_caches_freed_than_selected_is_a_violation(monkeypatch):
    ops = [*_tens(1, 3), *_tens(2, 3), *_tens(3, 3), _insert(1, 4, 0, 9), _insert(2, 4, 1, 1), EvictSize(now=3)]

    def every_equal_cache(work, op):
        work.pending = None
        for ledger in (1, 2, 3):
            legacy._evict_lowest(work, ledger, 24)

    with monkeypatch.context() as patch:
        patch.setitem(legacy.RULES, EvictSize, deterministic(every_equal_cache))
        (history,) = _histories(ops)
    assert any("more caches of that size" in message for message in _violations(history))
