"""Differential test: each reference cache against its spec model, on random operation sequences.

For every operation, the spec's allowed outcomes are ``profile.step(state, op)`` over the *set* of
states still consistent with what the reference showed so far (legacy's size eviction may branch when
caches have equal sizes). The states kept are those whose ``(result, observe(state))`` equals the
reference's ``(result, Observation.from_dict(ref.snapshot()))``; the test fails if none is left. An
operation the spec refuses (no outcome) must make the reference raise ``ReferenceCacheError`` and
leave it unchanged, and the other way round.

Operations are drawn one at a time (``st.data()``), so releases and replays use copy ids the
reference actually returned and cursor operations respect which cursors are active. A few deliberately
invalid operations (about 1 in 30) check that both sides refuse the same things. Sizes are tiny
(max_size 200-400, entries 1-120) so that size evictions, requeues, the stash and segment rotations
happen often; each profile's test asserts how often they did (run with
``--hypothesis-show-statistics`` to see the percentages).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from ledgerspec.reference.cache import CACHES, ReferenceCache, ReferenceCacheError
from ledgerspec.spec.cache import (
    CacheConfig,
    Clear,
    Configure,
    CursorAdd,
    CursorCount,
    CursorRemove,
    CursorSeek,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    Observation,
    Op,
    Release,
    ReplayIncrement,
    describe_difference,
    get_profile,
)

EXAMPLES = 150
STEPS = (10, 45)
LEDGERS = (1, 2, 3)
ENTRIES = 8
CURSORS = ("a", "b", "c")

# Weighted operation kinds: a kind listed n times is drawn n times as often.
KINDS = (
    ["insert"] * 12
    + ["get"] * 4
    + ["get_range"] * 2
    + ["release"] * 4
    + ["replay_increment"] * 2
    + ["evict_size"] * 4
    + ["evict_timestamp"] * 4
    + ["invalidate_before", "invalidate_ledger", "configure", "clear"]
    + ["cursor_add"] * 2
    + ["cursor_remove", "cursor_seek", "cursor_count", "invalid"]
)


# --- configuration ------------------------------------------------------------------------------


@st.composite
def configs(draw: Any, name: str) -> dict[str, Any]:
    """Tiny caches: evictions, requeues, stash and rotations within a few dozen operations."""
    segmented = name == "segmented"
    return {
        "max_size": draw(st.integers(200, 400) | st.just(0)) if not segmented else draw(st.integers(200, 400)),
        "watermark": draw(st.sampled_from([0.0, 0.3, 0.5, 0.8, 0.9, 1.0]) | st.floats(0, 1)),
        "trigger": draw(st.sampled_from([0.98, 0.98, 0.98, 0.5, 0.8, 1.0])),
        "ttl": draw(st.integers(5, 20)),
        "ttl_max": draw(st.integers(20, 60) | st.integers(0, 20)),
        "max_requeue": draw(st.integers(0, 3)),
        "extend_ttl": draw(st.booleans()),
        "segment_size_max": draw(st.integers(40, 200)) if segmented else 1024,
    }


# --- the lockstep driver ------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal and of the same type, element by element (so ``True`` is not the copy id ``1``)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def call(ref: ReferenceCache, op: Op) -> Any:
    """Call the reference's method named by the op's kind with the op's fields as keywords."""
    fields = {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}
    return getattr(ref, op.kind)(**fields)


class Lockstep:
    """A reference cache and the set of spec states consistent with it, stepped together."""

    def __init__(self, name: str, config: dict[str, Any]) -> None:
        self.name = name
        self.profile = get_profile(name)
        self.ref = CACHES[name](**config)
        self.states = {self.profile.init(CacheConfig(**config))}
        self.history: list[str] = [f"{type(self.ref).__name__}(**{config!r})"]
        self.features: set[str] = set()

    def step(self, op: Op) -> Any:
        """Apply ``op`` to both sides; return the reference's result, or the error it raised."""
        self.history.append(op.describe())
        outcomes = set().union(*(self.profile.step(state, op) for state in self.states))
        before = self.ref.snapshot()
        try:
            result = call(self.ref, op)
        except ReferenceCacheError as error:
            assert not outcomes, self.report(f"the reference refused it ({error}), the spec allows it")
            assert self.ref.snapshot() == before, self.report("a refused operation changed the reference")
            self.features.add("refused")
            return error
        assert outcomes, self.report(f"the spec refuses it, the reference returned {result!r}")
        observed = Observation.from_dict(self.ref.snapshot())
        kept = {o.state for o in outcomes if same(o.result, result) and self.profile.observe(o.state) == observed}
        if not kept:
            lines = []
            for outcome in outcomes:
                lines.append(f"spec result {outcome.result!r}, reference result {result!r}")
                lines += describe_difference(self.profile.observe(outcome.state), observed)
            raise AssertionError(self.report("no allowed outcome matches the reference:\n  " + "\n  ".join(lines)))
        if len({self.profile.observe(o.state) for o in outcomes}) > 1:
            self.features.add("branching")
        self.states = kept
        return result

    def report(self, problem: str) -> str:
        return f"{self.name}: after\n    " + "\n    ".join(self.history) + f"\n{problem}"


