"""CACHE-TTL-WALK (legacy): a TTL pass walks each ledger up from its lowest entry to the first unexpired one."""

from __future__ import annotations

import numpy as np
from ledgerspec.spec.cache._events import CUTOFF_PASS, TTL_LIKE
from ledgerspec.spec.cache._normative import Judge, Rule
from ledgerspec.spec.cache._shadow import TTL_LIKE as TIMESTAMP_PASSES
from ledgerspec.spec.cache._shadow import Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._common import position
from ledgerspec.spec.cache.invariants._declare import LEGACY, TIMES, Check, Invariant, PassView, show


class _TtlWalk(Check):
    def pass_end(self, view: PassView) -> None:
        if view.kind not in TTL_LIKE:
            return
        # expired: timestamp <= limit (inclusive); an explicit cutoff (EvictBefore) is the limit itself
        limit = view.value if view.kind == CUTOFF_PASS else view.now - view.config.ttl
        removed = view.removed
        messages = [
            f"removed {position(lg, en)} (timestamp {show(int(ts))}), which has not expired at {view.now}: "
            f"expired means a timestamp <= {limit}"
            for lg, en, ts in zip(removed.ledger, removed.entry, removed.ts, strict=True)
            if ts > limit
        ]
        for ledger in np.unique(removed.ledger).tolist():
            kept = view.cached_in(ledger)
            gone = removed.entry[removed.ledger == ledger]
            below = kept.entry < gone.max() if len(kept) else np.zeros(0, np.bool_)
            if below.any():
                top, low = position(ledger, int(gone.max())), position(ledger, int(kept.entry[below].min()))
                messages.append(f"removed {top} but kept {low} below it: the walk goes from the lowest position")
        if view.head_enter is not None and (view.oldest_ts is None or view.oldest_ts <= limit):
            messages += _expired_heads(view, limit)
        view.report(messages)


def _expired_heads(view: PassView, limit: int) -> list[str]:
    """Ledgers whose lowest cached entry has expired: the walk should have gone on."""
    table = view.table
    if not len(table):
        return []
    order = np.lexsort((table.entry, table.ledger))
    ledgers = table.ledger[order]
    lowest = order[np.r_[True, ledgers[1:] != ledgers[:-1]]]
    return [
        f"left {position(table.ledger[i], table.entry[i])} (timestamp {table.ts[i]}), the lowest position of ledger "
        f"{table.ledger[i]}, expired at {view.now}: the walk stops only at an unexpired entry"
        for i in lowest.tolist()
        if table.ts[i] <= limit
    ]


class TtlWalk(Rule):
    """A TTL pass walks each ledger up from its lowest position while the entries have expired.

    Expired means a timestamp <= now - ttl (inclusive; an explicit cutoff is the limit itself): the pass
    removes no unexpired entry, nothing above an entry of the same ledger it keeps, and leaves no ledger
    whose lowest entry has expired.
    """

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """Judge a TTL or cutoff pass by what it removed and each ledger's lowest entry after it."""
        if done.kind not in TIMESTAMP_PASSES:
            return
        limit = done.value if done.kind == "cutoff" else done.now - judge.config.ttl
        removed = [entry for entry, _ in done.removed]
        for entry in removed:
            if not rules.at_or_before(entry.timestamp, limit):
                judge.report(
                    f"removed {entry.position} (timestamp {rules.show(entry.timestamp)}), which has not expired at "
                    f"{done.now}: expired means a timestamp <= {rules.show(limit)}"
                )
        for top, low in rules.kept_below(judge.shadow, removed):
            judge.report(f"removed {top} but kept {low} below it: the walk goes from the lowest position")
        for ledger, entry in rules.lowest_per_ledger(list(judge.shadow.entries.values())).items():
            if rules.at_or_before(entry.timestamp, limit):
                judge.report(
                    f"left {entry.position} (timestamp {rules.show(entry.timestamp)}), the lowest position of ledger "
                    f"{ledger}, expired at {done.now}: the walk stops only at an unexpired entry"
                )


INVARIANT = Invariant(
    order=16,
    id="CACHE-TTL-WALK",
    statement=(
        "A TTL pass at `now` walks each ledger's cache from its lowest position, removing entries while "
        "their timestamp is <= now - ttl (inclusive), and stops at the ledger's first unexpired entry: it "
        "removes no unexpired entry and nothing above an entry of the same ledger it keeps, and leaves no "
        "ledger whose lowest entry has expired (an expired entry behind a newer, lower one stays: L2)."
    ),
    citation=(
        "apache/pulsar at 8ce67b97b3^ (the parent of PR #24363): impl/ManagedLedgerFactoryImpl.java "
        "doCacheEviction, util/RangeCache.java evictLEntriesBeforeTimestamp"
    ),
    profiles=(LEGACY,),
    check=_TtlWalk(),
    rule=TtlWalk(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "remove", "pass_start", "pass_end"})},
    soundness="each ledger's cache lives in one broker, and a pass walks all of that broker's ledgers",
)
