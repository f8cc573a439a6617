"""The pure model of a managed cursor persisting its state.

``init(profile, config)`` and ``step(model, op) -> (model, result)``, for the profiles ``pip381``
and ``pulsar-master``.

SPEC.md walks through it with the upstream code paths. In short: a persist writes one entry
(pulsar-master, and pip381 below the chunk size) or chunks and a footer (pip381) to the open cursor
ledger; BookKeeper confirms adds in order; the entry that decides a persist (the single entry or the
footer) completes its callback; a failed add errs the handle and every outstanding add with it, and a
failed persist falls back to the metadata store; with no open ledger a persist first creates a new
one and switches the metadata-store pointer to it. A crash keeps the adds that reached the bookies;
recovery reads the metadata store, then walks back from the last entry (pip381) or reads the last
entry alone (pulsar-master).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

from ledgerspec.spec._errors import OperationError, UnknownProfileError
from ledgerspec.spec.cursor_state import _ops as ops
from ledgerspec.spec.cursor_state import _state as st
from ledgerspec.spec.cursor_state._format import (
    FormatError,
    Layout,
    capped_runs,
    chunks,
    compress,
    decode,
    decompress,
    encode,
    parse_footer,
)
from ledgerspec.spec.cursor_state._state import AckState

PROFILES = ("pip381", "pulsar-master")
QUIRKS = {
    "C2": "recovery from the metadata store restores no batch sets (as pip381's does)",
    "C4": "the range caps of 048142ca's time: max + 1 ranges, the long array cut by the count before a ledger",
    "C5": "a failed first write to a new ledger falls back to the metadata store and, that done, switches to it",
}
"""Behaviours of released code (DEVIATIONS.md, "Cursor state"), by finding, that the model can take on. No profile
has them: conformance replays a real cursor's counterexample under them to tell whether a finding explains it
(``conformance/cursor_state/_real.py``), by what the release answers, not by where the steps go."""
FIRST_CURSOR_LEDGER = 100
START = (1, -1)
"""A new cursor's mark-delete position: before the first entry of the topic's first ledger."""

Result = None | int | list[list[Any]] | dict[str, object] | str
Write = tuple[str, int, int | None, int | None, str | None]
"""A write: (event kind, ledger, entry, bytes, error); ``meta_update`` carries no entry nor bytes."""


@dataclass(frozen=True)
class _Add:
    ledger: int
    data: bytes
    entry: AckState
    """The mark-delete entry written (its position and properties): a failed add persists it to the metadata store."""
    decides: tuple[int, ...] = ()
    """The persists whose callbacks this add completes (the single entry or the footer)."""
    opens: bool = False
    """The last add of a new ledger's first write: confirmed, the metadata store is pointed at the ledger."""