# --- operation generation -----------------------------------------------------------------------


class Driver:
    """Draws valid operations (and a few invalid ones) from what the reference has shown so far."""

    def __init__(self, data: Any, lockstep: Lockstep) -> None:
        self.data = data
        self.lockstep = lockstep
        self.now = 0
        self.copies: list[int] = []
        self.cursors: dict[tuple[int, str], int] = {}

    def draw(self, strategy: Any) -> Any:
        return self.data.draw(strategy)

    def next_now(self) -> int:
        # mostly strictly increasing; an occasional repeat of the same instant tests timestamp ties
        return self.now + self.draw(st.sampled_from([1, 1, 2, 3, 4, 5, 6, 0]))

    def ledger(self) -> int:
        return self.draw(st.sampled_from(LEDGERS))

    def entry(self) -> int:
        return self.draw(st.integers(0, ENTRIES - 1))

    def make(self, kind: str, now: int) -> Op:
        ref = self.lockstep.ref
        if kind == "insert":
            ledger = self.ledger()
            reads = self.draw(st.just(ref.active_cursors(ledger)) | st.integers(0, 3))
            return Insert(now=now, ledger=ledger, entry=self.entry(), size=self.draw(st.integers(1, 120)),
                          expected_reads=reads)
        if kind == "get":
            return Get(now=now, ledger=self.ledger(), entry=self.entry())
        if kind == "get_range":
            first = self.entry()
            return GetRange(now=now, ledger=self.ledger(), first=first, last=first + self.draw(st.integers(0, 3)))
        if kind in {"release", "replay_increment"} and self.copies:
            copy = self.draw(st.sampled_from(self.copies))
            return Release(now=now, copy=copy) if kind == "release" else ReplayIncrement(now=now, copy=copy)
        if kind == "invalidate_before":
            return InvalidateBefore(now=now, ledger=self.ledger(), entry=self.entry())
        if kind == "invalidate_ledger":
            return InvalidateLedger(now=now, ledger=self.ledger())
        if kind == "clear":
            return Clear(now=now)
        if kind == "evict_size":
            return EvictSize(now=now)
        if kind == "evict_timestamp":
            return EvictTimestamp(now=now)
        if kind == "configure":
            return self.configure(now)
        if kind == "cursor_add":
            ledger, cursor = self.ledger(), self.draw(st.sampled_from(CURSORS))
            if (ledger, cursor) not in self.cursors:
                return CursorAdd(now=now, ledger=ledger, cursor=cursor, entry=self.entry())
        if kind in {"cursor_remove", "cursor_seek"} and self.cursors:
            ledger, cursor = self.draw(st.sampled_from(sorted(self.cursors)))
            if kind == "cursor_remove":
                return CursorRemove(now=now, ledger=ledger, cursor=cursor)
            return CursorSeek(now=now, ledger=ledger, cursor=cursor, entry=self.entry())
        if kind == "cursor_count":
            return CursorCount(now=now, ledger=self.ledger(), cursor=self.draw(st.sampled_from(CURSORS)))
        if kind == "invalid":
            return self.invalid(now)
        return EvictTimestamp(now=now)  # the kind needs something that does not exist yet

    def configure(self, now: int) -> Configure:
        changes: dict[str, Any] = {}
        if self.lockstep.name != "segmented" and self.draw(st.booleans()):
            changes["max_size"] = self.draw(st.integers(150, 450))
        if self.draw(st.booleans()):
            changes["watermark"] = self.draw(st.sampled_from([0.0, 0.5, 0.75, 1.0]))
        if self.draw(st.booleans()):
            changes["ttl"] = self.draw(st.integers(3, 25))
        if self.draw(st.booleans()):
            changes["ttl_max"] = self.draw(st.integers(0, 60))
        if self.draw(st.booleans()):
            changes["max_requeue"] = self.draw(st.integers(0, 3))
        if self.draw(st.booleans()):
            changes["extend_ttl"] = self.draw(st.booleans())
        return Configure(now=now, **changes)

    def invalid(self, now: int) -> Op:
        """An operation that breaks a precondition (or, for cursors and copies, may break one)."""
        choice = self.draw(st.integers(0, 8))
        ledger = self.ledger()
        if choice == 0:
            return Insert(now=now, ledger=ledger, entry=0, size=self.draw(st.integers(-2, 0)))
        if choice == 1:
            return Insert(now=now, ledger=ledger, entry=0, size=10, expected_reads=-1)
        if choice == 2:
            return GetRange(now=now, ledger=ledger, first=3, last=self.draw(st.integers(0, 2)))
        if choice == 3:
            return Release(now=now, copy=self.draw(st.integers(0, ref_copies(self.lockstep.ref) + 1)))
        if choice == 4:
            return CursorAdd(now=now, ledger=ledger, cursor=self.draw(st.sampled_from(CURSORS)),
                             entry=self.draw(st.integers(-1, 2)))
        if choice == 5:
            return CursorSeek(now=now, ledger=ledger, cursor=self.draw(st.sampled_from(CURSORS)),
                              entry=self.draw(st.integers(-1, 2)))
        if choice == 6:
            return CursorRemove(now=now, ledger=ledger, cursor=self.draw(st.sampled_from(CURSORS)))
        if choice == 7:
            return Get(now=self.now - self.draw(st.integers(1, 3)), ledger=ledger, entry=0)  # clock goes back
        field = self.draw(st.sampled_from(["max_size", "watermark", "ttl", "max_requeue"]))
        return Configure(now=now, **{field: -1})

    def run(self) -> None:
        for _ in range(self.draw(st.integers(*STEPS))):
            kind = self.draw(st.sampled_from(KINDS))
            op = self.make(kind, self.next_now())
            self.observe_before(op)
            result = self.lockstep.step(op)
            if isinstance(result, ReferenceCacheError):
                continue
            self.now = op.now
            self.track(op, result)

    def observe_before(self, op: Op) -> None:
        """Note which interesting situations this operation meets (for the coverage assertions)."""
        ref, features = self.lockstep.ref, self.lockstep.features
        if isinstance(op, EvictSize) and ref.snapshot()["size"] > ref.config.trigger_size:
            features.add("size over trigger at evict_size")

    def track(self, op: Op, result: Any) -> None:
        """Follow open copies and active cursors, and note what the reference did."""
        results = result if isinstance(result, tuple) else (result,)
        if isinstance(op, Get | GetRange):
            self.copies += [r for r in results if r is not None]
        elif isinstance(op, Release):
            self.copies.remove(op.copy)
        elif isinstance(op, CursorAdd | CursorSeek):
            self.cursors[op.ledger, op.cursor] = op.entry
        elif isinstance(op, CursorRemove):
            del self.cursors[op.ledger, op.cursor]
        counters = self.lockstep.ref.snapshot()["counters"]
        features = self.lockstep.features
        if counters["removed_size"]:
            features.add("removed by size")
        if counters["removed_ttl"]:
            features.add("removed by ttl")
        if counters["removed_invalidate"] or counters["removed_clear"]:
            features.add("removed by force")
        if isinstance(op, ReplayIncrement) and result is False:
            features.add("replay refused (EVICTED)")


