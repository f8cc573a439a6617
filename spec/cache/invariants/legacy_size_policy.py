"""CACHE-LEGACY-SIZE-POLICY (legacy): a size pass runs when an insert scheduled it.

It frees the shares of the largest caches that the size captured then asks for, each cache from its
lowest position.
"""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants import _rules_queue as rules
from ledgerspec.spec.cache.invariants._declare import LEGACY, Invariant
from ledgerspec.spec.cache.legacy import PERCENT_OF_SIZE_TO_CONSIDER


def _selection(before: dict[int, int]) -> tuple[int, int, int]:
    """(selected total, how many are selected, the smallest selected size), from the sizes before the pass.

    Caches are ranked largest first and selected while the selected total is below half the size.
    """
    to_consider = int(sum(before.values()) * PERCENT_OF_SIZE_TO_CONSIDER)
    total, count, edge = 0, 0, 0
    for size in sorted(before.values(), reverse=True):
        if total >= to_consider:
            break
        total, count, edge = total + size, count + 1, size
    return total, count, edge


def shares(left: list[tuple[int, int]], removed: list[tuple[int, int, int]], to_free: int) -> list[str]:
    """Each selected cache frees ``(long)(toFree * size / selectedTotal)`` from its lowest positions.

    ``left``: (ledger, size) of each entry cached after the pass; ``removed``: (ledger, entry, size) of
    each entry it removed. It stops at the entry that reaches its share; the others lose nothing.
    Caches of equal size rank in an order nothing specifies: of those at the selection's edge, as many
    as it takes are selected, whichever they are.
    """
    before: dict[int, int] = {}
    for ledger, size in left:
        before[ledger] = before.get(ledger, 0) + size
    freed: dict[int, int] = {}
    last: dict[int, tuple[int, int]] = {}  # per ledger, its highest position removed (the last one taken) and size
    for ledger, entry, size in removed:
        before[ledger] = before.get(ledger, 0) + size
        freed[ledger] = freed.get(ledger, 0) + size
        last[ledger] = max(last.get(ledger, (entry, size)), (entry, size))
    if to_free <= 0 or not before:
        return [f"{len(removed)} entries went, but the pass had nothing to free ({to_free} bytes)"] if freed else []
    total, count, edge = _selection(before)
    edge_share = int(to_free * (edge / total)) if count else 0
    slots = count - sum(1 for size in before.values() if count and size > edge)  # caches at the edge selected
    messages = []
    for ledger in sorted(before):
        size, gone = before[ledger], freed.get(ledger, 0)
        share = int(to_free * (size / total)) if count and size >= edge else 0
        if edge_share and size == edge:
            if not gone:
                continue  # one of the caches at the edge that were not selected
            slots -= 1
        if share == 0 and gone:
            messages.append(f"ledger {ledger} ({size} bytes before the pass) lost {gone} bytes; its share is 0")
        elif share and (gone < min(share, size) or gone - last[ledger][1] >= share):
            messages.append(
                f"ledger {ledger} ({size} bytes before the pass) lost {gone} bytes; its share of the "
                f"{to_free} bytes to free is {share}: it frees from its lowest positions until that is reached"
            )
    if edge_share and slots:
        fewer = "fewer" if slots > 0 else "more"
        messages.append(
            f"{count} caches are selected, the smallest with {edge} bytes; {fewer} caches of that size lost entries"
        )
    return messages


class LegacySizePolicy(Check):
    """A size pass runs only when an insert scheduled it, and frees the shares of the largest caches.

    The first insert (cached or refused) since the last size pass that sees the size before it above
    the trigger schedules one eviction, capturing that size; the next size pass frees
    ``captured - watermark``: each selected cache (the largest, while the selected total is below half
    the size) frees its share from its lowest positions, and the others lose nothing (:func:`shares`).
    """

    kinds = frozenset({"insert", "insert_refused"})

    def event(self, at: At, judge: Judge) -> None:
        """Schedule an eviction: the first insert since the last size pass that sees the size above the trigger."""
        if judge.memory.get("captured") is None and at.total > judge.config.trigger_size:
            judge.memory["captured"] = at.total

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """A size pass consumes what was scheduled (nothing: it may remove nothing)."""
        if done.kind != "size":
            return
        captured = judge.memory.pop("captured", None)
        removed = [entry for entry, _ in done.removed]
        if captured is None:
            if removed:
                judge.report(
                    f"{len(removed)} entries went, but no insert since the last size pass saw the size "
                    f"above the trigger {judge.config.trigger_size}: no eviction was scheduled"
                )
            return
        for top, low in rules.kept_below(judge.shadow, removed):
            judge.report(f"removed {top} but kept {low} below it: a cache frees its lowest positions first")
        left = [(entry.ledger, entry.size) for entry in judge.shadow.entries.values()]
        gone = [(entry.ledger, entry.entry, entry.size) for entry in removed]
        for message in shares(left, gone, captured - judge.config.watermark_size):
            judge.report(message)


INVARIANT = Invariant(
    order=20,
    id="CACHE-LEGACY-SIZE-POLICY",
    statement=(
        "The legacy size eviction runs only when scheduled: an insert (cached or refused) that sees the size "
        "before it above (long)(maxSize * 0.98) schedules one (unless one is scheduled), capturing that size. "
        "It frees toFree = captured - (long)(maxSize * watermark): the ledgers' caches are ranked by size and "
        "the largest selected while the selected total is below half the size; each selected cache frees "
        "(long)(toFree * size / selectedTotal) from its lowest positions, stopping at the entry that reaches "
        "it, and the others lose nothing."
    ),
    citation=(
        "apache/pulsar managed-ledger 4.0.x: impl/cache/EntryCacheDefaultEvictionPolicy.java doEviction, "
        "impl/cache/RangeEntryCacheImpl.java evictLeastAccessedEntries, impl/cache/RangeEntryCacheManagerImpl.java "
        "hasSpaceInCache (at 8ce67b97b3^, the parent of PR #24363)"
    ),
    profiles=(LEGACY,),
    check=LegacySizePolicy(),
    events={"*": frozenset({"insert", "insert_refused", "remove", "pass_start", "pass_end"})},
    soundness="each ledger's cache lives in one broker, and the policy ranks all of that broker's caches",
)
