"""The managed-ledger layer (spec/cache/SPEC.md §3.2): appends, cursor reads, closes and invalidation by cursors,
in the model, the reference, the adapter API and the process protocol."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ledgerspec.conformance.cache._case import Case
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache._mutants import factory_for
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import AdapterInfo
from ledgerspec.conformance.cache.adapters._api import NEEDS_BY_OPERATION, result_problem
from ledgerspec.conformance.cache.adapters.process_reference import Session
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter, profile_capabilities
from ledgerspec.conformance.cache.mutants import MUTANTS
from ledgerspec.reference.cache import CACHES, ReferenceCacheError
from ledgerspec.spec.cache import (
    LEDGER_OPERATIONS,
    Append,
    CacheConfig,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRead,
    CursorRemove,
    CursorSeek,
    Get,
    LedgerClose,
    Observation,
    Op,
    Release,
    get_profile,
    op_from_dict,
)

CONFIG = CacheConfig(max_size=1000, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1)
LAYERED = ("pip430", "pulsar-master", "legacy")
COMMON = Path(__file__).parents[2] / "conformance" / "protocol" / "v1" / "common.json"


def run(profile: str, ops: list[Op], config: CacheConfig = CONFIG) -> tuple[list[Any], Observation]:
    """The model's results and final observation (every step must be allowed and deterministic)."""
    model = get_profile(profile)
    state, results = model.init(config), []
    for op in ops:
        (outcome,) = model.step(state, op)
        state = outcome.state
        results.append(outcome.result)
    return results, model.observe(state)


def A(now: int, entry: int, size: int = 10, ledger: int = 1) -> Append:
    return Append(now=now, ledger=ledger, entry=entry, size=size)


def cursor(now: int, name: str, entry: int, ledger: int = 1) -> CursorAdd:
    return CursorAdd(now=now, ledger=ledger, cursor=name, entry=entry)


@pytest.mark.parametrize("profile", ["pip430", "pulsar-master"])
def test_an_append_is_cached_only_with_a_cursor_and_expects_one_read_per_cursor(profile: str) -> None:
    # (1,0) with no cursor: stored only. Cursors c1 at 0, c2 at 5: (1,1) cached with count 2.
    ops = [A(1, 0), cursor(2, "c1", 0), cursor(3, "c2", 5), A(4, 1)]
    results, seen = run(profile, ops)
    assert (results[0], results[3]) == (False, True)
    assert [(e.entry, e.count) for e in seen.entries] == [(1, 2)]


@pytest.mark.parametrize(("profile", "count"), [("pip430", None), ("pulsar-master", None), ("legacy", None)])
def test_with_tracking_off_an_append_has_no_count(profile: str, count: int | None) -> None:
    _, seen = run(profile, [cursor(1, "c1", 0), A(2, 0)], CONFIG.replace(track_reads=False))
    assert [(e.entry, e.count) for e in seen.entries] == [(0, count)]


def test_a_backlog_read_is_cached_with_the_readers_count_and_hands_it_a_shared_copy() -> None:
    # Entries 0-4 appended before any cursor: nothing cached. c1 at 2, c2 at 4: c1 reads 2..3 from storage,
    # its count is 1 (only c1 is at or before 2), so both are cached with count 1, and c1 moves to 4.
    ops = [A(1, 0), A(2, 1), A(3, 2), A(4, 3), A(5, 4), cursor(6, "c1", 2), cursor(7, "c2", 4)]
    ops += [CursorRead(now=8, ledger=1, cursor="c1", last=3), CursorCount(now=9, ledger=1, cursor="c1")]
    results, seen = run("pulsar-master", ops)
    assert results[7] == (0, 1)
    assert results[8] == 2  # c1 and c2 both at 4 now
    assert [(e.entry, e.count) for e in seen.entries] == [(2, 1), (3, 1)]
    assert seen.copies == ((0, 1), (1, 1))
    _, released = run("pulsar-master", [*ops, Release(now=10, copy=0)])
    assert [(e.entry, e.count) for e in released.entries] == [(2, 0), (3, 1)]  # the reader's release is one read
    assert (seen.counters.hits, seen.counters.misses) == (0, 2)


