"""The cursor-state system's moves outside the search: ``traces record``'s random walk, and what an adapter takes.

Hooks of its ``System`` record (``conformance/cursor_state/_system.py``): the walk makes the same moves
as the conformance machine (``_machine.py``), by the machine's own rule of what an adapter claims.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ledgerspec.conformance.cursor_state._machine import DATA_LEDGERS, FAULTS, FIRST_ENTRIES, SPAN, codecs, sendable
from ledgerspec.spec import cursor_state as cs


def walk(  # noqa: C901 - one branch per move of the conformance machine
    rng: random.Random, profile: str, config: cs.CursorConfig, count: int, capabilities: frozenset[str]
) -> list[Any]:
    """Acks, persists with some completions, faults, crashes and recoveries, as the machine's rules.

    Only operations the adapter claims, by the machine's own rule (``sendable``). Its entry ids start where
    the machine's may (``FIRST_ENTRIES``, drawn first).
    """
    model = cs.init(profile, config)
    ops: list[cs.CursorOp] = []
    faults = [op for op in FAULTS if sendable(op, capabilities)]
    moves = ["ack", "ack", "mark", "persist", "persist", "confirm", *(["fault"] if faults else []), "crash"]

    def do(op: Any) -> Any:
        nonlocal model
        model, answer = cs.step(model, op)
        ops.append(op)
        return answer

    first = rng.choice(FIRST_ENTRIES)
    last = first + SPAN - 1
    while len(ops) < count:
        move = rng.choice(moves)
        if move == "ack":
            ledger, entry = rng.choice(DATA_LEDGERS), rng.randint(first, last)
            do(
                cs.AckIndex(ledger=ledger, entry=entry, index=entry % min(2, config.batch_size))
                if rng.random() < 0.3 and sendable(cs.AckIndex, capabilities)
                else cs.Ack(ledger=ledger, entry=entry)
            )
        elif move == "mark":
            do(cs.MarkDelete(ledger=rng.choice(DATA_LEDGERS), entry=rng.randint(first, last)))
        elif move == "persist":
            do(cs.Persist(value=rng.randint(0, 3)))
            for _ in range(rng.randint(0, 6)):
                do(cs.Confirm())
        elif move == "confirm":
            do(cs.Confirm())
        elif move == "fault":
            do(rng.choice(faults)())
        else:
            do(cs.Crash(keep=rng.randint(0, 3)))
            if rng.random() < 0.2 and sendable(cs.Unreadable, capabilities):
                do(cs.Unreadable())
            if do(cs.Recover()) == "failed":
                break
    return ops


def unclaimed(config: cs.CursorConfig, ops: Sequence[Any], capabilities: frozenset[str]) -> str | None:
    """What of a run an adapter claiming ``capabilities`` does not take, by the machine's rule (None: nothing)."""
    if config.compression not in codecs(capabilities):
        return f"compression {config.compression!r}: the adapter takes only {', '.join(codecs(capabilities))}"
    for number, op in enumerate(ops, 1):
        if not sendable(type(op), capabilities):
            return f"step {number}: {op.kind} needs capability {op.capability!r}"
    return None


def ends(op: Any, result: Any) -> bool:
    """A history ends where a recovery failed: the cursor is gone, as in the conformance machine."""
    return isinstance(op, cs.Recover) and result == "failed"
