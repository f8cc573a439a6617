"""The search aims at boundaries (issue 16 items 4 and 5): the marks it lands on, the cursors it moves
and counts, and the minimizer keeping the copies it renumbers straight when a cursor read dispatched
some of them. And entry and ledger ids past the 32-bit boundaries (``ENTRY_BASES``, ``LEDGER_BASES``,
``FIRST_ENTRIES``), with the Java arithmetic of the mutants only such ids show."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test
from ledgerspec.conformance.cache._engine import _cut, conform, dispatched_copies
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.conformance.cache.machine._core import Step
from ledgerspec.conformance.cache.machine._cursors import edge_move, recount
from ledgerspec.conformance.cache.machine._marks import segment_end
from ledgerspec.conformance.cache.mutants._positions import _as_int, _as_long
from ledgerspec.conformance.cursor_state import CursorStateAdapter
from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE, FIRST_ENTRIES, SPAN, make_cursor_machine
from ledgerspec.conformance.cursor_state._mutants import _int_shift_words
from ledgerspec.conformance.lockstep._engine import LockstepRun
from ledgerspec.reference.cursor_state._position_info import _long_words
from ledgerspec.spec.cache import (
    Append,
    CacheConfig,
    CursorAdd,
    CursorRead,
    Get,
    Insert,
    InvalidateLedger,
    LedgerClose,
    Op,
    Release,
    ReplayIncrement,
)
from ledgerspec.spec.cache.segmented import geometry
from ledgerspec.spec.cursor_state import Ack, AckIndex, MarkDelete

CONFIG = CacheConfig(max_size=1000, watermark=0.5, ttl=10, ttl_max=50, max_requeue=1)


def history(ops: list[Op]) -> list[Step]:
    """The reference pip430 cache's steps for ``ops``."""
    adapter = ReferenceAdapter("pip430")
    adapter.start(CONFIG)
    try:
        return [Step(op, adapter.apply(op), adapter.observe()) for op in ops]
    finally:
        adapter.stop()


def test_a_cut_renumbers_the_copies_a_cursor_read_dispatched() -> None:
    # get -> copy 0; the cursor read -> copies 1, 2; a release of copy 2, then a replay through copy 1.
    steps = history(
        [
            CursorAdd(now=1, ledger=1, cursor="c1", entry=0),
            Append(now=2, ledger=1, entry=0, size=10),
            Append(now=3, ledger=1, entry=1, size=10),
            Get(now=4, ledger=1, entry=0),
            CursorRead(now=5, ledger=1, cursor="c1", last=1),
            Release(now=6, copy=2),
            ReplayIncrement(now=7, copy=1),
        ]
    )
    assert dispatched_copies(steps[4]) == [1, 2]
    cut = _cut(steps, 3, 4)  # without the get: the cursor read's copies become 0 and 1
    assert [op.copy for op in cut if isinstance(op, Release | ReplayIncrement)] == [1, 0]
    assert len(cut) == 6


@pytest.mark.parametrize(("max_size", "segment_size_max"), [(300, 128), (1000, 100), (256, 1024)])
def test_the_segment_mark_is_the_end_of_the_segment_being_filled(max_size: int, segment_size_max: int) -> None:
    # ReadCache.size() is the current offset plus a full segment per other non-empty segment.
    config = CacheConfig(max_size=max_size, segment_size_max=segment_size_max)
    _, segment = geometry(config)
    for others in range(2):
        for offset in (0, 1, 64, segment - 1):
            size = others * segment + offset
            assert segment_end(config, size) - size == segment - offset


def test_an_edge_move_takes_the_ledgers_end_cursor_onto_its_neighbour_or_away() -> None:
    positions = {(1, "c1"): 5, (1, "c2"): 5, (1, "c3"): 9, (2, "c4"): 0, (1, "c5"): 5}
    assert edge_move(positions, 1, "fastest", join=True) == ((1, "c3"), 5)
    assert edge_move(positions, 1, "fastest", join=False) == ((1, "c3"), 10)
    assert edge_move(positions, 1, "slowest", join=True) == ((1, "c1"), 5)  # the first added of the group
    assert edge_move(positions, 1, "slowest", join=False) == ((1, "c1"), 4)
    assert edge_move(positions, 2, "fastest", join=True) is None  # a lone cursor has no neighbour
    # among cursors at one position, the last added is the last in order (Pulsar's list: insertion order)
    assert edge_move({(1, "c9"): 3, (1, "c10"): 3}, 1, "fastest", join=False) == ((1, "c10"), 4)