def test_a_backlog_read_hits_what_is_cached_and_reads_the_rest() -> None:
    ops = [cursor(1, "c1", 0), A(2, 0), CursorRemove(now=3, ledger=1, cursor="c1"), A(4, 1), cursor(5, "c2", 0)]
    results, seen = run("pip430", [*ops, CursorRead(now=6, ledger=1, cursor="c2", last=1)])
    assert results[-1] == (0, 1)  # (1,0) a hit (copy 0), (1,1) from storage, cached (copy 1)
    assert [(e.entry, e.count) for e in seen.entries] == [(0, 1), (1, 1)]
    assert (seen.counters.hits, seen.counters.misses) == (1, 1)


@pytest.mark.parametrize("profile", LAYERED)
def test_with_tracking_off_a_backlog_read_is_not_cached_and_invalidates_below_the_slowest(profile: str) -> None:
    # c1 at 0 and c2 at 2 cache appends 0-3 (no counts). c1 reads 0..1 (hits) and moves to 2: the slowest
    # moves from 0 to 2, so (1,0) and (1,1) go; (1,2), (1,3) stay.
    ops = [cursor(1, "c1", 0), cursor(2, "c2", 2), A(3, 0), A(4, 1), A(5, 2), A(6, 3)]
    ops += [CursorRead(now=7, ledger=1, cursor="c1", last=1)]
    results, seen = run(profile, ops, CONFIG.replace(track_reads=False))
    assert len(results[-1]) == 2
    assert [e.entry for e in seen.entries] == [2, 3]


@pytest.mark.parametrize("profile", LAYERED)
def test_legacy_mode_invalidates_only_when_the_slowest_moves_and_clears_when_the_last_cursor_leaves(
    profile: str,
) -> None:
    config = CONFIG.replace(track_reads=False)
    ops = [cursor(1, "c1", 0), cursor(2, "c2", 1), A(3, 0), A(4, 1), A(5, 2)]
    _, seen = run(profile, [*ops, CursorSeek(now=6, ledger=1, cursor="c2", entry=3)], config)
    assert [e.entry for e in seen.entries] == [0, 1, 2]  # c1 at 0 is still the slowest: nothing goes
    ops += [CursorSeek(now=6, ledger=1, cursor="c1", entry=2)]
    _, seen = run(profile, ops, config)
    assert [e.entry for e in seen.entries] == [1, 2]  # slowest now c2 at 1: strictly before 1 goes
    _, seen = run(profile, [*ops, CursorRemove(now=7, ledger=1, cursor="c2")], config)
    assert [e.entry for e in seen.entries] == [2]  # c2 left: the slowest is c1 at 2
    _, seen = run(
        profile, [*ops, CursorRemove(now=7, ledger=1, cursor="c2"), CursorRemove(now=8, ledger=1, cursor="c1")], config
    )
    assert seen.entries == ()  # the last cursor left: clear()


@pytest.mark.parametrize("profile", ["pip430", "pulsar-master"])
def test_with_tracking_on_cursor_moves_remove_nothing(profile: str) -> None:
    ops = [cursor(1, "c1", 0), A(2, 0), A(3, 1), CursorSeek(now=4, ledger=1, cursor="c1", entry=5)]
    _, seen = run(profile, [*ops, CursorRemove(now=5, ledger=1, cursor="c1")])
    assert [e.entry for e in seen.entries] == [0, 1]


@pytest.mark.parametrize("profile", LAYERED)
def test_closing_a_ledger_removes_its_cache_and_cursors_but_not_its_storage(profile: str) -> None:
    ops = [cursor(1, "c1", 0), A(2, 0), A(3, 0, ledger=2), cursor(4, "c9", 0, ledger=2), A(5, 1, ledger=2)]
    ops += [LedgerClose(now=6, ledger=1), CursorCount(now=7, ledger=1, cursor="c1"), cursor(8, "c2", 0)]
    ops += [CursorRead(now=9, ledger=1, cursor="c2", last=0)]
    results, seen = run(profile, ops)
    assert results[6] == 0
    assert (1, 0) not in {e.position for e in seen.entries} or profile != "legacy"
    assert {e.position for e in seen.entries} >= {(2, 1)}


