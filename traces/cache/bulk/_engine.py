"""The replay of one broker's events: the bulk shadow, and every chosen invariant's accelerator over it.

Both trace checkers run one :class:`Replay` per broker over its events in ``seq`` order (that is
the partition of every check: see each invariant's ``soundness``), and the conformance monitor runs
one over the events it derives from each observed step. Events are fed in chunks; a chunk is cut
into segments that end at each ``config`` event (so a segment has one configuration) and after every
:data:`PASSES_PER_SEGMENT` ``pass_end`` events (each pass's check rebuilds the cache right after it from
the segment's events before it); a segment's facts are computed with
numpy (``_facts.py``), its checks run, and its effects are carried on (``_commit.py``). Memory is
bounded by the live entries, open copies and their handlers, not by the length of the trace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from ledgerspec.spec._errors import ConfigError
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._events import (
    APPEND,
    CONFIG,
    CONFIG_FIELDS,
    CURSOR_ADD,
    CURSOR_COUNT,
    CURSOR_READ,
    CURSOR_REMOVE,
    CURSOR_SEEK,
    PASS_END,
    PASS_KINDS,
    PASS_START,
    REQUEUE,
    SIZE_LIKE,
)
from ledgerspec.spec.cache._normative import Finding, TraceStructureError
from ledgerspec.spec.cache._observation import Observation
from ledgerspec.spec.cache._shadow import CountDifference
from ledgerspec.spec.cache.invariants._declare import Invariant
from ledgerspec.traces.cache.bulk._chunk import NULL, Chunk, Ints
from ledgerspec.traces.cache.bulk._commit import collect_passes, commit, entries_after, handlers_at
from ledgerspec.traces.cache.bulk._facts import (
    Carried,
    Facts,
    Flavour,
    OpenPass,
    StructureError,
    compute,
    mark_inexact,
)
from ledgerspec.traces.cache.bulk._queue import Heads, heads_after
from ledgerspec.traces.cache.bulk._state import NARROW_ENTRY, NARROW_LEDGER, LiveTable, find
from ledgerspec.traces.cache.bulk._views import Accelerator, EndView, EventsView, PassView, op_name, table_counts

_INT_CONFIG = {"max_size", "ttl", "ttl_max", "max_requeue"}
PASSES_PER_SEGMENT = 64
"""A segment ends after this many pass ends: each pass end rebuilds the state it judges from the
segment's events before it, so many passes in a long segment would cost their product."""


