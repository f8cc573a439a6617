"""The cursor-state lockstep machine.

Hypothesis interleaves acknowledgements, persists, BookKeeper completions and failures, metadata-store failures,
rollovers, crashes and recoveries; every step goes to the candidate and to the model, and the profile's
invariants judge the candidate's result. Hypothesis shrinks a failure to a minimal sequence of operations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule
from ledgerspec.conformance.cursor_state._system import system
from ledgerspec.conformance.lockstep._engine import Candidate, Lockstep, LockstepRun, Report, conform
from ledgerspec.spec.cursor_state import CAPABILITIES, Ack, AckIndex, Confirm, Crash, CursorConfig, CursorOp
from ledgerspec.spec.cursor_state._ops import FailAdd, FailMeta, MarkDelete, Persist, Recover, Rollover, Unreadable

CURSOR_STATE = system()
"""The record (``conformance/cursor_state/_system.py``)."""


def sendable(op: type[CursorOp], capabilities: frozenset[str]) -> bool:
    """Whether an adapter claiming ``capabilities`` may be sent ``op``: the one rule the machine and the recorder share.

    An operation names the capability it needs (``CursorOp.capability``); a process adapter that does
    not claim it would refuse the operation (conformance/protocol/cursor-state.md).
    """
    return op.capability is None or op.capability in capabilities


def codecs(capabilities: frozenset[str]) -> tuple[str, ...]:
    """The ``compression`` values an adapter claiming ``capabilities`` may be configured with."""
    return ("none", "zlib") if "zlib" in capabilities else ("none",)


def configs(capabilities: frozenset[str]) -> st.SearchStrategy[CursorConfig]:
    """Small chunks and entries, so that a few acknowledgements already chunk or overflow."""
    claimed_codecs = codecs(capabilities)
    return st.builds(
        CursorConfig,
        chunk_size=st.sampled_from([8, 11, 12, 16, 24, 48]),
        max_entry_size=st.sampled_from([40, 64, 1000]),
        max_ranges=st.integers(0, 3),
        long_array=st.booleans(),
        compression=st.sampled_from(["none", *claimed_codecs] if len(claimed_codecs) > 1 else ["none"]),  # none 2:1
        batch_size=st.sampled_from([2, 4]),
    )


DATA_LEDGERS, SPAN = (1, 2), 6
"""The positions acknowledged: two data ledgers of six entries each, from the example's first entry id."""
FIRST_ENTRIES = (0, 0, 30, 60)
"""Where an example's entry ids start. Half of the examples start at 0; the others cross bit 32 of a word
of the long array (``BitSet.toLongArray``: a ``1 << bit`` shift in 32 bits goes wrong there) or its
second word at 64. Not near 2^31: a ledger's long array is then 2^25 words."""
LEDGERS = st.sampled_from(DATA_LEDGERS)
FIRST = st.shared(st.sampled_from(FIRST_ENTRIES), key="cursor-first-entry")
ENTRIES = FIRST.flatmap(lambda first: st.integers(first, first + SPAN - 1))


def positions(first: int) -> list[tuple[int, int]]:
    """The positions an example acknowledges, in order."""
    return [(ledger, entry) for ledger in DATA_LEDGERS for entry in range(first, first + SPAN)]

FAULTS: tuple[type[CursorOp], ...] = (FailAdd, FailMeta, Rollover)
"""The faults a persist may meet, in the order the machine and the recorder draw them."""


