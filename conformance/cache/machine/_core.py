"""The lockstep state machine: Hypothesis drives a candidate and the spec's monitor together.

Each rule is a broker operation. After every step the candidate's result and observation go to the
monitor, which checks them against the model (``CACHE-MODEL``) and against every other active
invariant; a violation raises :class:`Broken`, carrying the history, and Hypothesis shrinks it.

The clock strictly increases: every step is one tick after the previous one, and the ``advance``
rule moves it further, by steps relative to the TTLs in force so expiry boundaries are reached.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, initialize, multiple, precondition, rule
from ledgerspec.conformance._search import Journal, guard
from ledgerspec.conformance.cache._judged import judged
from ledgerspec.conformance.cache._presets import Preset
from ledgerspec.conformance.cache.adapters import AdapterFactory, AdapterInfo, mask
from ledgerspec.conformance.cache.machine._cursors import cursor_rules
from ledgerspec.conformance.cache.machine._fill import fill_rules
from ledgerspec.conformance.cache.machine._ledger import LAYER, ledger_rules
from ledgerspec.conformance.cache.machine._marks import (
    AFTER_REMOVAL,
    CUTOFFS,
    TARGETED,
    cutoffs,
    entry_base,
    entry_ids,
    ledger_base,
    ledger_ids,
)
from ledgerspec.conformance.cache.machine._settings import settings_rules
from ledgerspec.conformance.cache.machine._ttl import ttl_rules
from ledgerspec.spec.cache import (
    Append,
    CacheConfig,
    Clear,
    Configure,
    EvictBefore,
    EvictBytes,
    EvictSize,
    EvictTimestamp,
    Get,
    GetRange,
    Insert,
    InvalidateBefore,
    InvalidateLedger,
    Monitor,
    Observation,
    Op,
    Release,
    RemoveRange,
    ReplayIncrement,
    Violation,
    active_cursors,
    cursors_at_or_before,
    get_profile,
)


@dataclass(frozen=True)
class Step:
    """One executed step: the operation, the candidate's result and its observation afterwards."""

    op: Op
    result: Any
    observation: Observation


class Broken(AssertionError):  # noqa: N818 - Hypothesis shrinks on assertion failures; the name reads as a verdict
    """A candidate broke invariants at the last step of ``history``."""

    def __init__(self, violations: list[Violation], history: list[Step]) -> None:
        super().__init__("; ".join(f"{v.invariant}: {v.message}" for v in violations))
        self.violations = violations
        self.history = history


@dataclass
class Run:
    """What one search needs, and the counters it updates."""

    factory: AdapterFactory
    info: AdapterInfo
    profile: str
    preset: Preset
    invariants: list[str]
    exclude: frozenset[str] = frozenset()
    """Rules not to use (to isolate one behaviour, e.g. only size eviction); ``configure:FIELD``: the
    configure rule leaves that field alone (a named configuration pins it)."""
    examples: int = 0
    steps: int = 0
    on_example: Callable[[Run], None] = field(default=lambda _run: None)
    journal: Journal = field(default_factory=lambda: Journal("the adapter"))
    """Every answer by the steps that led to it: the same steps answered differently is nondeterminism."""

    def __post_init__(self) -> None:
        self.journal.adapter = self.info.name

    def sends(self, op: type[Op]) -> bool:
        """Whether the search may send ``op``: the profile has it, the adapter claims it, no rule excludes it."""
        return get_profile(self.profile).knows(op) and self.info.supports_kind(op) and op.kind not in self.exclude


