"""CACHE-DUPLICATE-REFUSED (pulsar-master, legacy): a duplicate insert returns false and changes nothing."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._observation import describe_difference
from ledgerspec.spec.cache._ops import Insert
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import LEGACY, MASTER, Invariant, StepView
from ledgerspec.spec.cache.invariants._rules_counts import show_count


class DuplicateRefused(Check):
    """pulsar-master, legacy: inserting a cached position returns false and changes nothing.

    No ``insert`` of a cached position (it would return true), and no ``merge`` into one (its count stays).
    """

    kinds = frozenset({"insert", "merge"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one insert or merge of a position: a cached one is left as it was."""
        event = at.event
        if at.cached is None:
            return
        if event.kind == "insert":
            judge.report(f"insert of cached {event.position} returned True, expected False")
        else:
            judge.report(
                f"insert of cached {event.position} changed its count from {show_count(at.count)} to {event.count}"
            )

    def step(self, view: StepView) -> None:
        """A refused duplicate changing anything but its entry's count (counters, other entries, copies)."""
        op = view.op
        if not isinstance(op, Insert) or view.before.entry(op.ledger, op.entry) is None or view.result is True:
            return
        shown = f"entry {(op.ledger, op.entry)}:"
        before, after = view.before.entry(op.ledger, op.entry), view.after.entry(op.ledger, op.entry)
        count_only = (
            after is not None
            and before is not None
            and (before.size, before.timestamp)
            == (
                after.size,
                after.timestamp,
            )
        )
        view.report(
            f"insert of cached {(op.ledger, op.entry)} changed {line}"
            for line in describe_difference(view.before, view.after)
            if not (count_only and line.startswith(shown))  # a count change is a merge event
        )


DUPLICATE_REFUSED = DuplicateRefused()


INVARIANT = Invariant(
    order=13,
    id="CACHE-DUPLICATE-REFUSED",
    statement="Inserting a position that is cached returns false and changes nothing at all.",
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeCache.put (put-if-absent); "
        "impl/cache/RangeEntryCacheImpl.java at 8ce67b97b3^ (exists)"
    ),
    profiles=(MASTER, LEGACY),
    check=DUPLICATE_REFUSED,
    events={"*": frozenset({"insert", "merge", "remove"})},
    soundness="whether a position is cached is a fact of the broker's cache at that point",
    conformance_only="a refused duplicate changing anything but its entry's count (counters, other entries, copies)",
)