def test_the_recount_asks_the_group_the_moved_cursor_joined_else_left_else_itself() -> None:
    joined = {(1, "c1"): 5, (1, "c2"): 5, (1, "c3"): 5}  # c3 came back from 9 onto 5
    assert recount(joined, (1, "c3"), left=9) == (1, "c1")
    left = {(1, "c1"): 5, (1, "c2"): 5, (1, "c3"): 6}  # c3 went on from 5
    assert recount(left, (1, "c3"), left=5) == (1, "c1")
    alone = {(1, "c1"): 2, (1, "c3"): 6, (2, "c4"): 5}
    assert recount(alone, (1, "c3"), left=5) == (1, "c3")  # c4 of another ledger is no member


def test_the_search_starts_some_examples_ids_past_each_32_bit_boundary() -> None:
    """An example's entry ids start at a base (``ENTRY_BASES``), its ledger ids are offset by another
    (``LEDGER_BASES``): past 2^31 and 2^32 some of the time, every ledger rule included."""
    entries: list[int] = []
    ledgers: list[int] = []

    class Spy(ReferenceAdapter):
        def apply(self, op: Op) -> object:
            if isinstance(op, Insert | Get):
                entries.append(op.entry)
            if isinstance(op, InvalidateLedger | LedgerClose):
                ledgers.append(op.ledger)
            return super().apply(op)

    report = conform(lambda: Spy("pulsar-master"), profile="pulsar-master", settings="ci", examples=80, seed=1)
    assert report.verdict == "PASS"
    assert any(entry < 60 for entry in entries)
    assert any(2**31 - 4 <= entry < 2**31 for entry in entries)  # an (int) cast keeps these
    assert any(2**31 <= entry < 2**32 - 4 for entry in entries)  # and turns these negative
    assert any(entry >= 2**32 for entry in entries)  # the low 32 bits wrap to 0 here
    assert any(ledger <= 3 for ledger in ledgers)
    assert 2**31 - 1 in ledgers  # the end of its packed keys, (ledger + 1) << 32, overflows a long
    assert any(2**31 <= ledger < 2**32 - 1 for ledger in ledgers)  # (int) turns these negative
    assert any(ledger >= 2**32 for ledger in ledgers)  # past a 32-bit ledger field


def test_the_packed_range_mutant_computes_a_ledgers_key_range_as_java_longs_do() -> None:
    cases = {0: 0, 2**63 - 1: 2**63 - 1, 2**63: -(2**63), (2**31 - 1) << 32: 2**63 - 2**32, 2**64 + 5: 5}
    assert {value: _as_long(value) for value in cases} == cases


def test_the_int_cast_mutant_keys_as_java_casts_a_long_to_int() -> None:
    cases = {0: 0, 2**31 - 1: 2**31 - 1, 2**31: -(2**31), 2**32 - 1: -1, 2**32 + 5: 5, 2**63 - 1: -1}
    assert {entry: _as_int(entry) for entry in cases} == cases


def test_the_int_shift_mutant_writes_words_as_java_does_with_an_int_one() -> None:
    assert _int_shift_words({0, 5, 30}) == _long_words({0, 5, 30})  # below bit 31: the reference's words
    assert _int_shift_words({32}) == [1]  # 1 << 32 is 1 << 0 in 32 bits
    assert _int_shift_words({31}) == [0xFFFF_FFFF_8000_0000]  # a negative int widened to a long
    assert _int_shift_words({64 + 33}) == [0, 2]
    assert _long_words({64 + 33}) == [0, 1 << 33]


def test_the_cursor_search_acknowledges_entries_from_each_first_entry() -> None:
    """Entries from 30 and 60 reach bit 32 of a word and a second word (``FIRST_ENTRIES``)."""
    seen: set[int] = set()

    class Spy(CursorStateAdapter):
        def apply(self, op: object) -> object:
            if isinstance(op, Ack | AckIndex | MarkDelete):
                seen.add(op.entry)
            return super().apply(op)

    run = LockstepRun(CURSOR_STATE, lambda: Spy("pulsar-master"), "pulsar-master")
    run_state_machine_as_test(
        make_cursor_machine(run), settings=settings(max_examples=60, database=None, derandomize=True)
    )
    for first in FIRST_ENTRIES:
        assert seen & set(range(first, first + SPAN)), first
    assert seen <= set().union(*(range(first, first + SPAN) for first in FIRST_ENTRIES))
