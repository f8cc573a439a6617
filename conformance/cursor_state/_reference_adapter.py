"""The in-process adapter of the reference cursor: the spec's operations in, the spec's results out."""

from __future__ import annotations

from typing import Any

from ledgerspec.reference.cursor_state import BookKeeper, MetadataStore, ReferenceCursor
from ledgerspec.reference.cursor_state._bookkeeper import AddCallback, Ledger
from ledgerspec.reference.cursor_state._position_info import Caps, Snapshot, footer_of, write
from ledgerspec.spec import cursor_state as cs
from ledgerspec.spec.cursor_state._model import START, Write


class _LoggedBookKeeper(BookKeeper):
    """BookKeeper that notes each add as a write: a footer when the entry parses as one."""

    def __init__(self, max_entry_size: int, log: list[Write]) -> None:
        super().__init__(max_entry_size)
        self.log = log

    def add(self, ledger: Ledger, data: bytes, callback: AddCallback) -> None:
        kind = "footer" if footer_of(data) is not None else "chunk_write"
        self.log.append((kind, ledger.id, len(ledger.entries) + len(ledger.pending), len(data), None))
        super().add(ledger, data, callback)


class _LoggedMetadataStore(MetadataStore):
    """The metadata store noting each update of the cursor's record, failed or not."""

    def __init__(self, ledger: int, record: bytes, log: list[Write]) -> None:
        super().__init__(ledger, record)
        self.log = log

    def update(self, ledger: int, record: bytes) -> bool:
        ok = super().update(ledger, record)
        self.log.append(("meta_update", ledger, None, None, None if ok else "failed"))
        return ok


def as_result(state: Snapshot) -> dict[str, object]:
    """A recovered state in the spec's form (``AckState.to_dict``): the batch sets after the mark-delete position."""
    batch = sorted((p, s) for p, s in state.unacked_indexes.items() if p > state.mark_delete)
    return {
        "mark_delete": list(state.mark_delete),
        "acked": sorted([ledger, entry] for ledger, entries in state.acked.items() for entry in entries),
        "batch": [[list(p), sorted(s)] for p, s in batch],
        "properties": dict(sorted(state.properties.items())),
    }


class CursorStateAdapter:
    """One cursor, its BookKeeper and metadata store; ``cursor_class`` lets a mutant stand in."""

    cursor_class: type[ReferenceCursor] = ReferenceCursor
    capabilities = frozenset({"writes"})
    """Besides the spec's operations (all of them): it reports its writes (``writes()``)."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.log: list[Write] = []

    def writes(self) -> list[Write]:
        """The adds and metadata-store updates made since the last call, in order."""
        made = list(self.log)
        self.log.clear()
        return made

    def start(self, config: cs.CursorConfig) -> None:
        self.config = config
        self.log.clear()
        self.bk = _LoggedBookKeeper(config.max_entry_size, self.log)
        initial = write(Snapshot(START), Caps(False, 0, plus_one=False, count_before=False))
        self.meta = _LoggedMetadataStore(-1, initial, self.log)
        self.cursor: ReferenceCursor | None = self.cursor_class(self.profile, config, self.bk, self.meta)
        self.callbacks: list[list[Any]] = []
        self.persists = 0

    def _callback(self, number: int) -> Any:
        def done(ok: bool) -> None:
            self.callbacks.append([number, ok])

        return done

    def apply(self, op: cs.CursorOp) -> Any:  # noqa: C901, PLR0911, PLR0912 - one branch per operation
        cursor = self.cursor
        if isinstance(op, cs.Recover):
            self.cursor = self.cursor_class(self.profile, self.config, self.bk, self.meta)
            state = self.cursor.recover()
            if state is None:
                self.cursor = None
                return "failed"
            return as_result(state)
        if isinstance(op, cs.Unreadable):
            ledger = self.bk.ledgers.get(self.meta.ledger)
            if ledger is not None and ledger.entries:
                ledger.unreadable.add(len(ledger.entries) - 1)
            return None
        assert cursor is not None, "only recover or unreadable after a crash"
        if isinstance(op, cs.Ack):
            cursor.delete((op.ledger, op.entry))
        elif isinstance(op, cs.AckIndex):
            cursor.delete_index((op.ledger, op.entry), op.index)
        elif isinstance(op, cs.MarkDelete):
            cursor.mark_delete_to((op.ledger, op.entry))
        elif isinstance(op, cs.Persist):
            self.persists += 1
            cursor.persist(op.value, self._callback(self.persists))
            return self.persists
        elif isinstance(op, cs.Rollover):
            if not cursor.rollover(self._callback(self.persists + 1)):
                return None
            self.persists += 1
            return self.persists
        elif isinstance(op, cs.Confirm | cs.FailAdd):
            self.callbacks = []
            self.bk.complete_next(fail=isinstance(op, cs.FailAdd))
            return self.callbacks
        elif isinstance(op, cs.FailMeta):
            self.meta.fail_next = True
        elif isinstance(op, cs.Crash):
            self.bk.crash(op.keep)
            self.meta.fail_next = False
            self.cursor = None
        return None

    def stop(self) -> None:
        self.cursor = None
