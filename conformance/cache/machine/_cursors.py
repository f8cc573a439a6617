"""Where the lockstep machine moves a cursor, and which cursor it counts after the move.

A cursor container keeps its cursors in position order and, in Pulsar, a counter per position group
(``ActiveManagedCursorContainerImpl``): its special cases sit at the ends of that order (the head is
the slowest position, what invalidation uses; the tail has no next node) and at the groups a move
leaves or joins. A move drawn at random seldom hits an end cursor joining or leaving a group, and a
count drawn at random seldom asks a member of that group right after. These two choices aim there;
R2 in DEVIATIONS.md (managed-ledger 4.2.4) is a bug of exactly that shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, consumes, multiple, precondition, rule
from ledgerspec.spec.cache import CursorAdd, CursorCount, CursorRemove, CursorSeek, Insert

if TYPE_CHECKING:
    from ledgerspec.conformance.cache.machine._core import Run


def edge_move(
    positions: dict[tuple[int, str], int], ledger: int, edge: str, join: bool
) -> tuple[tuple[int, str], int] | None:
    """The ledger's fastest (slowest) cursor and where it goes; None with fewer than two cursors.

    It goes onto its nearest neighbour's position (``join``) or one entry further from the others.

    Among cursors at one position the last added counts as the last in order, as Pulsar's list keeps
    them in insertion order.
    """
    mine = [(at, order, key) for order, (key, at) in enumerate(positions.items()) if key[0] == ledger]
    if len(mine) < 2:
        return None
    mine.sort()
    if edge == "fastest":
        at, _, key = mine[-1]
        return key, mine[-2][0] if join else at + 1
    at, _, key = mine[0]
    return key, mine[1][0] if join else max(at - 1, 0)


def recount(positions: dict[tuple[int, str], int], moved: tuple[int, str], left: int) -> tuple[int, str]:
    """The cursor counted after ``moved`` left ``left``: one of the group it joined, else it left, else itself."""
    ledger, here = moved[0], positions[moved]
    for at in (here, left):
        for key, position in positions.items():
            if key[0] == ledger and key != moved and position == at:
                return key
    return moved


def cursor_rules(run: Run, ledgers: st.SearchStrategy[int], entries: st.SearchStrategy[int]) -> type:  # noqa: C901 - a rule class: its nested functions count here
    """A mixin with the cursor rules (if the adapter claims cursors); the machine gives ``step``, ``tick``."""
    preset = run.preset
    can = run.info.capabilities.__contains__

    class CursorRules:
        """Consumers connecting, moving, leaving, and the container's count of each."""

        cursors = Bundle("cursors")

        @precondition(lambda _self: can("cursors"))
        @rule(target=cursors, ledger=ledgers, entry=entries, beside=st.booleans(), pick=st.integers(0, 7))
        def cursor_add(self: Any, ledger: int, entry: int, beside: bool, pick: int) -> Any:
            """A consumer connects; half of the time (``beside``) at a cursor's position, and counted there.

            ``cursor_count`` alone lost its share of steps to every rule added.
            """
            if beside := beside and bool(self.cursor_positions):
                ledger, name = sorted(self.cursor_positions)[pick % len(self.cursor_positions)]
                entry = self.cursor_positions[ledger, name]
            cursor = self.connect(ledger, entry)
            if beside:
                self.step(CursorCount(now=self.tick(), ledger=ledger, cursor=cursor[1]))
            return cursor

        @precondition(lambda _self: can("cursors"))
        @rule(
            target=cursors,
            ledger=ledgers,
            entry=entries,
            crowd=st.integers(3, 5),
            ahead=st.booleans(),
            edge=st.sampled_from(["fastest", "slowest"]),
            join=st.booleans(),
        )
        def cursor_group(self: Any, ledger: int, entry: int, crowd: int, ahead: bool, edge: str, join: bool) -> Any:
            """Consumers at one position, an end cursor of the ledger moving, counted before and after.

            ``crowd`` cursors at ``entry`` (and, ``ahead``, one just past it), counted; then the
            ledger's fastest or slowest cursor joins its neighbour or moves away. Subscriptions often
            share a position (all at the tail, say). A container that keeps a counter per position
            group (Pulsar's) needs several cursors in one ledger, a move at an end of its order and a
            count in the group it touched to show its bookkeeping; left to the separate rules, a ci
            search met that a couple of times per run, half of them with ``track_reads`` off (counts 0).
            """
            added = [self.connect(ledger, entry) for _ in range(crowd)]
            if ahead:
                added.append(self.connect(ledger, entry + 1))
            self.step(CursorCount(now=self.tick(), ledger=ledger, cursor=added[-1][1]))
            moved = edge_move(self.cursor_positions, ledger, edge, join)
            if moved is not None:
                self.move(*moved, again=True)
            return multiple(*added)

        @precondition(lambda _self: can("cursors"))
        @rule(cursor=consumes(cursors))
        def cursor_remove(self: Any, cursor: tuple[int, str]) -> None:
            """A consumer disconnects."""
            if cursor in self.cursor_positions:
                self.step(CursorRemove(now=self.tick(), ledger=cursor[0], cursor=cursor[1]))
                del self.cursor_positions[cursor]

        @precondition(lambda _self: can("cursors"))
        @rule(
            cursor=cursors,
            entry=entries,
            onto=st.one_of(st.none(), cursors),
            hold=st.booleans(),
            edge=st.sampled_from([None, None, "fastest", "slowest"]),
            again=st.booleans(),
        )
        def cursor_seek(
            self: Any,
            cursor: tuple[int, str],
            entry: int,
            onto: tuple[int, str] | None,
            hold: bool,
            edge: str | None,
            again: bool,
        ) -> None:
            """A cursor moves on (or is rewound), to a position or onto another cursor of its ledger.

            ``hold``: another cursor (a new subscription at this one's position, if there is none)
            holds the ledger's slowest position, the moved one goes on to it or past it, and an entry
            below that position is read first (by a reader the container does not track): where a move
            that leaves the slowest alone must not invalidate shows. ``edge``: the ledger's fastest or
            slowest cursor moves instead, onto its neighbour (``onto`` drawn) or away from the others.
            ``again``: counted before and after the move (``move``).
            """
            moved = edge_move(self.cursor_positions, cursor[0], edge, onto is not None) if edge else None
            if moved is not None:
                (cursor, entry), onto, hold = moved, None, False
            if onto is not None and onto[0] == cursor[0] and onto in self.cursor_positions:
                entry = self.cursor_positions[onto]
            others = [at for key, at in self.cursor_positions.items() if key[0] == cursor[0] and key != cursor]
            if hold and cursor in self.cursor_positions and "insert" not in run.exclude:
                if not others:
                    others = [self.cursor_positions[cursor]]
                    self.connect(cursor[0], others[0])
                slowest = min(others)
                entry = max(entry, slowest, self.cursor_positions[cursor])
                if slowest > 0:
                    size = min(preset.sizes)
                    self.step(Insert(now=self.tick(), ledger=cursor[0], entry=slowest - 1, size=size, expected_reads=0))
            if cursor in self.cursor_positions:
                self.move(cursor, entry, again=again)

        @precondition(lambda _self: can("cursors"))
        @rule(cursor=cursors)
        def cursor_count(self: Any, cursor: tuple[int, str]) -> None:
            """getNumberOfCursorsAtSamePositionOrBefore, also after the cursor is gone (0)."""
            self.step(CursorCount(now=self.tick(), ledger=cursor[0], cursor=cursor[1]))

        def connect(self: Any, ledger: int, entry: int) -> tuple[int, str]:
            """A new cursor of ``ledger`` at ``entry``."""
            self.serial += 1
            cursor = (ledger, f"c{self.serial}")
            self.step(CursorAdd(now=self.tick(), ledger=ledger, cursor=cursor[1], entry=entry))
            self.cursor_positions[cursor] = entry
            return cursor

        def move(self: Any, cursor: tuple[int, str], entry: int, *, again: bool) -> None:
            """``cursor`` seeks ``entry``; ``again``: counted before, and a member of its new or old group after.

            So the container's update for this one move is what shows (``recount``).
            """
            left = self.cursor_positions[cursor]
            if again:
                self.step(CursorCount(now=self.tick(), ledger=cursor[0], cursor=cursor[1]))
            self.step(CursorSeek(now=self.tick(), ledger=cursor[0], cursor=cursor[1], entry=entry))
            self.cursor_positions[cursor] = entry
            if again:
                asked = recount(self.cursor_positions, cursor, left)
                self.step(CursorCount(now=self.tick(), ledger=asked[0], cursor=asked[1]))

    return CursorRules
