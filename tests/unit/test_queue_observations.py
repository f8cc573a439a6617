"""The removal queue's observations (issue 16, item 3): queue_length with tombstones, requeues, accessed,
non_evictable_size; hand-traced in the spec, the same in the reference, and never PASS unobserved."""

from __future__ import annotations

import dataclasses

import pytest
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache.adapters import AdapterInfo
from ledgerspec.conformance.cache.adapters._api import mask
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter, profile_capabilities
from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import (
    CacheConfig,
    Clear,
    EvictBytes,
    EvictSize,
    EvictTimestamp,
    Get,
    Insert,
    InvalidateBefore,
    Observation,
    Op,
    Release,
    RemoveRange,
    get_profile,
)

# max 100 -> trigger 98, watermark 0.5 -> 50; ttl 10; max_requeue 1; extend_ttl on.
CONFIG = CacheConfig(max_size=100, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1, extend_ttl=True)


def I(now: int, entry: int, size: int, reads: int | None = 0) -> Insert:  # noqa: E743 - legible scenarios
    return Insert(now=now, ledger=1, entry=entry, size=size, expected_reads=reads)


def spec_run(profile: str, ops: list[Op]) -> list[Observation]:
    model = get_profile(profile)
    state, seen = model.init(CONFIG), []
    for op in ops:
        (outcome,) = model.step(state, op)
        state = outcome.state
        seen.append(model.observe(state))
    return seen


def reference_run(profile: str, ops: list[Op]) -> list[Observation]:
    cache = CACHES[profile](**CONFIG.to_dict())
    seen = []
    for op in ops:
        getattr(cache, op.kind)(**{f.name: getattr(op, f.name) for f in dataclasses.fields(op)})
        seen.append(Observation.from_dict(cache.snapshot()))
    return seen


def both(profile: str, ops: list[Op]) -> list[Observation]:
    spec = spec_run(profile, ops)
    assert reference_run(profile, ops) == spec
    return spec


def test_tombstones_count_until_a_pass_meets_them():
    # A, B, C of 10 bytes; invalidate before 2 -> A and B tombstones: 1 entry, length 3.
    # A size pass of 10 bytes (EvictBytes) drops both tombstones at the head (MISSING), removes C: 0.
    seen = both("pulsar-master", [I(1, 0, 10), I(2, 1, 10), I(3, 2, 10), InvalidateBefore(now=4, ledger=1, entry=2)])
    assert (len(seen[-1].entries), seen[-1].queue_length) == (1, 3)
    ops = [I(1, 0, 10), I(2, 1, 10), I(3, 2, 10), InvalidateBefore(now=4, ledger=1, entry=2)]
    after = both("pulsar-master", [*ops, EvictBytes(now=5, bytes=10)])[-1]
    assert (len(after.entries), after.queue_length) == (0, 0)


def test_a_size_pass_that_has_freed_enough_still_drops_the_tombstones_before_its_stop():
    # A, B, C, D of 10; remove_range(1, 1, inclusive) leaves B's tombstone: queue A ~ C D, length 4.
    # EvictBytes(10): A removed (10 >= 10 freed); the head is then B's tombstone: MISSING comes before
    # the STOP test (managed-ledger 4.2.4 evaluateEvictionPredicate), so it is dropped; C stops: length 2.
    ops: list[Op] = [I(1, 0, 10), I(2, 1, 10), I(3, 2, 10), I(4, 3, 10)]
    ops += [RemoveRange(now=5, ledger=1, first=1, last=1, inclusive=True), EvictBytes(now=6, bytes=10)]
    seen = both("pulsar-master", ops)
    assert seen[-2].queue_length == 4
    assert ([e.entry for e in seen[-1].entries], seen[-1].queue_length) == ([2, 3], 2)


def test_clear_leaves_a_tombstone_per_entry():
    # four entries cleared: nothing cached, four stale wrappers queued until a pass drains them.
    seen = both("pulsar-master", [I(1, 0, 10), I(2, 1, 10), I(3, 2, 10), I(4, 3, 10), Clear(now=5)])[-1]
    assert (seen.entries, seen.queue_length) == ((), 4)
    assert both("pulsar-master", [I(1, 0, 10), Clear(now=2), EvictTimestamp(now=3)])[-1].queue_length == 0