def make_cursor_machine(run: LockstepRun) -> type[Lockstep]:  # noqa: C901 - a Hypothesis state machine: each rule is a nested function counted here
    """A machine class bound to one candidate and profile."""
    def can(op: type[CursorOp]) -> bool:
        return sendable(op, run.capabilities)

    faults = [None, None, *(op for op in FAULTS if can(op))]

    class CursorLockstep(Lockstep):
        def __init__(self) -> None:
            super().__init__()
            self.dead = False
            self.first = 0

        @initialize(config=configs(run.capabilities), first=FIRST)
        def start(self, config: CursorConfig, first: int = 0) -> None:
            self.first = first
            self.begin(config)

        def live(self) -> bool:
            return not self.dead

        @precondition(live)
        @rule(
            positions=st.lists(st.tuples(LEDGERS, ENTRIES), min_size=1, max_size=4),
            whole=st.booleans() if can(AckIndex) else st.just(True),
        )
        def ack(self, positions: list[tuple[int, int]], whole: bool) -> None:
            """Individual acknowledgements: whole entries, or one batch index of each."""
            for ledger, entry in positions:
                self.do(
                    Ack(ledger=ledger, entry=entry) if whole else AckIndex(ledger=ledger, entry=entry, index=entry % 2)
                )

        @precondition(live)
        @rule(ledger=LEDGERS, entry=ENTRIES)
        def mark_delete(self, ledger: int, entry: int) -> None:
            self.do(MarkDelete(ledger=ledger, entry=entry))

        @precondition(lambda self: self.live() and can(AckIndex))
        @rule(
            ledger=LEDGERS,
            entries=st.lists(ENTRIES, min_size=1, max_size=3),
            way=st.sampled_from([Persist, Rollover, FailAdd]),
            value=st.integers(0, 3),
        )
        def covered_batch(self, ledger: int, entries: list[int], way: type[CursorOp], value: int) -> None:
            """Batch sets a mark-delete covered, then one way on, then a persist whose write shows what settled.

            The sets stay in every write until a persist at or past them completes. The ways on: a persist
            confirmed whole, a rollover (of a ledger opened first if none is), a failed add.
            """
            if way is not Persist and self.model.open_ledger is None and self.model.opening is None:
                self.do(Persist(value=value))
                self.confirm_all()
            for entry in entries:
                self.do(AckIndex(ledger=ledger, entry=entry, index=entry % 2))
            self.do(MarkDelete(ledger=ledger, entry=max(entries)))
            if way is Rollover and can(Rollover) and self.model.open_ledger is not None:
                self.do(Rollover())
            elif way is FailAdd and can(FailAdd) and self.model.open_ledger is not None:
                self.do(Persist(value=value))
                self.do(FailAdd())
            else:
                self.do(Persist(value=value))
            self.confirm_all()
            self.do(Persist(value=value))
            self.confirm_all()

        @precondition(live)
        @rule(
            value=st.integers(0, 3),
            confirms=st.integers(0, 8),
            fault=st.sampled_from(faults),
            fault_after=st.integers(0, 3),
            crash=st.sampled_from([None, None, None, 0, 1, 2, 3]),
        )
        def persist(
            self, value: int, confirms: int, fault: type[CursorOp] | None, fault_after: int, crash: int | None
        ) -> None:
            """A persist, some of its adds confirmed, perhaps a fault or a rollover among them.

            Perhaps a crash right after, which keeps some of the adds still outstanding (a torn sequence).
            """
            self.do(Persist(value=value))
            for done in range(confirms + 1):
                if fault is not None and done == min(fault_after, confirms):
                    self.do(fault())
                if done < confirms:
                    self.do(Confirm())
            if crash is not None:
                self.crash_and_recover(crash, unreadable=False)

        @precondition(live)
        @rule(times=st.integers(1, 4))
        def confirm(self, times: int) -> None:
            for _ in range(times):
                self.do(Confirm())

        @precondition(lambda self: self.live() and can(FailAdd))
        @rule(
            value=st.integers(0, 3),
            crash=st.booleans(),
            acks=st.lists(st.tuples(LEDGERS, ENTRIES), max_size=3),
            late=st.lists(st.tuples(LEDGERS, ENTRIES), max_size=2),
        )
        def fallback(
            self, value: int, crash: bool, acks: list[tuple[int, int]], late: list[tuple[int, int]]
        ) -> None:
            """A persist on an open cursor ledger whose write fails: the state goes to the metadata store.

            The cursor ledger is opened first when there is none (a persist confirmed whole), since the
            fallback happens only from state Open; then perhaps a crash, so that recovery reads the record.
            Acks first, often past holes: a record must carry the whole state (ranges, not only the
            mark-delete position), which shows only when the state has more than its mark-delete. ``late``
            acks come between the persist and its failure: the record carries what the cursor holds when
            it is written, not what it held when the persist was asked for.
            """
            for ledger, entry in acks:
                self.do(Ack(ledger=ledger, entry=entry))
            for _ in range(2):
                if self.model.open_ledger is not None or self.model.opening is not None:
                    break
                self.do(Persist(value=value))
                self.confirm_all()
            if self.model.open_ledger is None or self.model.outstanding:
                return
            self.do(Persist(value=value))
            for ledger, entry in late:
                self.do(Ack(ledger=ledger, entry=entry))
            self.do(FailAdd())
            if crash:
                self.crash_and_recover(0, unreadable=False)

        @precondition(live)
        @rule(
            ahead=st.integers(1, 3),
            value=st.integers(0, 3),
            keep=st.integers(0, 1),
            torn=st.sampled_from([0, 0, 1, 2]),
        )
        def durable_then_crash(self, ahead: int, value: int, keep: int, torn: int) -> None:
            """The mark-delete position moves on, a persist is confirmed whole, then a crash and recovery.

            The plainest durability check, and the one where two sources of the state part ways: the
            metadata-store record was written when the cursor ledger was opened, the ledger's last
            entry after it. A recovery that takes any field from the older source rolls back what was
            acknowledged. With ``torn``, the next persist has that many of its adds confirmed before
            the crash: the complete state is then below a torn tail, which recovery must step back
            over. The ledger is opened first when there is none, as in ``fallback``.
            """
            for _ in range(2):
                if self.model.open_ledger is not None or self.model.opening is not None:
                    break
                self.persist_whole(value)
            mark = self.model.memory.mark_delete if self.model.memory is not None else (0, -1)
            later = [position for position in positions(self.first) if position > mark]
            if len(later) >= ahead:
                self.do(MarkDelete(ledger=later[ahead - 1][0], entry=later[ahead - 1][1]))
            self.persist_whole(value)
            if torn and not self.model.outstanding:
                self.do(Persist(value=value + 1))
                for _ in range(min(torn, len(self.model.outstanding))):
                    self.do(Confirm())
            self.crash_and_recover(keep, unreadable=False)

        def confirm_all(self) -> None:
            """Every outstanding add confirmed (each confirm takes one, or fails its ledger's)."""
            while self.model.outstanding:
                self.do(Confirm())

        def persist_whole(self, value: int) -> None:
            """A persist and every outstanding add confirmed (a bounded number: a failed ledger may keep some)."""
            self.do(Persist(value=value))
            for _ in range(16):
                if not self.model.outstanding:
                    break
                self.do(Confirm())

        @precondition(live)
        @rule(
            keep=st.integers(0, 4),
            unreadable=st.sampled_from([False, False, True]) if can(Unreadable) else st.just(False),
        )
        def crash_and_recover(self, keep: int, unreadable: bool) -> None:
            self.do(Crash(keep=keep))
            if unreadable:
                self.do(Unreadable())
            if self.do(Recover()) == "failed":
                self.dead = True

    CursorLockstep.run = run
    CursorLockstep.__name__ = f"CursorLockstep_{run.profile.replace('-', '_')}"
    return CursorLockstep


def conform_cursor(
    factory: Any,
    profile: str,
    *,
    settings_name: str = "ci",
    seed: int = 0,
    invariants: tuple[str, ...] = (),
    capabilities: frozenset[str] = frozenset(CAPABILITIES),
    on_example: Callable[[int, int], None] | None = None,
    examples: int | None = None,
    shrink: bool = True,
) -> Report:
    """Search for a sequence of operations on which the candidate breaks one of the profile's invariants."""
    return conform(
        CURSOR_STATE,
        factory,
        profile,
        settings_name=settings_name,
        seed=seed,
        invariants=invariants,
        capabilities=capabilities,
        on_example=on_example,
        examples=examples,
        shrink=shrink,
    )


__all__ = ["CURSOR_STATE", "FAULTS", "Candidate", "codecs", "conform_cursor", "make_cursor_machine", "sendable"]
