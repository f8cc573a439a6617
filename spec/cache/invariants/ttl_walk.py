"""CACHE-TTL-WALK (legacy): a TTL pass walks each ledger up from its lowest entry to the first unexpired one."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import TTL_LIKE as TIMESTAMP_PASSES
from ledgerspec.spec.cache._shadow import Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import LEGACY, TIMES, Invariant


class TtlWalk(Check):
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
    check=TtlWalk(),
    needs={"*": frozenset({TIMES})},
    events={"*": frozenset({"insert", "remove", "pass_start", "pass_end"})},
    soundness="each ledger's cache lives in one broker, and a pass walks all of that broker's ledgers",
)