def ref_copies(ref: ReferenceCache) -> int:
    return len(ref.snapshot()["copies"])


def profile_features(name: str, ref: ReferenceCache, history_features: set[str]) -> None:
    """Profile-specific situations, read from the reference's own state."""
    if name == "pip430" and ref.stash_size():  # type: ignore[attr-defined]
        history_features.add("stash in use")


class Requeues:
    """pulsar-master: an entry whose timestamp changed while cached was requeued."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int], int] = {}

    def check(self, ref: ReferenceCache, features: set[str]) -> None:
        now = {(e["ledger"], e["entry"]): e["timestamp"] for e in ref.snapshot()["entries"]}
        if any(self.seen.get(position, ts) != ts for position, ts in now.items()):
            features.add("requeue")
        self.seen = now


# --- the tests ----------------------------------------------------------------------------------

MINIMUM_SHARE = {
    # feature: the least fraction of examples that must meet it, per profile
    "pip430": {"size over trigger at evict_size": 0.3, "removed by size": 0.3, "removed by ttl": 0.3,
               "stash in use": 0.2, "removed by force": 0.2, "refused": 0.2},
    "pulsar-master": {"size over trigger at evict_size": 0.3, "removed by size": 0.3, "removed by ttl": 0.3,
                      "requeue": 0.2, "removed by force": 0.2, "refused": 0.2},
    "legacy": {"size over trigger at evict_size": 0.2, "removed by size": 0.2, "removed by ttl": 0.3,
               "removed by force": 0.2, "refused": 0.2},
    "segmented": {"removed by size": 0.3, "refused": 0.2},
}


@pytest.mark.parametrize("name", list(CACHES))
def test_reference_matches_spec(name: str) -> None:
    seen: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def run(data: Any) -> None:
        lockstep = Lockstep(name, data.draw(configs(name)))
        driver = Driver(data, lockstep)
        requeues = Requeues()
        original_track = driver.track

        def track(op: Op, result: Any) -> None:
            original_track(op, result)
            profile_features(name, lockstep.ref, lockstep.features)
            if name == "pulsar-master":
                requeues.check(lockstep.ref, lockstep.features)

        driver.track = track  # type: ignore[method-assign]
        driver.run()
        for feature in sorted(lockstep.features):
            event(feature)
        seen.update(lockstep.features | {"examples"})

    run()
    shares = {feature: seen[feature] / seen["examples"] for feature in MINIMUM_SHARE[name]}
    too_rare = {feature: share for feature, share in shares.items() if share < MINIMUM_SHARE[name][feature]}
    assert not too_rare, f"{name}: the strategy rarely reaches {too_rare} (shares seen: {dict(seen)})"
