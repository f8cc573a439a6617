"""CACHE-APPEND-CACHING: an append is cached iff its ledger has an active cursor, expecting one read per cursor."""

from __future__ import annotations

from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import Append
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, PIP430, Check, Invariant, StepView
from ledgerspec.spec.cache.invariants._ledger import LEDGER, legacy_mode


class _AppendCaching(Check):
    def step(self, view: StepView) -> None:
        op = view.op
        if not isinstance(op, Append) or not view.enabled or view.before.entry(op.ledger, op.entry) is not None:
            return  # a duplicate is the insert's business (CACHE-DUPLICATE-*)
        readers = sum(1 for ledger, _ in view.cursors if ledger == op.ledger)
        room = view.profile != LEGACY or view.before.size < view.config.max_size  # legacy: hasSpaceInCache
        wanted = readers > 0 and room
        if bool(view.result) != wanted:
            shown = "cached" if view.result else "not cached"
            view.report([f"append of {(op.ledger, op.entry)} {shown} with {readers} active cursor(s) on the ledger"])
            return
        got = view.after.entry(op.ledger, op.entry)
        if not wanted:
            if got is not None:
                view.report([f"append of {(op.ledger, op.entry)} returned False but the entry is cached"])
            return
        count = None if legacy_mode(view) else readers
        alone = CachedEntry(ledger=op.ledger, entry=op.entry, size=op.size, count=count, timestamp=op.now)
        (expected,) = view.project(Observation(entries=(alone,), size=0, counters=Counters(), copies=())).entries
        if got is None or got.count != expected.count:
            shown = "not cached" if got is None else f"count {got.count}"
            view.report([f"append of {(op.ledger, op.entry)} with {readers} active cursor(s): {shown}, want {count}"])


INVARIANT = Invariant(
    order=23,
    id="CACHE-APPEND-CACHING",
    statement=(
        "An appended entry is cached exactly when its ledger has at least one active cursor (and the cache "
        "takes the insert), expecting as many reads as the ledger has active cursors with expected-read-count "
        "tracking on, and with no read-count handler with it off (legacy: never a count)."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) impl/OpAddEntry.java and ManagedLedgerImpl.shouldCacheAddedEntry; "
        "impl/ManagedLedgerImpl.java at 8ce67b97b3^"
    ),
    profiles=(PIP430, MASTER, LEGACY),
    check=_AppendCaching(),
    needs={"*": frozenset({LEDGER})},
    soundness="the active cursors are not events: checked in conformance only",
    on_traces=False,
    conformance_only="all of it: whether an append is cached depends on the cursors before it",
)
