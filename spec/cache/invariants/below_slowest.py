"""CACHE-BELOW-SLOWEST: legacy mode invalidates below the slowest cursor when it moves; tracking mode never."""

from __future__ import annotations

from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, moved, removed


class _BelowSlowest(Check):
    def step(self, view: StepView) -> None:
        op = view.op
        if not moved(op):
            return
        ledger = op.ledger  # type: ignore[attr-defined]  # every cursor operation names its ledger
        runs, bound = invalidated(view)
        if runs and bound is None:
            return  # the last cursor left: CACHE-LEDGER-CLOSE
        gone = removed(view)
        want = (
            sorted(p for p in view.before.by_position() if p[0] == ledger and p[1] < bound)
            if runs and bound is not None
            else []
        )
        if gone != want:
            where = f"below the slowest cursor at {bound}" if runs else "nothing (the slowest cursor did not move)"
            view.report([f"{op.describe()} removed {gone}; it must remove {where}: {want}"])


INVARIANT = Invariant(
    order=25,
    id="CACHE-BELOW-SLOWEST",
    statement=(
        "With expected-read-count tracking off (legacy: always), when the slowest active cursor of a ledger "
        "moves or a cursor leaves, exactly the ledger's entries strictly before the slowest cursor are "
        "removed (invalidateEntries); otherwise, and always with tracking on, cursor moves remove nothing."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/ManagedLedgerImpl.invalidateEntriesUpToSlowestReaderPosition, "
        "updateActiveCursor, deactivateCursor; impl/ActiveManagedCursorContainerImpl.java"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=_BelowSlowest(),
    needs={"*": frozenset({LEDGER})},
    soundness="the slowest cursor is not an event: checked in conformance only",
    on_traces=False,
    conformance_only="all of it: what a cursor move removes depends on the cursors before it",
)