def test_requeues_and_accessed_follow_mark_requeued():
    # A (count 1) and B read at 2. TTL pass at 20 (threshold 10): A requeued (expected reads, requeues 1),
    # B requeued (accessed, extend_ttl), accessed cleared, both stamped 20. Pass at 40: A has used its
    # one requeue and goes; B, not read again, goes.
    ops = [I(1, 0, 5, reads=1), I(2, 1, 5), Get(now=3, ledger=1, entry=1), EvictTimestamp(now=20)]
    seen = both("pulsar-master", ops)
    assert not seen[1].entry(1, 1).accessed
    assert seen[2].entry(1, 1).accessed
    a, b = seen[3].entry(1, 0), seen[3].entry(1, 1)
    assert (a.requeues, a.accessed, a.timestamp) == (1, False, 20)
    assert (b.requeues, b.accessed, b.timestamp) == (1, False, 20)
    assert both("pulsar-master", [*ops, EvictTimestamp(now=40)])[-1].entries == ()


def test_non_evictable_size_follows_get_non_evictable_size():
    # A (10, inserted with 0 expected reads: pulsar-master gives it no handler), B (20, count 1), C (40,
    # count 1, read and released: 0). pulsar-master counts A (no handler, E5) and B: 30; pip430's
    # !canEvict() counts B alone (A has a handler at 0 there): 20.
    ops: list[Op] = [I(1, 0, 10), I(2, 1, 20, reads=1), I(3, 2, 40, reads=1), Get(now=4, ledger=1, entry=2)]
    ops.append(Release(now=5, copy=0))
    assert both("pulsar-master", ops)[-1].non_evictable_size == 30
    assert both("pip430", ops)[-1].non_evictable_size == 20


def test_profiles_without_a_queue_show_nothing_of_it():
    for profile in ("legacy", "segmented"):
        seen = both(profile, [I(1, 0, 10)])[-1]
        assert (seen.queue_length, seen.non_evictable_size, seen.entries[0].requeues) == (None, None, None)
    assert {"observe_queue_length", "observe_requeues", "observe_accessed"} & profile_capabilities("pip430") == set()


def test_mask_blanks_each_field_without_its_capability():
    seen = both("pulsar-master", [I(1, 0, 10), Get(now=2, ledger=1, entry=0), EvictSize(now=3)])[-1]
    masked = mask(seen, profile_capabilities("pulsar-master") - {"observe_requeues", "observe_queue_length"})
    assert masked.queue_length is None
    assert masked.non_evictable_size == seen.non_evictable_size
    assert [(e.requeues, e.accessed) for e in masked.entries] == [(None, True)]


def test_observation_round_trips_and_names_a_bad_field():
    seen = both("pulsar-master", [I(1, 0, 10), Get(now=2, ledger=1, entry=0)])[-1]
    assert Observation.from_dict(seen.to_dict()) == seen
    data = seen.to_dict()
    data["entries"][0]["accessed"] = 1
    with pytest.raises(TypeError, match=r"entries\[0\]\.accessed"):
        Observation.from_dict(data)
    data = seen.to_dict() | {"queue_length": -1}
    with pytest.raises(TypeError, match="queue_length"):
        Observation.from_dict(data)


class Claiming(ReferenceAdapter):
    """The reference, claiming fewer capabilities."""

    def __init__(self, profile: str, drop: frozenset[str]) -> None:
        super().__init__(profile)
        self.info = AdapterInfo(**{**self.info.__dict__, "capabilities": self.info.capabilities - drop})


@pytest.mark.parametrize(
    ("invariant", "capability"),
    [
        ("CACHE-QUEUE-ACCOUNTING", "observe_queue_length"),
        ("CACHE-QUEUE-ACCOUNTING", "observe_requeues"),
        ("CACHE-QUEUE-ACCOUNTING", "observe_accessed"),
        ("CACHE-NON-EVICTABLE-SIZE", "observe_non_evictable_size"),
    ],
)
def test_an_invariant_needing_an_unshown_observation_is_not_checked(invariant: str, capability: str):
    report = conform(
        lambda: Claiming("pulsar-master", frozenset({capability})), profile="pulsar-master", examples=10, seed=3
    )
    row = next(row for row in report.rows if row.invariant == invariant)
    assert row.status.name == "NOT_CHECKABLE", row.status
    full = conform(lambda: Claiming("pulsar-master", frozenset()), profile="pulsar-master", examples=10, seed=3)
    assert next(row for row in full.rows if row.invariant == invariant).status.name == "PASS"