@dataclass
class Model:
    """Everything the cursor, BookKeeper and the metadata store hold (copied on every step)."""

    profile: str
    config: ops.CursorConfig
    quirks: frozenset[str] = frozenset()
    """Release behaviours taken on (:data:`QUIRKS`); none for a profile."""
    memory: AckState | None = field(default_factory=lambda: st.initial(START))
    last_entry: AckState = field(default_factory=lambda: st.initial(START))
    """``lastMarkDeleteEntry``: the position and properties the cursor last marked, which the first write to a new
    cursor ledger carries (``createNewMetadataLedger``); a persist sets it when written, a ``MarkDelete`` clears
    the properties (``markDelete(position)`` passes none), an ``Ack`` takes those of the last waiting persist."""
    unsettled: st.BatchSets = ()
    """Batch sets a mark-delete has covered that the cursor still holds, and writes, until a persist at or
    past them completes (``MarkDeleteEntry.alignAcknowledgeStatusAfterPersisted`` in 4.2.4, the persist
    callback of ``internalMarkDelete`` in 4.0.8): they change no acknowledgement, only the entry's bytes."""
    ledgers: dict[int, list[bytes]] = field(default_factory=dict)
    """Cursor ledgers and their durable (confirmed, or kept by a crash) entries."""
    outstanding: list[_Add] = field(default_factory=list)
    open_ledger: int | None = None
    """The ledger persists append to (state Open); None: NoLedger, a persist creates one first."""
    opening: int | None = None
    """A new ledger whose first write is outstanding; the pointer switches when it is confirmed."""
    queued: list[int] = field(default_factory=list)
    """Persists waiting for the ledger being opened (``pendingMarkDeleteOps``)."""
    meta: tuple[int, AckState] = (-1, st.initial(START))
    """The metadata-store record: ``cursorsLedgerId`` (-1: the state is here) and its state."""
    meta_fails: bool = False
    next_ledger: int = FIRST_CURSOR_LEDGER
    unreadable: set[tuple[int, int]] = field(default_factory=set)
    crashed: bool = False
    # facts the invariants read (spec/cursor_state/invariants.py)
    states: dict[int, AckState] = field(default_factory=dict)
    """Each persist's state as the cursor held it, by number."""
    persists: dict[int, AckState] = field(default_factory=dict)
    """Each persist's state as it is written (what recovery reads back), by number."""
    first_writes: dict[int, tuple[int, AckState]] = field(default_factory=dict)
    """By ledger, what its first write carries (``lastMarkDeleteEntry``, as written) and the number of the persist
    that asked for the ledger: recovery may read it back, a newer complete state; gone with a failed first write."""
    completed: dict[int, bool] = field(default_factory=dict)
    acknowledged: int = 0
    """The newest persist whose callback succeeded (0: none yet; the initial record stands)."""
    floor: tuple[int, AckState] = (0, st.initial(START))
    """After a recovery that lost data (:attr:`lost`): the persists made before it, and the state it gave back.
    Those persists' acknowledgements no longer bind; that state is the one to keep."""
    ever_mark: tuple[int, int] = START
    ever_acked: set[tuple[int, int]] = field(default_factory=set)
    written: list[Write] = field(default_factory=list)
    """The writes this step made, in order: each add (``chunk_write``, ``footer``) and metadata-store
    update (``meta_update``), as a candidate reporting its writes must report them."""

    @property
    def lost(self) -> bool:
        """An entry of the ledger the metadata store points to can no longer be read.

        Recovery may then roll back to the record's mark-delete position (data lost beyond BookKeeper's guarantees).
        """
        return any(ledger == self.meta[0] for ledger, _ in self.unreadable)

    @property
    def layout(self) -> Layout:
        pip381 = self.profile == "pip381"
        old_caps = pip381 or "C4" in self.quirks
        return Layout(
            long_array=pip381 or self.config.long_array,
            max_ranges=self.config.max_ranges,
            range_cap_plus_one=old_caps,
            bits_cap_before=old_caps,
        )

    def now(self, entry: AckState) -> AckState:
        """The state a write of a mark-delete ``entry`` carries when it is made.

        Its position and properties, and the ranges and batch sets (unsettled ones included) the cursor holds
        then: ``persistPositionToLedger`` and ``persistPositionMetaStore`` build them at the write, not when
        the persist was asked for.
        """
        assert self.memory is not None
        held = st.with_unsettled(self.memory, self.unsettled)
        return replace(held, mark_delete=entry.mark_delete, properties=entry.properties)

    def metastore_form(self, state: AckState) -> AckState:
        """``persistPositionToMetaStore``: ranges capped by count and bytes; batch sets kept."""
        acked = {
            (ledger, entry)
            for (ledger, lower), (_, upper) in capped_runs(state, self.layout, metastore=True)
            for entry in range(lower + 1, upper + 1)
        }
        return replace(state, acked=frozenset(acked))

    def written_form(self, state: AckState) -> AckState:
        """What a ledger entry of ``state`` decodes to, as recovery restores it."""
        return st.settle(decode(encode(state, self.layout)))[0]


def init(profile: str, config: ops.CursorConfig | None = None, quirks: frozenset[str] = frozenset()) -> Model:
    """A new cursor, its state in the metadata store, no cursor ledger yet (``quirks``: :data:`QUIRKS`)."""
    if profile not in PROFILES:
        raise UnknownProfileError(f"unknown cursor-state profile {profile!r} (known: {', '.join(PROFILES)})")
    if not quirks <= QUIRKS.keys():
        raise UnknownProfileError(f"unknown release quirks {sorted(quirks - QUIRKS.keys())} (known: {sorted(QUIRKS)})")
    return Model(profile, config or ops.CursorConfig(), quirks)


