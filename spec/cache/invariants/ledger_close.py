"""CACHE-LEDGER-CLOSE: a closed ledger, or one whose last cursor left in legacy mode, has nothing cached."""

from __future__ import annotations

from ledgerspec.spec.cache._ops import LedgerClose
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, invalidated, removed


class _LedgerClose(Check):
    def step(self, view: StepView) -> None:
        op = view.op
        runs, bound = invalidated(view)
        if not isinstance(op, LedgerClose) and not (runs and bound is None):
            return
        ledger = op.ledger  # type: ignore[attr-defined]  # a close or a cursor operation names its ledger
        left = sorted(p for p in view.after.by_position() if p[0] == ledger)
        others = [p for p in removed(view) if p[0] != ledger]
        what = "closing the ledger" if isinstance(op, LedgerClose) else "its last active cursor leaving"
        messages = [f"{what} left {left} of ledger {ledger} cached"] if left else []
        messages += [f"{what} also removed {others} of other ledgers"] if others else []
        view.report(messages)


INVARIANT = Invariant(
    order=26,
    id="CACHE-LEDGER-CLOSE",
    statement=(
        "After a managed ledger closes (the manager removes its cache), and after its last active cursor "
        "leaves with expected-read-count tracking off (legacy: always; clear()), no entry of that ledger is "
        "cached, and no entry of another ledger was removed."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/ManagedLedgerImpl.close / deactivateCursor, "
        "impl/cache/RangeEntryCacheManagerImpl.removeEntryCache"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=_LedgerClose(),
    needs={"*": frozenset({LEDGER})},
    soundness="closes and cursors are not events: checked in conformance only",
    on_traces=False,
    conformance_only="all of it: the cursors and the close are operations, not cache events",
)