# R1: entries 0 and 1 appended with no cursor, a close, entry 2 appended (a reopen: a new BookKeeper ledger);
# c2 at 0 reads 0 and is at 1; c4 at 0 reads 0..2.
REOPENED = [A(1, 0), A(2, 1), LedgerClose(now=3, ledger=1), A(4, 2), cursor(5, "c2", 0)]
REOPENED += [CursorRead(now=6, ledger=1, cursor="c2", last=0), cursor(7, "c4", 0)]
REOPENED += [CursorRead(now=8, ledger=1, cursor="c4", last=2)]


@pytest.mark.parametrize("profile", ["pip430", "pulsar-master"])
def test_a_read_across_a_reopen_is_one_read_per_bookkeeper_ledger_each_counted_at_its_start(profile: str) -> None:
    # c4's first read, 0..1, counts the cursors at or before 0: c4 only (c2 is at 1). Then c4 is at 2, and its
    # second read, 2, counts c4 and c2: count 2 (Pulsar's OpReadEntry: two reads). One read would count 1.
    results, seen = run(profile, REOPENED)
    assert [(e.entry, e.count) for e in seen.entries] == [(0, 1), (1, 1), (2, 2)]
    assert results[-1] == (1, 2, 3)  # (1,0) a hit (copy 1), then storage reads, a part at a time
    cache = CACHES[profile](**CONFIG.to_dict())
    for op in REOPENED:
        got = getattr(cache, op.kind)(**{f.name: getattr(op, f.name) for f in dataclasses.fields(op)})
    assert got == results[-1]
    assert Observation.from_dict(cache.snapshot()) == seen


@pytest.mark.parametrize(
    ("adapter", "broken"), [("reference", set()), ("mutant", {"CACHE-BACKLOG-CACHING", "CACHE-MODEL"})]
)
def test_a_read_across_a_reopen_counted_once_breaks_backlog_caching(adapter: str, broken: set[str]) -> None:
    """The monitor counts each BookKeeper ledger's read at its start: the reference passes, the mutant does not."""
    mutant = next(m for m in MUTANTS if m.name == "pulsar-master-one-read-across-reopens")
    factory = factory_for(mutant) if adapter == "mutant" else (lambda: ReferenceAdapter("pulsar-master"))
    case = Case(description="R1", profile="pulsar-master", config=CONFIG, steps=REOPENED)
    outcome = replay(case, factory, every_invariant=True)
    assert {violation.invariant for violation in outcome.violations} == broken, outcome.render()


def test_a_read_stopping_before_the_reopen_or_on_a_ledger_never_closed_is_one_read() -> None:
    short = [*REOPENED[:-1], CursorRead(now=8, ledger=1, cursor="c4", last=1)]
    _, seen = run("pulsar-master", short)
    assert [(e.entry, e.count) for e in seen.entries] == [(0, 1), (1, 1)]
    never_closed = [op for op in REOPENED if not isinstance(op, LedgerClose)]
    _, seen = run("pulsar-master", never_closed)
    assert [(e.entry, e.count) for e in seen.entries] == [(0, 1), (1, 1), (2, 1)]  # one read, counted at 0


@pytest.mark.parametrize("profile", LAYERED)
def test_with_tracking_off_a_read_across_a_reopen_invalidates_as_one_read_does(profile: str) -> None:
    # c1 at 0 and c2 at 3 cache appends 0..3 across a reopen at 2 (a close drops cursors: they come back).
    ops = [A(1, 0), A(2, 1), LedgerClose(now=3, ledger=1), cursor(4, "c1", 0), cursor(5, "c2", 3)]
    ops += [A(6, 2), A(7, 3), CursorRead(now=8, ledger=1, cursor="c1", last=2)]
    results, seen = run(profile, ops, CONFIG.replace(track_reads=False))
    assert len(results[-1]) == 3
    assert [e.entry for e in seen.entries] == [3]  # the slowest is c1 at 3 after both parts: (1,2) goes too