class Replay:
    """Replays one broker's events and collects the violations of the chosen invariants."""

    def __init__(
        self,
        broker: str,
        profile: str,
        config: CacheConfig,
        invariants: Iterable[Invariant],
        *,
        keep: int | None = 100,
        track_shown: bool = False,
    ) -> None:
        """Accelerator ``invariants`` (those with a check); keep the first ``keep`` findings of each (None: all)."""
        self.broker = broker
        self.profile = profile
        self.flavour = Flavour(profile)
        self.carried = Carried(config=config)
        self.enabled = config.max_size > 0
        from ledgerspec.traces.cache.bulk.accelerators import ACCELERATORS  # noqa: PLC0415 - they import this module

        self.checks: list[tuple[str, Accelerator]] = [
            (i.id, ACCELERATORS[i.id]) for i in invariants if i.id in ACCELERATORS
        ]
        self.keep = keep
        self.counts: dict[str, int] = {}
        self.findings: list[Finding] = []
        self._wide: dict[tuple[int, int], int] = {}
        self.scratch: dict[str, object] = {}
        """Each check's own state for this broker (``EventsView.state``)."""
        self.shown: set[int] = set()
        """Handlers whose count an event of the last chunk showed."""
        self._feed_base = 0
        self.track_shown = track_shown
        """Remember :attr:`shown` (the monitor does, for :meth:`count_differences`)."""

    # --- input ---------------------------------------------------------------------------------------

    def keys(self, c: Chunk) -> Ints:
        """One int64 per position: ``ledger << 32 | entry`` when it fits, else a negative id of its own."""
        ledger, entry = c.ledger, c.entry
        narrow = (ledger >= 0) & (ledger < NARROW_LEDGER) & (entry >= 0) & (entry < NARROW_ENTRY)
        keys = np.where(narrow, (np.where(narrow, ledger, 0) << 32) | np.where(narrow, entry, 0), NULL)
        for i in np.flatnonzero(~narrow & (ledger != NULL) & (entry != NULL)).tolist():
            position = (int(ledger[i]), int(entry[i]))
            keys[i] = self._wide.setdefault(position, -2 - len(self._wide))
        return keys

    def feed(self, c: Chunk) -> None:
        """Replay a chunk of the broker's events (the next ones in ``seq`` order)."""
        self.shown = set()
        self._feed_base = self.carried.base
        if not len(c):
            return
        keys = self.keys(c)
        passes = np.flatnonzero(c.kind == PASS_END)[PASSES_PER_SEGMENT - 1 :: PASSES_PER_SEGMENT]
        ends = np.union1d(np.flatnonzero(c.kind == CONFIG), passes) + 1
        start = 0
        for end in [*ends.tolist(), len(c)]:
            if end > start:
                self._segment(c.part(start, end), keys[start:end])
            start = end

    def count_differences(self, seen: Observation, copy_positions: dict[int, tuple[int, int]]) -> list[CountDifference]:
        """Counts an observation shows that differ from the shadow's, on handlers no event just showed.

        Events show a handler's count where they can (a release, a removal seen through a copy); an
        observation shows every entry's and every open copy's. The monitor checks the rest with this.
        """
        carried = self.carried
        hids, counts = carried.handlers.hid, carried.handlers.count
        differences = []
        by_key = {
            (int(lg), int(en)): int(h)
            for lg, en, h in zip(carried.table.ledger, carried.table.entry, carried.table.handler, strict=True)
        }
        open_copies = dict(zip(carried.copies.copy.tolist(), carried.copies.handler.tolist(), strict=True))
        members = [(f"entry {e.position}", e.position, by_key.get(e.position), e.count) for e in seen.entries]
        members += [
            (f"copy {copy}", copy_positions.get(copy, (-1, -1)), open_copies.get(copy), count)
            for copy, count in seen.copies
        ]
        for member, position, handler, observed in members:
            if handler is None or handler in self.shown or handler >= self._feed_base:
                continue  # shown by an event, or made by this step (its insert is judged on its own)
            at = np.flatnonzero(hids == handler)
            expected = int(counts[at[0]]) if handler >= 0 and len(at) and counts[at[0]] != NULL else None
            if observed != expected:
                owner = position
                if len(at):
                    owner = (int(carried.handlers.ledger[at[0]]), int(carried.handlers.entry[at[0]]))
                differences.append(CountDifference(member, owner, observed, expected))
        return differences

    def resync(self, seen: Observation) -> None:
        """Take the counts an observation shows as the shadow's (the monitor, after each step)."""
        carried = self.carried
        updates: dict[int, int] = {}  # None (not shown) makes the count unknown: NULL
        by_key = {
            (int(lg), int(en)): int(h)
            for lg, en, h in zip(carried.table.ledger, carried.table.entry, carried.table.handler, strict=True)
        }
        for entry in seen.entries:
            handler = by_key.get(entry.position, -1)
            if handler >= 0:
                updates[handler] = NULL if entry.count is None else entry.count
        open_copies = dict(zip(carried.copies.copy.tolist(), carried.copies.handler.tolist(), strict=True))
        for copy, count in seen.copies:
            handler = open_copies.get(copy, -1)
            if handler >= 0:
                updates.setdefault(handler, NULL if count is None else count)
        if updates:
            hids = np.fromiter(updates, np.int64)
            found, at = find(carried.handlers.hid, hids)
            carried.handlers.count[at[found]] = np.fromiter(updates.values(), np.int64)[found]

    def finish(self) -> str | None:
        """End of the broker's events: why the verdict cannot be complete, or None.

        A pass left open, or an event only a later one judges (each check's :meth:`Accelerator.finish`).
        """
        reasons = []
        open_pass = self.carried.open_pass
        if open_pass is not None:
            reasons.append(f"the trace ends inside a {PASS_KINDS[open_pass.kind]} pass")
        view = EndView(self.profile, self.carried.config, self.carried.table, self.scratch)
        for invariant, check in self.checks:
            view.invariant = invariant
            reason = check.finish(view)
            if reason:
                reasons.append(f"{invariant}: {reason}")
        return f"broker {self.broker!r}: " + "; ".join(reasons) if reasons else None

    # --- one segment ---------------------------------------------------------------------------------

    def _segment(self, c: Chunk, keys: Ints) -> None:
        carried = self.carried
        try:
            facts = compute(c, keys, carried, self.flavour)
        except StructureError as error:
            i = error.index
            raise TraceStructureError(self.broker, int(c.seq[i]), int(c.row[i]), str(error)) from None
        ends = np.flatnonzero(c.kind == PASS_END)
        heads = heads_after(c, facts, carried, ends) if len(ends) else None
        inexact = self._may_have_gone_round(c, facts, ends, heads)
        sink = self._sink(c)
        view = EventsView(
            self.profile,
            carried.config,
            c,
            facts,
            *self._cursors(c),
            sink,
            carried.copies,
            carried.handlers,
            carried.table,
            self.enabled,
            self.scratch,
            lambda limit, ledger: entries_after(c, facts, carried, limit, ledger),
            self._report,
        )
        for invariant, check in self.checks:
            view.invariant = invariant
            check.events(view)
        if self.track_shown:
            self.shown.update(facts.touched[(facts.touched >= 0) & (facts.shown != NULL)].tolist())
        collect_passes(c, facts)
        if heads is not None:
            for number, index in enumerate(ends.tolist()):
                ended = facts.passes[int(facts.pass_index[index])]
                self._pass_end(c, facts, ended, index, int(heads.enter[number]), int(heads.oldest[number]))
        commit(c, facts, carried, inexact)
        last = len(c) - 1
        if c.kind[last] == CONFIG:
            try:
                self._configure(CONFIG_FIELDS[int(c.reason[last])], float(c.value[last]))
            except ConfigError as error:  # a value valid alone, not with the fields already set
                raise TraceStructureError(self.broker, int(c.seq[last]), int(c.row[last]), str(error)) from None

    def _may_have_gone_round(self, c: Chunk, facts: Facts, ends: Ints, heads: Heads | None) -> Ints:
        """Keys requeued by a size pass that reached every entry: their requeue counts are lower bounds.

        Such a pass may have gone round the queue, requeueing some entries more than once, which
        looks like one requeue from outside. Marked in the facts of later events of the segment too,
        and for the pass's requeues in earlier segments (a chunk may end inside a pass).
        """
        if heads is None or not self.flavour.master:
            return np.zeros(0, np.int64)
        rounds = [
            int(facts.pass_index[index])
            for number, index in enumerate(ends.tolist())
            if facts.passes[int(facts.pass_index[index])].kind in SIZE_LIKE
            and (heads.enter[number] == NULL or heads.enter[number] >= facts.passes[int(facts.pass_index[index])].rank)
        ]
        if not rounds:
            return np.zeros(0, np.int64)
        requeued = (c.kind == REQUEUE) & facts.live & np.isin(facts.pass_index, rounds)
        ended = {int(facts.pass_index[index]): index for index in ends.tolist()}
        earlier = [  # what these passes requeued before this segment
            (table.key, ended[index]) for index in rounds for table in facts.passes[index].requeued
        ]
        mark_inexact(facts, requeued, ends, earlier)
        keys: Ints = np.concatenate([facts.key[requeued], *(keys for keys, _ in earlier)])
        return keys

    def _sink(self, c: Chunk) -> Callable[[str, int, str, tuple[int, int] | None], None]:
        def sink(invariant: str, i: int, message: str, first: tuple[int, int] | None = None) -> None:
            self._report(invariant, int(c.seq[i]), int(c.row[i]), message, first)

        return sink

    def _report(self, invariant: str, seq: int, row: int, message: str, first: tuple[int, int] | None = None) -> None:
        """Count a violation of ``invariant`` at the event (seq, row), and keep it among the first ``keep``.

        ``first``: the (seq, row) of an earlier event where the divergence it shows began (:class:`Finding`).
        """
        count = self.counts.get(invariant, 0) + 1
        self.counts[invariant] = count
        if self.keep is None or count <= self.keep:
            self.findings.append(Finding(invariant, self.broker, seq, row, message, first))

    def _pass_end(self, c: Chunk, facts: Facts, ended: OpenPass, index: int, head: int, oldest: int) -> None:
        carried = self.carried
        removed = _concat(ended.removed)
        counts = np.concatenate(ended.counts) if ended.counts else np.zeros(0, np.int64)
        requeued = _concat(ended.requeued)
        requeued_counts = np.concatenate(ended.requeued_counts) if ended.requeued else np.zeros(0, np.int64)
        sink = self._sink(c)

        def entries(ledger: int | None, below: int | None) -> LiveTable:
            return entries_after(c, facts, carried, index + 1, ledger, below)

        def counts_of(table: LiveTable) -> Ints:
            handlers = handlers_at(c, facts, carried, index, table)
            return table_counts(table, handlers.hid, handlers.count)

        view = PassView(
            profile=self.profile,
            config=carried.config,
            kind=ended.kind,
            now=ended.now,
            rank=ended.rank,
            ledger=ended.ledger,
            entry=ended.entry,
            value=ended.value,
            before=ended.before,
            after=int(c.size[index]),
            removed=removed,
            removed_counts=counts,
            requeued=requeued,
            requeued_counts=requeued_counts,
            head_enter=None if head == NULL else head,
            oldest_ts=None if oldest == NULL else oldest,
            load_entries=entries,
            load_counts=counts_of,
            label=c.label if c.label is not None else op_name(ended.kind, ended.ledger, ended.entry, -1),
            sink=lambda invariant, message: sink(invariant, index, message, None),
            scratch=self.scratch,
        )
        for invariant, check in self.checks:
            view.invariant = invariant
            check.pass_end(view)

    def _configure(self, name: str, value: float) -> None:
        config = self.carried.config
        if name in ("extend_ttl", "track_reads"):
            self.carried.config = config.replace(**{name: bool(value)})
        elif name in _INT_CONFIG:
            self.carried.config = config.replace(**{name: int(value)})
        elif name in CONFIG_FIELDS:
            self.carried.config = config.replace(**{name: value})

    def _cursors(self, c: Chunk) -> tuple[Ints, Ints]:
        """Per event, the cursors it counts, and its ledger's slowest active cursor after it.

        A ``cursor_count`` counts what ``getNumberOfCursorsAtSamePositionOrBefore`` must answer: the
        active cursors of the ledger at or before the cursor's position, itself included; 0 if it is not
        active (``_base.cursors_at_or_before``); a ``cursor_read`` counts the same for its reader. An
        ``append`` counts the active cursors of its ledger (who will read it), a ``cursor_remove`` the
        cursor itself if it was active (1, else 0). The slowest active read
        position (NULL: none active) is given for cursor events and for a ``pass_start`` naming a cursor
        (its invalidation). NULL elsewhere. Per ledger, the positions of its cursors after each of its
        events are a small matrix (cursors by events, filled forward); a count compares one of its
        columns with one cursor's position, a slowest is a column's least.
        """
        expected, after = np.full(len(c), NULL, np.int64), np.full(len(c), NULL, np.int64)
        cursor_passes = (c.kind == PASS_START) & (c.cursor >= 0)
        others = cursor_passes | (c.kind == APPEND) | (c.kind == CURSOR_READ)
        at = np.flatnonzero(((c.kind >= CURSOR_ADD) & (c.kind <= CURSOR_COUNT)) | others)
        if not len(at):
            return expected, after
        ledgers = c.ledger[at]
        for ledger in np.unique(ledgers).tolist():
            mine = at[ledgers == ledger]
            known = self.carried.cursors.setdefault(ledger, {})
            codes = c.cursor[mine]
            names = list(dict.fromkeys([*known, *(c.cursor_names[k] for k in np.unique(codes[codes >= 0]).tolist())]))
            if len(names) * (len(mine) + 1) > _CURSOR_CELLS:
                _cursor_walk(c, mine, known, expected, after)
                continue
            column = {name: row for row, name in enumerate(names)}
            rows = np.array([column[c.cursor_names[k]] if k >= 0 else 0 for k in codes.tolist()], np.int64)
            kinds = c.kind[mine]
            counts, appends = (kinds == CURSOR_COUNT) | (kinds == CURSOR_READ), kinds == APPEND
            moves = ~counts & ~appends & (kinds != PASS_START)
            values = np.where(kinds == CURSOR_REMOVE, _GONE, c.entry[mine])
            marks = np.zeros((len(names), len(mine) + 1), np.int64)
            steps = np.flatnonzero(moves)
            marks[rows[steps], steps + 1] = steps + 1
            last = np.maximum.accumulate(marks, axis=1)
            start = np.array([known.get(name, _GONE) for name in names], np.int64)
            filled = np.where(last == 0, start[:, None], np.r_[0, values][last])
            asked = np.flatnonzero(counts)
            where = filled[rows[asked], asked]
            answers = np.where(where == _GONE, 0, (filled[:, asked] <= where).sum(axis=0))
            expected[mine[asked]] = answers
            expected[mine[appends]] = (filled[:, np.flatnonzero(appends)] != _GONE).sum(axis=0)
            removes = np.flatnonzero(kinds == CURSOR_REMOVE)
            expected[mine[removes]] = filled[rows[removes], removes] != _GONE
            least = filled[:, 1:].min(axis=0, initial=_GONE)
            after[mine] = np.where(least == _GONE, NULL, least)
            for name, position in zip(names, filled[:, -1].tolist(), strict=True):
                if position == _GONE:
                    known.pop(name, None)
                else:
                    known[name] = position
        return expected, after