def step(model: Model, op: ops.CursorOp) -> tuple[Model, Result]:
    """The next model and the operation's result; the argument is left as it was."""
    after = copy.copy(model)  # every value inside is immutable: copying the containers is enough
    after.ledgers = {ledger: list(entries) for ledger, entries in model.ledgers.items()}
    after.outstanding, after.queued = list(model.outstanding), list(model.queued)
    after.unreadable, after.ever_acked = set(model.unreadable), set(model.ever_acked)
    after.states, after.persists, after.completed = dict(model.states), dict(model.persists), dict(model.completed)
    after.first_writes = dict(model.first_writes)
    after.written = []
    return after, _apply(after, op)


def _apply(m: Model, op: ops.CursorOp) -> Result:  # noqa: C901, PLR0911 - one branch per operation
    if m.crashed and not isinstance(op, ops.Recover | ops.Unreadable):
        raise OperationError(f"{op.kind}: the broker crashed; only recover or unreadable until it recovers")
    if isinstance(op, ops.Ack | ops.AckIndex | ops.MarkDelete):
        _acknowledge(m, op)
        return None
    if isinstance(op, ops.Persist):
        assert m.memory is not None
        m.memory = st.with_properties(m.memory, {"p": op.value})
        return _persist(m, m.memory)
    if isinstance(op, ops.Rollover):
        if m.open_ledger is None or m.opening is not None or m.outstanding or not m.ledgers[m.open_ledger]:
            return None  # only an open, written, idle ledger rolls over
        assert m.memory is not None
        return _persist(m, m.memory, new_ledger=True)
    if isinstance(op, ops.Confirm):
        return _confirm(m)
    if isinstance(op, ops.FailAdd):
        return _fail_adds(m)
    if isinstance(op, ops.FailMeta):
        m.meta_fails = True
        return None
    if isinstance(op, ops.Crash):
        _crash(m, op.keep)
        return None
    if isinstance(op, ops.Unreadable):
        ledger = m.meta[0]
        if ledger >= 0 and m.ledgers.get(ledger):
            m.unreadable.add((ledger, len(m.ledgers[ledger]) - 1))
        return None
    if isinstance(op, ops.Recover):
        return _recover(m)
    raise OperationError(f"unknown cursor-state operation {op!r}")


def _acknowledge(m: Model, op: ops.Ack | ops.AckIndex | ops.MarkDelete) -> None:
    assert m.memory is not None
    position = (op.ledger, op.entry)
    if op.entry < 0 or op.ledger <= 0:
        raise OperationError(f"{op.kind}: position {position} is not a message")
    before = m.memory
    if isinstance(op, ops.Ack):
        m.memory = st.ack(m.memory, position)
    elif isinstance(op, ops.AckIndex):
        if not 0 <= op.index < m.config.batch_size:
            raise OperationError(f"ack_index: index {op.index} outside the batch of {m.config.batch_size}")
        m.memory = st.ack_index(m.memory, position, op.index, m.config.batch_size)
    else:
        m.memory = st.mark_delete(m.memory, position)
    deleted = None if isinstance(op, ops.MarkDelete) else position  # ``asyncDelete`` drops its position's batch set
    unsettled = {p: s for p, s in m.unsettled if p != deleted}
    unsettled.update((p, s) for p, s in before.batch if p <= m.memory.mark_delete and p != deleted)
    m.unsettled = tuple(sorted(unsettled.items()))
    _mark(m, op, before)
    m.ever_mark = max(m.ever_mark, m.memory.mark_delete)
    m.ever_acked |= m.memory.acked | ({position} if isinstance(op, ops.Ack) else set())


def _mark(m: Model, op: ops.Ack | ops.AckIndex | ops.MarkDelete, before: AckState) -> None:
    """``updateLastMarkDeleteEntryToLatest`` (the rate-limited path; the spec's acknowledgements do not persist).

    ``markDelete(position)`` passes no properties. ``asyncDelete`` passes null, so the last waiting persist's
    properties, or the cursor's; it returns early, touching nothing, when no range is left to look at.
    """
    assert m.memory is not None
    if isinstance(op, ops.MarkDelete):
        if m.memory.mark_delete > before.mark_delete:
            m.last_entry = AckState(m.memory.mark_delete)
        return
    if before.acked or m.memory.acked or m.memory.mark_delete > before.mark_delete:
        properties = m.states[m.queued[-1]].properties if m.queued else m.last_entry.properties
        m.last_entry = AckState(m.memory.mark_delete, properties=properties)


