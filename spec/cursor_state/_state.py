"""A managed cursor's acknowledgement state, as ``ManagedCursorImpl`` keeps it in memory.

The mark-delete position, the individually acknowledged entries after it (the "ack holes" are the
entries not in that set), the batch indexes still unacknowledged in partly acknowledged entries, and
the mark-delete properties. Positions are ``(ledger, entry)``; ``(ledger, -1)`` is "before the first
entry of the ledger". Everything here is a pure function of frozen values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import groupby

Position = tuple[int, int]
BatchSets = tuple[tuple[Position, frozenset[int]], ...]
"""Batch sets by position, in position order."""


@dataclass(frozen=True)
class AckState:
    """What recovery must give back: ``PositionInfo`` fields 1-6 in abstract form."""

    mark_delete: Position
    acked: frozenset[Position] = frozenset()
    """Individually deleted entries, all after ``mark_delete`` (``individualDeletedMessages``)."""
    batch: BatchSets = ()
    """Partly acknowledged batch entries and their still-unacknowledged indexes, in position order."""
    properties: tuple[tuple[str, int], ...] = ()
    """Mark-delete properties (``LongProperty``), sorted by name."""

    def is_acked(self, position: Position) -> bool:
        """The entry needs no redelivery: at or before the mark-delete position, or deleted on its own."""
        return position <= self.mark_delete or position in self.acked

    def runs(self) -> list[tuple[Position, Position]]:
        """``forEachRawRange``: maximal runs of acked entries per ledger as open-closed ranges (lower, upper].

        A run never crosses ledgers; its lower end is the entry before the first acked one.
        """
        out: list[tuple[Position, Position]] = []
        for ledger, group in groupby(sorted(self.acked), key=lambda p: p[0]):
            entries = [entry for _, entry in group]
            start = previous = entries[0]
            for entry in entries[1:]:
                if entry != previous + 1:
                    out.append(((ledger, start - 1), (ledger, previous)))
                    start = entry
                previous = entry
            out.append(((ledger, start - 1), (ledger, previous)))
        return out

    def to_dict(self) -> dict[str, object]:
        """Plain data, in a stable order (for reports, JSON and case files)."""
        return {
            "mark_delete": list(self.mark_delete),
            "acked": [list(p) for p in sorted(self.acked)],
            "batch": [[list(p), sorted(indexes)] for p, indexes in self.batch],
            "properties": dict(self.properties),
        }


def initial(mark_delete: Position) -> AckState:
    """A new cursor: nothing acknowledged after ``mark_delete``."""
    return AckState(mark_delete)


def _advance(state: AckState) -> AckState:
    """``setAcknowledgedPosition``'s loop: a run starting right after the mark-delete position advances it.

    The mark-delete position moves to the run's end, within the ledger: the spec's runs never cross one (Pulsar's
    loop would step into the next ledger through ``getNextValidPosition``; the cursor-state-managed-cursor harness
    keeps the last entry of each ledger unacknowledged, so it never does).
    """
    ledger, entry = state.mark_delete
    end = entry
    while (ledger, end + 1) in state.acked:
        end += 1
    if end == entry:
        return state
    return remove_at_most(state, (ledger, end))


def remove_at_most(state: AckState, position: Position) -> AckState:
    """The mark-delete position moves to ``position`` (never back).

    Everything at or before it is forgotten (``removeAtMost``), batch sets included.
    """
    mark = max(state.mark_delete, position)
    return replace(
        state,
        mark_delete=mark,
        acked=frozenset(p for p in state.acked if p > mark),
        batch=tuple((p, s) for p, s in state.batch if p > mark),
    )


def mark_delete(state: AckState, position: Position) -> AckState:
    """A cumulative acknowledgement up to ``position``: ``removeAtMost``, then on over the run after it.

    ``setAcknowledgedPosition`` (managed-ledger 4.0.8 and 4.2.4, ``ManagedCursorImpl``) moves the new position to
    the upper end of ``individualDeletedMessages.rangeContaining`` the next entry while that entry is acknowledged:
    the same acknowledged set as stopping at ``position``, in the one form the cursor ever holds.
    """
    return _advance(remove_at_most(state, position))


def ack(state: AckState, position: Position) -> AckState:
    """``asyncDelete`` of a whole entry.

    Acknowledged, its batch set dropped, the mark-delete position advanced over a run that now starts right after it.
    """
    if state.is_acked(position):
        return state
    acked = replace(
        state,
        acked=state.acked | {position},
        batch=tuple((p, s) for p, s in state.batch if p != position),
    )
    return _advance(acked)


def ack_index(state: AckState, position: Position, index: int, batch_size: int) -> AckState:
    """A batch-index acknowledgement.

    The index leaves the entry's unacknowledged set (the stored set AND the incoming one); an empty set
    acknowledges the whole entry.
    """
    if state.is_acked(position):
        return state
    sets = dict(state.batch)
    remaining = sets.get(position, frozenset(range(batch_size))) - {index}
    if not remaining:
        return ack(state, position)
    sets[position] = remaining
    return replace(state, batch=tuple(sorted(sets.items())))


def with_unsettled(state: AckState, unsettled: BatchSets) -> AckState:
    """The state a persist writes: its batch sets and the unsettled ones at or before its mark-delete position."""
    return replace(state, batch=tuple(sorted((*unsettled, *state.batch))))


def settle(state: AckState) -> tuple[AckState, BatchSets]:
    """A written state split into what it holds acknowledged and the unsettled batch sets it carries.

    Recovery restores every batch set of the entry (``recoverBatchDeletedIndexes``); those at or before
    the mark-delete position change nothing acknowledged and stay unsettled until a persist completes.
    """
    mark = state.mark_delete
    return (
        replace(state, batch=tuple((p, s) for p, s in state.batch if p > mark)),
        tuple((p, s) for p, s in state.batch if p <= mark),
    )


def with_properties(state: AckState, properties: dict[str, int]) -> AckState:
    """The mark-delete properties a persist carries."""
    return replace(state, properties=tuple(sorted(properties.items())))


def acked_positions(state: AckState, universe: list[Position]) -> frozenset[Position]:
    """The positions of ``universe`` that ``state`` holds acknowledged (for the safety checks)."""
    return frozenset(p for p in universe if state.is_acked(p))