@pytest.mark.parametrize(("profile", "count"), [("pip430", 0), ("pulsar-master", 0), ("legacy", 2)])
def test_with_tracking_off_a_cursor_counts_what_its_reads_use(profile: str, count: int) -> None:
    # ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore(): isCacheReadEntry() ? 1 : 0 with the flag off
    # (0: the count CursorRead uses). The legacy profile has no read counts: the container's count stays.
    ops = [cursor(1, "c1", 0), cursor(2, "c2", 3), CursorCount(now=3, ledger=1, cursor="c2")]
    config = CONFIG.replace(track_reads=False)
    results, _ = run(profile, ops, config)
    assert results[-1] == count
    cache = CACHES[profile](**config.to_dict())
    for op in ops:
        got = getattr(cache, op.kind)(**{f.name: getattr(op, f.name) for f in dataclasses.fields(op)})
    assert got == count
    assert run(profile, ops)[0][-1] == 2  # tracking on: the container's count, c1 and c2


@pytest.mark.parametrize(
    "op",
    [A(1, 2), CursorRead(now=2, ledger=1, cursor="nobody", last=0), Append(now=1, ledger=1, entry=0, size=0)],
    ids=["append-out-of-order", "read-without-cursor", "append-size-0"],
)
def test_preconditions_are_not_allowed_by_the_model_and_refused_by_the_reference(op: Op) -> None:
    model = get_profile("pulsar-master")
    state = model.init(CONFIG)
    first = isinstance(op, Append) and op.entry > 0  # out of order: entry 2 after entry 0
    if first:
        (state,) = (o.state for o in model.step(state, A(0, 0)))
    assert model.step(state, op) == frozenset()
    cache = CACHES["pulsar-master"](**CONFIG.to_dict())
    if first:
        cache.append(now=0, ledger=1, entry=0, size=10)
    fields = {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}
    with pytest.raises(ReferenceCacheError):
        getattr(cache, op.kind)(**fields)


def _random_ops(rng: random.Random, steps: int) -> list[Op]:
    ops: list[Op] = []
    appended = {1: 0, 2: 0}
    cursors: dict[tuple[int, str], int] = {}
    for now in range(1, steps + 1):
        ledger = rng.choice([1, 2])
        roll = rng.random()
        mine = [key for key in cursors if key[0] == ledger]
        if roll < 0.35:
            ops.append(A(now, appended[ledger], rng.choice([5, 10, 40]), ledger))
            appended[ledger] += 1
        elif roll < 0.5:
            name = f"c{now}"
            cursors[ledger, name] = rng.randrange(0, 4)
            ops.append(cursor(now, name, cursors[ledger, name], ledger))
        elif roll < 0.7 and mine:
            key = rng.choice(mine)
            last = cursors[key] + rng.randrange(0, 3)
            if cursors[key] < appended[ledger] and last < appended[ledger]:
                ops.append(CursorRead(now=now, ledger=ledger, cursor=key[1], last=last))
                cursors[key] = last + 1
        elif roll < 0.8 and mine:
            key = rng.choice(mine)
            cursors[key] = rng.randrange(0, 6)
            ops.append(CursorSeek(now=now, ledger=ledger, cursor=key[1], entry=cursors[key]))
        elif roll < 0.87 and mine:
            key = rng.choice(mine)
            del cursors[key]
            ops.append(CursorRemove(now=now, ledger=ledger, cursor=key[1]))
        elif roll < 0.92:
            ops.append(LedgerClose(now=now, ledger=ledger))
            cursors = {key: pos for key, pos in cursors.items() if key[0] != ledger}
        elif roll < 0.96:
            ops.append(Configure(now=now, track_reads=rng.random() < 0.5))
        else:
            ops.append(Get(now=now, ledger=ledger, entry=rng.randrange(0, 4)))
    return ops


@pytest.mark.parametrize("profile", LAYERED)
@pytest.mark.parametrize("seed", range(6))
def test_the_reference_agrees_with_the_model_step_by_step(profile: str, seed: int) -> None:
    ops = _random_ops(random.Random(seed), 80)
    model = get_profile(profile)
    state = model.init(CONFIG)
    cache = CACHES[profile](**CONFIG.to_dict())
    for op in ops:
        (outcome,) = model.step(state, op)
        state = outcome.state
        got = getattr(cache, op.kind)(**{f.name: getattr(op, f.name) for f in dataclasses.fields(op)})
        assert got == outcome.result, op.describe()
        assert Observation.from_dict(cache.snapshot()) == model.observe(state), op.describe()