def _cursor_walk(c: Chunk, at: Ints, cursors: dict[str, int], expected: Ints, slowest: Ints) -> None:
    """The cursor events ``at`` of one ledger one by one (for a ledger with very many cursors)."""
    kinds, entries, codes = c.kind[at].tolist(), c.entry[at].tolist(), c.cursor[at].tolist()
    for index, kind, entry, code in zip(at.tolist(), kinds, entries, codes, strict=True):
        name = c.cursor_names[code] if code >= 0 else ""
        if kind in (CURSOR_SEEK, CURSOR_ADD):
            cursors[name] = entry
        elif kind == CURSOR_REMOVE:
            expected[index] = int(cursors.pop(name, None) is not None)
        elif kind in (CURSOR_COUNT, CURSOR_READ):
            where = cursors.get(name)
            expected[index] = 0 if where is None else sum(position <= where for position in cursors.values())
        elif kind == APPEND:
            expected[index] = len(cursors)
        slowest[index] = min(cursors.values(), default=NULL)


_GONE = np.iinfo(np.int64).max
"""An inactive cursor's position: above every position, so it counts for no one."""
_CURSOR_CELLS = 4_000_000
"""Above this many cells (cursors x events of a ledger in a segment) the cursor events are walked."""


def _concat(tables: list[LiveTable]) -> LiveTable:
    if not tables:
        return LiveTable.empty()
    if len(tables) == 1:
        return tables[0]
    names = ("key", "ledger", "entry", "size", "ts", "enter", "handler", "requeues", "exact", "accessed")
    return LiveTable(**{name: np.concatenate([getattr(t, name) for t in tables]) for name in names})


__all__ = ["Replay", "TraceStructureError"]