def _entries(m: Model, state: AckState) -> list[bytes]:
    """The adds one persist makes: its chunks and footer (pip381), or one entry."""
    data = encode(state, m.layout)
    if m.profile != "pip381":
        return [data]
    return chunks(compress(data, m.config.compression), m.config.chunk_size)


def _persist(m: Model, state: AckState, *, new_ledger: bool = False) -> int:
    """``internalMarkDelete``: written now when a ledger is open (``Open``).

    Otherwise it waits (``pendingMarkDeleteOps``) for a new ledger, whose first write is ``lastMarkDeleteEntry``
    (``createNewMetadataLedger``); the flush after the switch writes it and completes it. A ``Rollover`` is
    numbered by that first write: no persist waits on it.
    """
    number = len(m.persists) + 1
    m.states[number] = state
    m.persists[number] = m.written_form(m.now(state))
    if m.opening is not None:
        m.queued.append(number)
        return number
    if m.open_ledger is not None and not new_ledger:
        m.last_entry = AckState(state.mark_delete, properties=state.properties)
        _write(m, m.open_ledger, m.last_entry, (number,))
        return number
    m.opening = m.next_ledger
    m.next_ledger += 1
    m.ledgers[m.opening] = []
    first = m.written_form(m.now(m.last_entry))
    m.first_writes[m.opening] = (number, first)
    if new_ledger:
        m.persists[number] = first
        _write(m, m.opening, m.last_entry, (number,), opens=True)
    else:
        m.queued.append(number)
        _write(m, m.opening, m.last_entry, (), opens=True)
    return number


def _write(m: Model, ledger: int, entry: AckState, decides: tuple[int, ...], *, opens: bool = False) -> None:
    entries = _entries(m, m.now(entry))
    first = len(m.ledgers[ledger]) + sum(1 for add in m.outstanding if add.ledger == ledger)
    for i, data in enumerate(entries):
        last = i == len(entries) - 1
        m.outstanding.append(_Add(ledger, data, entry, decides if last else (), opens and last))
        kind = "footer" if last and len(entries) > 1 else "chunk_write"
        m.written.append((kind, ledger, first + i, len(data), None))


def _complete(m: Model, numbers: tuple[int, ...], ok: bool, out: list[list[Any]], *, settles: bool = True) -> None:
    """Complete callbacks; a persist's success settles the batch sets at or before its position.

    ``alignAcknowledgeStatusAfterPersisted`` runs in ``internalMarkDelete``'s callback only: not ``settles`` for
    a rollover, whose first write's callback just switches the ledger.
    """
    for number in numbers:
        m.completed[number] = ok
        out.append([number, ok])
        if ok:
            m.acknowledged = max(m.acknowledged, number)
            mark = m.states[number].mark_delete
            if settles:
                m.unsettled = tuple((p, s) for p, s in m.unsettled if p > mark)


def _meta_update(m: Model, record: tuple[int, AckState]) -> bool:
    if m.meta_fails:
        m.meta_fails = False
        m.written.append(("meta_update", record[0], None, None, "failed"))
        return False
    m.meta = record
    m.written.append(("meta_update", record[0], None, None, None))
    return True


def _confirm(m: Model) -> list[list[Any]]:
    out: list[list[Any]] = []
    if not m.outstanding:
        return out
    add = m.outstanding[0]
    if len(add.data) > m.config.max_entry_size:  # BookKeeper refuses an entry over its frame size
        return _fail_adds(m)
    m.outstanding.pop(0)
    m.ledgers[add.ledger].append(add.data)
    if add.opens:
        _switch(m, add, out)
    elif add.decides:
        _complete(m, add.decides, True, out)
    return out