SAMPLES: list[Op] = [A(1, 0), CursorRead(now=2, ledger=1, cursor="c1", last=3), LedgerClose(now=3, ledger=1)]


@pytest.mark.parametrize("op", SAMPLES, ids=lambda op: op.kind)
def test_operation_round_trips_through_plain_data_and_the_protocol_schema(op: Op) -> None:
    assert op_from_dict(op.to_dict()) == op
    schema = json.loads(COMMON.read_text())
    jsonschema.validate(op.to_dict(), {"$ref": "#/$defs/op", "$defs": schema["$defs"]})
    assert NEEDS_BY_OPERATION[type(op)] == "managed_ledger"


def test_results_are_typed_as_the_spec_says() -> None:
    assert result_problem(SAMPLES[0], True) is None
    assert result_problem(SAMPLES[0], None) is not None
    assert result_problem(SAMPLES[1], [0, None]) is None
    assert result_problem(SAMPLES[1], [True]) is not None


def test_every_profile_with_a_managed_ledger_has_the_layer_and_segmented_does_not() -> None:
    for profile in LAYERED:
        assert all(get_profile(profile).knows(op) for op in LEDGER_OPERATIONS)
        assert "managed_ledger" in profile_capabilities(profile)
    assert not any(get_profile("segmented").knows(op) for op in LEDGER_OPERATIONS)
    assert "managed_ledger" not in profile_capabilities("segmented")


def test_the_reference_process_speaks_the_layer() -> None:
    session = Session("pip430", deltas=True)
    session.handle({"cmd": "configure", "config": CONFIG.to_dict()})
    ops = [A(1, 0), A(2, 1), cursor(3, "c1", 0), CursorRead(now=4, ledger=1, cursor="c1", last=1)]
    reply = session.handle({"cmd": "apply", "ops": [op.to_dict() for op in ops], "observe": True})
    assert reply["results"] == [False, False, None, [0, 1]]
    assert [(row["entry"], row["count"]) for row in reply["observation"]["entries"]] == [(0, 1), (1, 1)]
    reply = session.handle({"cmd": "apply", "ops": [LedgerClose(now=5, ledger=1).to_dict()], "observe": "delta"})
    assert reply["results"] == [None]


class Recording(ReferenceAdapter):
    """The reference, recording the kinds it is sent; optionally without ``managed_ledger``."""

    def __init__(self, profile: str, *, layer: bool) -> None:
        super().__init__(profile)
        drop = frozenset() if layer else frozenset({"managed_ledger"})
        self.info = AdapterInfo(**{**self.info.__dict__, "capabilities": self.info.capabilities - drop})
        self.sent: set[str] = set()

    def apply(self, op: Op) -> Any:
        self.sent.add(op.kind)
        return super().apply(op)


@pytest.mark.parametrize("layer", [True, False])
def test_the_layer_is_sent_and_checked_only_to_adapters_that_claim_it(layer: bool) -> None:
    seen: set[str] = set()

    def factory() -> Recording:
        adapter = Recording("pulsar-master", layer=layer)
        adapter.sent = seen
        return adapter

    # Seed 1: at seed 3 the 40 examples sent no cursor read once each drew a ledger base (seeds 1-2, 4-6 do).
    report = conform(factory, profile="pulsar-master", settings="quick", examples=40, seed=1)
    assert report.verdict == "PASS", report
    kinds = {op.kind for op in LEDGER_OPERATIONS}
    assert (seen & kinds == kinds) if layer else not (seen & kinds)
    statuses = {row.invariant: row.status.name for row in report.rows}
    for invariant in ("CACHE-APPEND-CACHING", "CACHE-BACKLOG-CACHING", "CACHE-BELOW-SLOWEST", "CACHE-LEDGER-CLOSE"):
        assert statuses[invariant] == ("PASS" if layer else "NOT_CHECKABLE"), invariant