def make_machine(run: Run) -> type[RuleBasedStateMachine]:  # noqa: C901 - a Hypothesis state machine: each rule is a nested function counted here
    """A state machine class bound to one adapter, profile, preset and set of invariants."""
    preset, info = run.preset, run.info
    observed = info.observed_in(run.profile)
    ledgers, entries = ledger_ids(preset), entry_ids(preset)
    sizes = st.sampled_from(preset.sizes)
    reads = st.integers(0, 3)
    # pip430 gives every entry a handler unless it is created without one (None): sometimes it is
    inserted_reads = st.sampled_from([0, 1, 2, 3, None]) if run.profile == "pip430" else reads
    can = info.capabilities.__contains__

    def allowed(name: str) -> Callable[[Any], bool]:
        return lambda _machine: name not in run.exclude

    def offered(op: type[Op]) -> Callable[[Any], bool]:
        """A precondition: ``run.sends(op)``."""
        sendable = run.sends(op)
        return lambda _machine: sendable

    legacy = run.profile == "legacy"
    pinned = "configure:track_reads" in run.exclude
    switch = can("configure") and can("switch_track_reads") and not legacy and not pinned
    layer = [ledger_rules(ledgers, sizes, switch=switch, legacy=legacy)]
    mixins = layer if can(LAYER) and get_profile(run.profile).knows(Append) and LAYER not in run.exclude else []
    mixins += [
        settings_rules(run),
        ttl_rules(run),
        fill_rules(run, ledgers, sizes),
        cursor_rules(run, ledgers, entries),
    ]

    class LockstepMachine(*mixins, RuleBasedStateMachine):  # type: ignore[misc]  # the layer's rule, if claimed
        """Drives the candidate and checks every step."""

        positions = Bundle("positions")
        copies = Bundle("copies")
        cursors = Bundle("cursors")

        def __init__(self) -> None:
            super().__init__()
            run.examples += 1
            run.on_example(run)
            self.config: CacheConfig = preset.config
            self.adapter = guard(run.factory, (), stage="start")  # a restart after a crash may fault
            self.history: list[Step] = []
            self.now = 0
            self.tail: dict[int, int] = dict.fromkeys(preset.ledgers, preset.entries)
            """Where each ledger's tailing writes go next: past the drawn entry ids (``id_bases`` moves them)."""
            self.cursor_positions: dict[tuple[int, str], int] = {}
            self.held: dict[int, tuple[int, int]] = {}
            """Open copies and the positions they were read from (``invalidate`` aims at them)."""
            self.serial = 0
            self.monitor = Monitor(
                run.profile,
                self.config,
                invariants=run.invariants,
                project=lambda observation: mask(observation, observed),
            )
            self.node = run.journal.root(self.config)
            guard(lambda: self.adapter.start(self.config), self.history, stage="start")

        def teardown(self) -> None:
            guard(self.adapter.stop, self.history, stage="stop")

        @initialize(first=entry_base(), offset=ledger_base())
        def id_bases(self, first: int, offset: int) -> None:
            """Entry ids from ``first``, ledger ids offset by ``offset`` (``ENTRY_BASES``, ``LEDGER_BASES``).

            Tailing writes go on past the drawn entry ids.
            """
            self.tail = {offset + ledger: first + preset.entries for ledger in preset.ledgers}

        # --- plumbing ---------------------------------------------------------------------------

        def step(self, op: Op) -> Any:
            run.steps += 1
            result = guard(lambda: self.adapter.apply(op), self.history, op)
            observation = mask(guard(self.adapter.observe, self.history, op), observed)
            self.node = run.journal.note(self.node, op, (result, observation), self.history)
            violations = guard(lambda: judged(self.monitor, op, result, observation), self.history, op)
            self.history.append(Step(op, result, observation))
            if violations:
                raise Broken(violations, list(self.history))
            if isinstance(op, Configure):
                self.config = self.config.replace(**op.changes())
            return result

        def tick(self, by: int = 1) -> int:
            self.now += by
            return self.now

        # --- writes -------------------------------------------------------------------------------

        @rule(target=positions, ledger=ledgers, size=sizes)
        def tailing_insert(self, ledger: int, size: int) -> Any:
            """OpAddEntry: the next entry of the ledger, expected by every active cursor."""
            entry = self.tail[ledger]
            self.tail[ledger] += 1
            count = active_cursors(self.cursor_positions, ledger)
            self.step(Insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=count))
            return (ledger, entry)

        @precondition(
            lambda self: can("cursors") and bool(self.cursor_positions) and "backlog_insert" not in run.exclude
        )
        @rule(target=positions, cursor=cursors, size=sizes)
        def backlog_insert(self, cursor: tuple[int, str], size: int) -> Any:
            """ReadFromStorage for a cursor: its position, expected by the cursors at or before it."""
            if cursor not in self.cursor_positions:
                return multiple()
            ledger, _ = cursor
            entry = self.cursor_positions[cursor]
            count = cursors_at_or_before(self.cursor_positions, *cursor)
            self.step(Insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=count))
            return (ledger, entry)

        @precondition(allowed("insert"))
        @rule(
            target=positions,
            position=st.one_of(st.tuples(ledgers, entries), positions),
            size=sizes,
            expected_reads=inserted_reads,
        )
        def insert(self, position: tuple[int, int], size: int, expected_reads: int | None) -> Any:
            """Any position, or one written before: duplicates and out-of-order inserts included."""
            ledger, entry = position
            self.step(Insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=expected_reads))
            return position

        # --- reads --------------------------------------------------------------------------------

        @rule(target=copies, position=st.one_of(positions, st.tuples(ledgers, entries)), readers=st.integers(1, 3))
        def read(self, position: tuple[int, int], readers: int) -> Any:
            """A read of a position inserted before (a hit unless it left) or of any position.

            By one to three subscriptions: copies of one entry share its handler, so releasing one
            shows its effect on the other (the only way a released copy's handler stays observable).
            """
            got = [self.step(Get(now=self.tick(), ledger=position[0], entry=position[1])) for _ in range(readers)]
            self.held.update((copy, position) for copy in got if copy is not None)
            return multiple(*[copy for copy in got if copy is not None])

        @precondition(lambda _self: can("get_range") and "get_range" not in run.exclude)
        @rule(target=copies, ledger=ledgers, first=entries, length=st.integers(0, 3))
        def read_range(self, ledger: int, first: int, length: int) -> Any:
            """A range read; each hit dispatches a copy."""
            got = self.step(GetRange(now=self.tick(), ledger=ledger, first=first, last=first + length))
            self.held.update((copy, (ledger, first + i)) for i, copy in enumerate(got) if copy is not None)
            return multiple(*[copy for copy in got if copy is not None])

        @rule(copy=consumes(copies), gone=st.booleans())
        def release(self, copy: int, gone: bool) -> None:
            """The consumer is done with a dispatched copy: markRead (unless ``invalidate`` released it).

            ``gone``: an open copy of an entry no longer cached instead, if there is one: a markRead
            after whatever removed it (a pass, a close, a targeted removal); after a forced one, where
            EVICTED's finality shows.
            """
            copy = self.removed_copy(copy) if gone else copy
            if copy in self.held:
                self.step(Release(now=self.tick(), copy=copy))
                del self.held[copy]

        @precondition(lambda _self: can("replay_increment"))
        @rule(copy=copies, gone=st.booleans())
        def replay_increment(self, copy: int, gone: bool) -> None:
            """Key_Shared puts the entry in the replay queue through its dispatched copy (while it is open).

            ``gone`` as for ``release``: an increment after the removal.
            """
            copy = self.removed_copy(copy) if gone else copy
            if copy in self.held:
                self.step(ReplayIncrement(now=self.tick(), copy=copy))

        def removed_copy(self, copy: int) -> int:
            """An open copy whose entry is no longer cached, else ``copy``.

            One of an entry with another copy open first: the handler they share shows the effect.
            """
            cached = {(e.ledger, e.entry) for e in self.history[-1].observation.entries} if self.history else set()
            crowd = Counter(self.held.values())
            gone = [(-crowd[at], held) for held, at in self.held.items() if at not in cached]
            return min(gone)[1] if gone else copy

        # --- time and eviction --------------------------------------------------------------------

        @rule(kind=st.sampled_from(["tick", *CUTOFFS]), tick=st.sampled_from(preset.ticks))
        def advance(self, kind: str, tick: int) -> None:
            """Let time pass: a few ticks, or to just before / just at / just past a TTL."""
            base = {"tick": tick, **cutoffs(self.config)}
            self.tick(max(0, base[kind] - 1))

        @precondition(allowed("evict_timestamp"))
        @rule(at=st.sampled_from(["now", *CUTOFFS]), pick=st.integers(0, 7))
        def evict_timestamp(self, at: str, pick: int) -> None:
            """The periodic TTL pass, now or just before / exactly at / just past the expiry of a cached entry."""
            self.step(EvictTimestamp(now=self.boundary(at, pick)))

        def boundary(self, at: str, pick: int) -> int:
            """The next tick, or the moment a cached entry's TTL runs out (if that is still ahead)."""
            stamps = [e.timestamp for e in self.history[-1].observation.entries] if self.history else []
            known = [s for s in stamps if s is not None]
            if at == "now" or not known:
                return self.tick()
            offset = cutoffs(self.config)
            target = sorted(known)[pick % len(known)] + offset[at]
            return self.tick(max(1, target - self.now))

        @precondition(allowed("evict_size"))
        @rule(at=st.sampled_from(["now", "now", "ttl_max", "ttl_max+1"]), pick=st.integers(0, 7))
        def evict_size(self, at: str, pick: int) -> None:
            """The eviction executor runs the size eviction (now, or when an entry passes ttl_max)."""
            self.step(EvictSize(now=self.boundary(at, pick)))

        # --- removal ------------------------------------------------------------------------------

        @precondition(allowed("invalidate"))
        @rule(
            target=copies,
            kind=st.sampled_from(["before", "ledger", "clear"]),
            position=st.one_of(positions, st.tuples(ledgers, entries)),
            while_read=st.booleans(),
            pick=st.integers(0, 7),
            then=st.sampled_from(AFTER_REMOVAL),
            bound=st.sampled_from([1, 1, 0, 2]),
        )
        def invalidate(
            self, kind: str, position: tuple[int, int], while_read: bool, pick: int, then: str, bound: int
        ) -> Any:
            """Forced removal: the slowest reader moved past a position, the ledger is deleted, or it closes.

            Aimed at positions written before half of the time, so forced removals meet cached and
            dispatched entries. Half of the time (``while_read``) it removes an entry being read: the
            position with the most open copies, or else a cached one, read until two copies of it are
            open (two subscriptions); after the removal (``then``) one copy is released, or replayed by
            Key_Shared (an increment racing the removal), or one released and the other replayed: how
            PIP-430's EVICTED finality shows. ``before`` removes below ``pos + bound``: ``pos + 1`` takes
            the position, ``pos`` keeps it (the bound is exclusive), ``pos + 2`` its upper neighbour too.
            Left to separate rules it needed read, invalidate and release all enabled in one example
            (Hypothesis turns rules off per example), and many seeds never built it.
            """
            dispatched: list[int] = []
            target = self.being_read(pick) if while_read else None
            if target is not None:
                position = target
                for _ in range(2 - sum(1 for at in self.held.values() if at == target)):  # one to release, one to show
                    copy = self.step(Get(now=self.tick(), ledger=target[0], entry=target[1]))
                    if copy is None:
                        break
                    self.held[copy] = target
                    dispatched.append(copy)
            now, (ledger, entry) = self.tick(), position
            if kind == "before":
                self.step(InvalidateBefore(now=now, ledger=ledger, entry=max(0, entry + bound)))
            elif kind == "ledger":
                self.step(InvalidateLedger(now=now, ledger=ledger))
            else:
                self.step(Clear(now=now))
            removed = sorted(copy for copy, at in self.held.items() if at == target)
            if removed and "release" in then:
                copy = removed.pop(pick % len(removed))
                self.step(Release(now=self.tick(), copy=copy))
                del self.held[copy]
            if removed and "replay" in then and can("replay_increment"):
                self.step(ReplayIncrement(now=self.tick(), copy=removed[pick % len(removed)]))
            return multiple(*dispatched)

        def being_read(self, pick: int) -> tuple[int, int] | None:
            """The position with the most open copies (still cached ones first), else a cached position."""
            cached = [(e.ledger, e.entry) for e in self.history[-1].observation.entries] if self.history else []
            if held := [at for at in self.held.values() if at in cached] or list(self.held.values()):
                per_position = Counter(held)
                most = max(per_position.values())
                crowded = sorted(position for position, count in per_position.items() if count == most)
                return crowded[pick % len(crowded)]
            return cached[pick % len(cached)] if cached else None

        # --- removals with a target of their own (capabilities evict_bytes, evict_before, remove_range) --
        # One rule for the three: Hypothesis enables a random subset of the rules in each example, and
        # every rule added makes each of the others rarer (three rules here cost other mutants kills).

        @precondition(lambda machine: any(offered(op)(machine) for op in TARGETED))
        @rule(
            kind=st.sampled_from(TARGETED),
            aim=st.sampled_from(["entry", "entry-1", "entry+1", "all", "all+1", "one", "behind"]),
            pick=st.integers(0, 7),
            position=st.one_of(positions, st.tuples(ledgers, entries)),
            span=st.integers(0, 3),
            inclusive=st.booleans(),
        )
        def targeted_removal(
            self, kind: type[Op], aim: str, pick: int, position: tuple[int, int], span: int, inclusive: bool
        ) -> None:
            """A removal with its own target, of the kind drawn if the adapter offers it, else the next one."""
            offers = [op for op in TARGETED if offered(op)(self)]
            kind = kind if kind in offers else offers[pick % len(offers)]
            if kind is EvictBytes or (aim == "behind" and EvictBytes in offers):  # behind: whatever kind was drawn
                self.evict_bytes(aim, pick)
            elif kind is EvictBefore:
                self.evict_before({"entry": "at", "entry-1": "at-1", "entry+1": "at+1"}.get(aim, "now"), pick)
            else:
                (ledger, first), now = position, self.tick()
                self.step(RemoveRange(now=now, ledger=ledger, first=first, last=first + span, inclusive=inclusive))

        def evict_bytes(self, aim: str, pick: int) -> None:
            """``evictLeastAccessedEntries(bytes)``: a cached entry's size, one byte either side, all, one byte.

            ``behind``: first remove the entry queued right behind the oldest one without expected reads
            (queue order told by timestamps), leaving its tombstone there, then free exactly that one's size:
            a pass that has freed enough must still drain the tombstone at the head (MISSING is decided
            before the bytes, managed-ledger 4.2.4).
            """
            seen = self.history[-1].observation if self.history else None
            if aim == "behind" and seen is not None and len(seen.entries) > 1 and run.sends(RemoveRange):
                queued = sorted(seen.entries, key=lambda e: (e.timestamp is None, e.timestamp or 0))
                idle = [i for i, e in enumerate(queued[:-1]) if not e.count and not e.accessed]  # likely removed
                at = idle[0] if idle else 0
                oldest, behind = queued[at], queued[at + 1]
                now, (ledger, entry) = self.tick(), (behind.ledger, behind.entry)
                self.step(RemoveRange(now=now, ledger=ledger, first=entry, last=entry, inclusive=True))
                self.step(EvictBytes(now=self.tick(), bytes=oldest.size))
                return
            sizes = [e.size for e in seen.entries] if seen is not None else []
            one = sizes[pick % len(sizes)] if sizes else 1
            total = seen.size if seen is not None else 0
            wanted = {"entry": one, "entry-1": one - 1, "entry+1": one + 1, "all": total, "all+1": total + 1, "one": 1}
            self.step(EvictBytes(now=self.tick(), bytes=max(1, wanted.get(aim, one))))  # behind, too few: as entry

        def evict_before(self, aim: str, pick: int) -> None:
            """``evictLEntriesBeforeTimestamp(cutoff)``: at a cached entry's timestamp, one either side, or now."""
            now = self.tick()
            seen = self.history[-1].observation.entries if self.history else ()
            stamps = sorted(e.timestamp for e in seen if e.timestamp is not None)
            stamp = stamps[pick % len(stamps)] if stamps and aim != "now" else now
            self.step(EvictBefore(now=now, cutoff=stamp + {"at": 0, "at+1": 1, "at-1": -1, "now": 0}[aim]))

    LockstepMachine.__name__ = f"Lockstep_{run.profile.replace('-', '_')}"
    return LockstepMachine