def _switch(m: Model, add: _Add, out: list[list[Any]]) -> None:
    """``switchToNewLedger``: the first write is in; point the metadata store at the ledger.

    The record carries ``lastMarkDeleteEntry`` as it is now: the position to roll back to.
    """
    old = m.meta[0]
    m.opening = None
    if not _meta_update(m, (add.ledger, m.last_entry)):
        del m.ledgers[add.ledger]
        m.first_writes.pop(add.ledger, None)
        m.open_ledger = None
        _complete(m, add.decides + tuple(m.queued), False, out)
        m.queued.clear()
        return
    if old >= 0 and old != add.ledger:
        m.ledgers.pop(old, None)
    m.open_ledger = add.ledger
    _complete(m, add.decides, True, out, settles=False)  # a rollover's number
    if m.queued:  # ``flushPendingMarkDeletes``: the last waiting persist, written once for every waiting callback
        queued, m.queued = tuple(m.queued), []
        last = m.states[queued[-1]]
        entry = AckState(last.mark_delete, properties=last.properties)
        written = m.written_form(m.now(entry))
        m.persists.update(dict.fromkeys(queued, written))
        if entry.mark_delete >= m.last_entry.mark_delete:
            m.last_entry = entry
        _write(m, add.ledger, entry, queued)


def _fail_adds(m: Model) -> list[list[Any]]:
    """The oldest add fails and its handle errs.

    Every outstanding add to that ledger fails, in order; each deciding one completes its persists.
    """
    out: list[list[Any]] = []
    if not m.outstanding:
        return out
    ledger = m.outstanding[0].ledger
    failed = [add for add in m.outstanding if add.ledger == ledger]
    m.outstanding = [add for add in m.outstanding if add.ledger != ledger]
    for add in failed:
        if add.opens:
            m.first_writes.pop(add.ledger, None)
        if add.opens and "C5" in m.quirks and _meta_update(m, (-1, m.metastore_form(m.now(add.entry)))):
            _switch(m, add, out)  # the fallback's success reaches createNewMetadataLedger's callback
            continue
        if add.opens:  # the new ledger is deleted; the persists (and those waiting) fail
            m.ledgers.pop(add.ledger, None)
            m.opening = m.open_ledger = None
            _complete(m, add.decides + tuple(m.queued), False, out)
            m.queued.clear()
            continue
        if not add.decides:
            continue
        m.open_ledger = None  # Open -> NoLedger, then one ``persistPositionToMetaStore`` for the add
        record = m.metastore_form(m.now(add.entry))
        ok = _meta_update(m, (-1, record))
        m.persists.update(dict.fromkeys(add.decides, st.settle(record)[0]))
        _complete(m, add.decides, ok, out)
    return out


def _crash(m: Model, keep: int) -> None:
    for add in m.outstanding[: max(keep, 0)]:
        if add.ledger in m.ledgers and len(add.data) <= m.config.max_entry_size:
            m.ledgers[add.ledger].append(add.data)
    m.outstanding.clear()
    m.queued.clear()
    m.memory, m.unsettled = None, ()
    m.crashed = True
    m.open_ledger = m.opening = None
    m.meta_fails = False


def _recover(m: Model) -> Result:
    if not m.crashed:
        raise OperationError("recover: only after a crash")
    ledger, record = m.meta
    if ledger < 0:
        state = record if m.profile == "pulsar-master" and "C2" not in m.quirks else replace(record, batch=())
    else:
        found = _walk_back(m, ledger, record)
        if found is None:
            return "failed"
        state = found
    m.memory, m.unsettled = st.settle(state)
    if m.lost:
        m.floor = (len(m.persists), m.memory)
    m.last_entry = AckState(state.mark_delete, properties=state.properties)
    m.crashed = False
    return m.memory.to_dict()


def _walk_back(m: Model, ledger: int, record: AckState) -> AckState | None:  # noqa: PLR0911 - each way a walk back ends
    """``recoverFromLedgerByEntryId``: the rollback state, a recovered one, or None (recovery fails)."""
    rollback = st.initial(record.mark_delete)
    entries = m.ledgers.get(ledger, [])
    at = len(entries) - 1
    while True:
        if at < 0 or (ledger, at) in m.unreadable:
            return rollback
        data = entries[at]
        if m.profile == "pulsar-master":
            try:
                return decode(data)
            except FormatError:
                return None
        footer = parse_footer(data)
        if footer is not None:
            parts, length = footer
            first = at - parts
            if first < 0 or any((ledger, i) in m.unreadable for i in range(first, at)):
                return None
            joined = b"".join(entries[first:at])
            try:
                if len(joined) != length:
                    return None
                return decode(decompress(joined, m.config.compression))
            except FormatError:
                return None
        try:
            return decode(decompress(data, m.config.compression))
        except FormatError:
            at -= 1
