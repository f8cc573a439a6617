"""Each cursor-state invariant flags a broken result and stays silent on the model's own; the two
findings about the PIP-381 design (apache/pulsar 048142ca) as hand-traced scenarios."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from ledgerspec.spec.cursor_state import (
    INVARIANTS,
    Ack,
    AckIndex,
    Confirm,
    Crash,
    CursorConfig,
    CursorOp,
    FailAdd,
    MarkDelete,
    Persist,
    Recover,
    Step,
    Unreadable,
    claimed,
    init,
    step,
)

RECOVERED = {"mark_delete": [1, -1], "acked": [], "batch": [], "properties": {}}


@dataclass(frozen=True)
class Case:
    invariant: str
    profile: str
    ops: tuple[CursorOp, ...]
    broken: Any
    """What a broken candidate answers to the last operation."""
    writes: tuple[Any, ...] | None = None
    """What a broken candidate reports it wrote in the last operation (None: the model's writes)."""


# Persist 1 is acknowledged with (1,3) and (1,5) acked: the new ledger 100's first write (``lastMarkDeleteEntry``,
# no properties yet), then the flush of persist 1, each confirmed.
ACKNOWLEDGED = (
    Ack(ledger=1, entry=3),
    Ack(ledger=1, entry=5),
    Persist(value=0),
    Confirm(),
    Confirm(),
    Crash(keep=0),
    Recover(),
)
CASES = [
    Case("CURSOR-MODEL", "pip381", (Persist(value=0),), 2),
    # pip381, chunk 11: the new ledger's first write (19 bytes: persist 1's state without its property) is two
    # chunks (11, 8) at entries 0-1, then the footer (26 bytes of JSON) at entry 2; a candidate one chunk short,
    # then one writing a chunk more
    Case(
        "CURSOR-WRITES",
        "pip381",
        (Ack(ledger=1, entry=3), Persist(value=0)),
        1,
        (("chunk_write", 100, 0, 11, None), ("footer", 100, 1, 26, None)),
    ),
    Case(
        "CURSOR-WRITES",
        "pip381",
        (Ack(ledger=1, entry=3), Persist(value=0)),
        1,
        (
            ("chunk_write", 100, 0, 11, None),
            ("chunk_write", 100, 1, 8, None),
            ("chunk_write", 100, 2, 8, None),
            ("footer", 100, 3, 26, None),
        ),
    ),
    Case("CURSOR-WRITES", "pulsar-master", (Persist(value=0), Confirm()), [[1, True]], ()),
    Case("CURSOR-CALLBACK-ONCE", "pulsar-master", (Persist(value=0), Confirm()), [[1, True], [1, True]]),
    Case("CURSOR-CALLBACK-ONCE", "pulsar-master", (Persist(value=0), Confirm()), [[7, True]]),
    Case(
        "CURSOR-RECOVER-ACKNOWLEDGED",
        "pulsar-master",
        ACKNOWLEDGED,
        {**RECOVERED, "acked": [[1, 3]], "properties": {"p": 0}},
    ),
    Case("CURSOR-NO-ACK-LOSS", "pulsar-master", ACKNOWLEDGED, {**RECOVERED, "acked": [[1, 5]], "properties": {"p": 0}}),
    Case("CURSOR-MARK-DELETE-MONOTONE", "pulsar-master", (Ack(ledger=1, entry=0), *ACKNOWLEDGED), RECOVERED),
    Case("CURSOR-NO-PHANTOM-ACK", "pulsar-master", ACKNOWLEDGED, {**RECOVERED, "acked": [[1, 3], [1, 4], [1, 5]]}),
]


def _run(
    profile: str,
    ops: tuple[CursorOp, ...],
    last: Any = None,
    config: CursorConfig | None = None,
    writes: tuple[Any, ...] | None = None,
) -> dict[str, str]:
    """Messages per invariant (every invariant, claimed or not) at the last step, answered ``last`` or as the model.

    Every step reports the model's writes, but the last one, which reports ``writes`` when given.
    """
    model = init(profile, config)
    found: dict[str, str] = {}
    for i, op in enumerate(ops):
        before = model
        model, expected = step(before, op)
        result = last if last is not None and i == len(ops) - 1 else expected
        made = writes if writes is not None and i == len(ops) - 1 else tuple(model.written)
        for inv in INVARIANTS:
            message = inv.check(Step(before, model, op, result, expected, made))
            if message is not None:
                found[inv.id] = message
    return found


@pytest.mark.parametrize("case", CASES, ids=[f"{c.invariant}-{i}" for i, c in enumerate(CASES)])
def test_invariant_flags_the_broken_answer_and_not_the_models(case: Case) -> None:
    config = CursorConfig(chunk_size=11)
    assert _run(case.profile, case.ops, config=config) == {}
    assert case.invariant in _run(case.profile, case.ops, case.broken, config, case.writes)


def test_the_writes_of_a_chunked_persist_and_of_a_ledger_switch() -> None:
    """pip381 chunk 11: the new ledger's first write (``lastMarkDeleteEntry``: persist 1's state, no property yet),
    chunks then its footer, last; its confirmation switches the metadata store to the new ledger and flushes
    persist 1 (26 bytes: three chunks and the footer). A footer early is named at the write where it is."""
    model = init("pip381", CursorConfig(chunk_size=11))
    model, _ = step(model, Ack(ledger=1, entry=3))
    model, _ = step(model, Persist(value=0))
    assert [(k, e, b) for k, _, e, b, _ in model.written] == [
        ("chunk_write", 0, 11),
        ("chunk_write", 1, 8),
        ("footer", 2, 26),
    ]
    early = (model.written[0], model.written[2], model.written[1])
    found = _run("pip381", (Ack(ledger=1, entry=3), Persist(value=0)), 1, CursorConfig(chunk_size=11), early)
    want = "write 2 is footer (ledger 100 entry 2, 26 bytes), the profile's chunk_write (ledger 100 entry 1, 8 bytes)"
    assert want in found["CURSOR-WRITES"]
    for _ in range(2):
        model, _ = step(model, Confirm())
    model, result = step(model, Confirm())
    assert result == []  # persist 1 waits for its flush
    assert [(k, e, b) for k, _, e, b, _ in model.written] == [
        ("meta_update", None, None),
        ("chunk_write", 3, 11),
        ("chunk_write", 4, 11),
        ("chunk_write", 5, 4),
        ("footer", 6, 26),
    ]


def test_every_invariant_has_a_case_and_is_claimed_by_a_profile() -> None:
    assert {inv.id for inv in INVARIANTS} == {c.invariant for c in CASES}
    assert {inv.id for inv in INVARIANTS} == {inv.id for p in ("pip381", "pulsar-master") for inv in claimed(p)}


# Finding P1: a crash after the first chunk of a sequence. The state of persist 2 is 26 bytes
# (fields 1-2: 13 bytes, md (1,-1) being a 10-byte varint; property p: 7; the bitset of ledger 1:
# 6); with a chunk of 20 bytes its first chunk ends exactly after the property, so it parses as a
# complete PositionInfo with no acked entries. Recovery walks back from it and stops there.
TORN = (
    Ack(ledger=1, entry=3),
    Ack(ledger=1, entry=5),
    Persist(value=0),
    Confirm(),
    Confirm(),
    Confirm(),
    Confirm(),
    Persist(value=1),
    Crash(keep=1),
    Recover(),
)


def test_p1_a_torn_first_chunk_recovers_as_a_complete_state_in_pip381() -> None:
    found = _run("pip381", TORN, config=CursorConfig(chunk_size=20))
    assert set(found) == {"CURSOR-RECOVER-ACKNOWLEDGED", "CURSOR-NO-ACK-LOSS"}
    assert "entries [(1, 3), (1, 5)]" in found["CURSOR-NO-ACK-LOSS"]
    assert not {inv.id for inv in claimed("pip381")} & set(found)  # pip381 claims neither: SPEC.md P1


def test_p1_single_entry_recovery_of_pulsar_master_keeps_them() -> None:
    assert _run("pulsar-master", TORN, config=CursorConfig(chunk_size=20)) == {}


# Finding P2: persist 2 fails on the ledger and falls back to the metadata store, batch sets
# included; 048142ca's recovery from the metadata store restores no batch indexes.
FALLBACK = (
    Persist(value=0),
    Confirm(),
    AckIndex(ledger=1, entry=2, index=0),
    Persist(value=1),
    FailAdd(),
    Crash(keep=0),
    Recover(),
)


def test_p2_pip381_forgets_batch_indexes_recovered_from_the_metadata_store() -> None:
    found = _run("pip381", FALLBACK)
    assert set(found) == {"CURSOR-RECOVER-ACKNOWLEDGED", "CURSOR-NO-ACK-LOSS"}
    assert "batch indexes [((1, 2), [0])]" in found["CURSOR-NO-ACK-LOSS"]
    assert _run("pulsar-master", FALLBACK) == {}


def test_step_leaves_its_argument_as_it_was() -> None:
    """``step`` copies only the containers (the values are immutable): a step must not reach back."""
    ops = (
        *FALLBACK[:-2],
        Persist(value=2),
        Confirm(),
        Crash(keep=1),
        Recover(),
        Ack(ledger=2, entry=0),
        Persist(value=3),
    )
    model = init("pip381", CursorConfig(chunk_size=8))
    for op in ops:
        kept = copy.deepcopy(model)
        after, _ = step(model, op)
        assert model == kept
        model = after


# Finding P3: a chunk after the first can parse as a whole PositionInfo. Persist 2's state (36 bytes
# with chunks of 24: its batch set of (1,0) is "2a 08 0a 04 08 01 10 00 10 02") is cut right after
# "2a 08 0a 04", so its second chunk is "08 01 10 00 10 02": ledgerId 1, entryId 0, then entryId 2
# (the unacknowledged-index word), and the last value wins. A crash that keeps both chunks but not
# the footer recovers mark-delete (1,2): entries 0-2 of ledger 1, never acknowledged, are skipped.
LOSS = (Persist(value=0), AckIndex(ledger=1, entry=0, index=0), Persist(value=0), Confirm(), Crash(keep=2), Recover())


def test_p3_a_later_chunk_parses_and_skips_unacknowledged_messages_in_pip381() -> None:
    found = _run("pip381", LOSS, config=CursorConfig(chunk_size=24, batch_size=2))
    assert "mark-delete (1, 2) (highest ever (1, -1))" in found["CURSOR-NO-PHANTOM-ACK"]
    assert _run("pulsar-master", LOSS, config=CursorConfig(chunk_size=24, batch_size=2)) == {}


# Finding P4: the same with the batch set of (1,5) after mark-delete (1,3): the piece "08 01 10 05 10 02"
# recovers mark-delete (1,2), behind the acknowledged (1,3).
BACK = (
    Persist(value=0),
    Confirm(),
    MarkDelete(ledger=1, entry=3),
    AckIndex(ledger=1, entry=5, index=0),
    Persist(value=1),
    *[Confirm()] * 6,
    Persist(value=2),
    Crash(keep=2),
    Recover(),
)


def test_p4_a_later_chunk_can_move_the_mark_delete_position_back_in_pip381() -> None:
    config = CursorConfig(chunk_size=15, batch_size=2, max_entry_size=1000)
    found = _run("pip381", BACK, config=config)
    assert "went back from (1, 3)" in found["CURSOR-MARK-DELETE-MONOTONE"]
    assert not {inv.id for inv in claimed("pip381")} & set(found)
    assert _run("pulsar-master", BACK, config=config) == {}


# C6, corrected: managed-ledger 4.0.8/4.2.4 ``ManagedCursorImpl.setAcknowledgedPosition`` moves a mark-delete on
# over the acknowledged run right after it. Ack (1,1), (1,2), (1,4); mark-delete (1,0): the position becomes (1,2)
# (over (1,1) and (1,2), not over the hole at (1,3)), and (1,4) stays acknowledged on its own.
RUN_AFTER = (
    Ack(ledger=1, entry=1),
    Ack(ledger=1, entry=2),
    Ack(ledger=1, entry=4),
    MarkDelete(ledger=1, entry=0),
    Persist(value=0),
    Confirm(),
    Confirm(),
    Crash(keep=0),
    Recover(),
)
MOVED_ON = {"mark_delete": [1, 2], "acked": [[1, 4]], "batch": [], "properties": {"p": 0}}


@pytest.mark.parametrize("profile", ["pip381", "pulsar-master"])
def test_a_mark_delete_moves_on_over_the_acknowledged_run_after_it(profile: str) -> None:
    model = init(profile, CursorConfig(max_entry_size=1000))
    results = []
    for op in RUN_AFTER:
        model, result = step(model, op)
        results.append(result)
    assert results[-1] == MOVED_ON
    assert model.ever_mark == (1, 2)
    assert _run(profile, RUN_AFTER, config=CursorConfig(max_entry_size=1000)) == {}
    # the old spec's answer (stopping at (1,0)) holds the same acknowledged set: nothing lost or invented, but it is
    # not what the profile wrote (nor its mark-delete position)
    stopped = {**MOVED_ON, "mark_delete": [1, 0], "acked": [[1, 1], [1, 2], [1, 4]]}
    found = _run(profile, RUN_AFTER, stopped, config=CursorConfig(max_entry_size=1000))
    assert {"CURSOR-MODEL", "CURSOR-RECOVER-ACKNOWLEDGED", "CURSOR-MARK-DELETE-MONOTONE"} <= set(found)
    assert not {"CURSOR-NO-ACK-LOSS", "CURSOR-NO-PHANTOM-ACK"} & set(found)


# The same acknowledged set in another form is no phantom: a release whose range cap kept (1,2) (max + 1, C4) moves
# its mark-delete on over it when (1,0) and (1,1) are acknowledged; the model, whose cap dropped (1,2), stops at (1,1).
# CURSOR-MODEL tells them apart; CURSOR-NO-PHANTOM-ACK must not: (1,2) was acknowledged. Over (1,1), never
# acknowledged, it must.
CAPPED = CursorConfig(max_entry_size=1000, max_ranges=0, long_array=False)
KEPT_BY_THE_RELEASE = (
    Ack(ledger=1, entry=2),
    Persist(value=0),
    Confirm(),
    Confirm(),
    Crash(keep=0),
    Recover(),
    Ack(ledger=1, entry=0),
    Ack(ledger=1, entry=1),
    Persist(value=1),
    Confirm(),
    Confirm(),
    Crash(keep=0),
    Recover(),
)


def test_a_mark_delete_past_the_highest_over_acknowledged_entries_is_no_phantom() -> None:
    model = init("pulsar-master", CAPPED)
    results = []
    for op in KEPT_BY_THE_RELEASE:
        model, result = step(model, op)
        results.append(result)
    assert results[5] == {"mark_delete": [1, -1], "acked": [], "batch": [], "properties": {"p": 0}}  # (1,2) capped
    assert results[-1] == {"mark_delete": [1, 1], "acked": [], "batch": [], "properties": {"p": 1}}
    assert _run("pulsar-master", KEPT_BY_THE_RELEASE, config=CAPPED) == {}
    moved_on = {"mark_delete": [1, 2], "acked": [], "batch": [], "properties": {"p": 1}}
    found = _run("pulsar-master", KEPT_BY_THE_RELEASE, moved_on, config=CAPPED)
    assert "CURSOR-MODEL" in found
    assert "CURSOR-NO-PHANTOM-ACK" not in found
    too_far = {**moved_on, "mark_delete": [1, 3]}
    found = _run("pulsar-master", KEPT_BY_THE_RELEASE, too_far, config=CAPPED)
    assert "mark-delete (1, 3) (highest ever (1, 1))" in found["CURSOR-NO-PHANTOM-ACK"]


def test_held_means_judged_on_some_step_not_merely_never_contradicted():
    """An invariant counts as checked only on a step its check judges: the recovery invariants only once
    a recovery happened (else a PASS would say "held" of what no step tested)."""
    from ledgerspec.conformance.cursor_state import CursorStateAdapter
    from ledgerspec.conformance.cursor_state._machine import CURSOR_STATE, make_cursor_machine
    from ledgerspec.conformance.lockstep._engine import LockstepRun

    run = LockstepRun(CURSOR_STATE, lambda: CursorStateAdapter("pulsar-master"), "pulsar-master")
    machine = make_cursor_machine(run)()
    machine.start(CursorConfig())
    for op in (Ack(ledger=1, entry=1), Persist(value=0), Confirm()):
        machine.do(op)
    recovery = {
        "CURSOR-RECOVER-ACKNOWLEDGED",
        "CURSOR-NO-ACK-LOSS",
        "CURSOR-MARK-DELETE-MONOTONE",
        "CURSOR-NO-PHANTOM-ACK",
    }
    assert run.checked == {"CURSOR-MODEL", "CURSOR-CALLBACK-ONCE", "CURSOR-WRITES"}
    machine.do(Crash(keep=0))
    machine.do(Recover())
    assert recovery <= run.checked


# A newer write within the cap: the long array (max_ranges 1) keeps ledger 1's one entry and cuts ledger 2, so
# persist 2, durable but never acknowledged, loses (2,0) that persist 1 was acknowledged with. Pulsar's cap does
# that by design; CURSOR-NO-ACK-LOSS accepts it exactly, and flags anything else that loses it.
CAP_IN_A_NEWER_WRITE = (
    Ack(ledger=2, entry=0),
    Persist(value=0),
    Confirm(),
    Confirm(),
    Ack(ledger=1, entry=2),
    Persist(value=1),
    Crash(keep=1),
    Recover(),
)
ONE_RANGE = CursorConfig(chunk_size=8, max_entry_size=40, max_ranges=1, long_array=True, batch_size=2)


def test_a_newer_write_cut_by_the_cap_is_no_ack_loss_but_a_state_no_write_holds_is():
    assert _run("pulsar-master", CAP_IN_A_NEWER_WRITE, config=ONE_RANGE) == {}
    lost_more = {"mark_delete": [1, -1], "acked": [], "batch": [], "properties": {"p": 1}}
    found = _run("pulsar-master", CAP_IN_A_NEWER_WRITE, lost_more, config=ONE_RANGE)
    assert "entries [(2, 0)]" in found["CURSOR-NO-ACK-LOSS"]


# An unreadable entry rolls recovery back to the record's mark-delete position (data lost beyond BookKeeper's
# guarantees). What later recoveries must keep is then that state, not persist 2's, acknowledged before the loss.
AFTER_A_LOSS = (
    Persist(value=0),
    Confirm(),
    Confirm(),
    MarkDelete(ledger=1, entry=0),
    Persist(value=0),
    Confirm(),
    Crash(keep=0),
    Unreadable(),
    Recover(),
    Persist(value=0),
    Confirm(),
    Crash(keep=0),
    Recover(),
)


def test_after_a_recovery_that_lost_data_the_state_it_gave_back_is_the_floor():
    """Without the floor, the profile's own answers break CURSOR-MARK-DELETE-MONOTONE here: persist 2 (mark-delete
    (1,0)) was acknowledged before the loss, and the recovery after it gives back the rolled-back (1,-1)."""
    assert _run("pulsar-master", AFTER_A_LOSS, config=CursorConfig(max_entry_size=1000)) == {}
    model = init("pulsar-master", CursorConfig(max_entry_size=1000))
    for op in AFTER_A_LOSS[:9]:
        model, _ = step(model, op)
    assert model.floor == (2, model.memory)
    assert model.acknowledged == 2
