"""CACHE-INSERT-ACCEPTED (pip430, pulsar-master): inserts are never refused for size and never evict."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._observation import CachedEntry, Counters, Observation
from ledgerspec.spec.cache._ops import Insert
from ledgerspec.spec.cache._shadow import At, Pass
from ledgerspec.spec.cache.invariants._declare import MASTER, PIP430, Invariant, StepView
from ledgerspec.spec.cache.invariants._rules_counts import show_count


class InsertAccepted(Check):
    """pip430, pulsar-master: an enabled cache takes every insert of an uncached position, and evicts nothing then.

    An insert of an uncached position is never refused (whatever the size), its count is the expected
    reads it asked for (pulsar-master: no handler for a count <= 0), and a ring's rotation inside an
    insert removes nothing.
    """

    kinds = frozenset({"insert", "insert_refused"})

    def event(self, at: At, judge: Judge) -> None:
        """Judge one insert of an uncached position."""
        event = at.event
        if not judge.enabled or at.cached is not None:
            return
        if event.kind == "insert_refused":
            judge.report(f"insert of uncached {event.position} returned False (size {at.total})")
            return
        if event.value is None:
            return  # the insert does not say what it asked for
        reads = int(event.value)
        want = reads if judge.profile == PIP430 or reads > 0 else None
        if event.count is not None and event.count != want:
            judge.report(
                f"inserted {event.position} with {reads} expected reads, but its count is {show_count(event.count)}"
            )

    def pass_end(self, done: Pass, judge: Judge) -> None:
        """A size pass inside an insert (a ring's rotation) removes nothing."""
        if done.inside_insert and done.removed:
            gone = sorted(entry.position for entry, _ in done.removed)
            judge.report(f"inserting {(done.ledger, done.entry)} also removed {gone}")

    def step(self, view: StepView) -> None:
        """The inserted entry's size and the rest of the cache, against the operation's arguments."""
        op = view.op
        if not isinstance(op, Insert) or not view.enabled or view.before.entry(op.ledger, op.entry) is not None:
            return
        if view.result is not True:
            return  # the insert_refused event
        reads = op.expected_reads
        count = reads if reads is not None and (view.profile == PIP430 or reads > 0) else None
        alone = CachedEntry(ledger=op.ledger, entry=op.entry, size=op.size, count=count, timestamp=op.now)
        (expected,) = view.project(Observation(entries=(alone,), size=0, counters=Counters(), copies=())).entries
        after = view.after.by_position()
        messages = []
        got = after.get(expected.position)
        if got != expected and (got is None or (got.size, got.timestamp) != (expected.size, expected.timestamp)):
            messages.append(f"inserted {expected.position}: expected {expected}, got {got}")  # counts: the event
        before = view.before.by_position()
        changed = [
            p for p in sorted(set(after) - {expected.position}) if before.get(p) != after.get(p)
        ]  # removals: events
        if changed:
            messages.append(f"inserting {expected.position} also changed or removed {changed}")
        if view.after.size != view.before.size + op.size:
            messages.append(f"size went from {view.before.size} to {view.after.size} on inserting {op.size} bytes")
        view.report(messages)


INSERT_ACCEPTED = InsertAccepted()


INVARIANT = Invariant(
    order=14,
    id="CACHE-INSERT-ACCEPTED",
    statement=(
        "In an enabled cache, inserting an uncached position always caches it, stamped with the insert's "
        "time, with its expected read count (pulsar-master: no handler for a count <= 0), and changes "
        "nothing else: inserts are never refused for size and never evict by themselves."
    ),
    citation=(
        "apache/pulsar PR #24623 (490ba0cca1) RangeEntryCacheImpl.insert and RangeCache.put "
        "('Inserts are never blocked or refused because of size': eviction runs on the executor)"
    ),
    profiles=(PIP430, MASTER),
    check=INSERT_ACCEPTED,
    events={"*": frozenset({"insert", "insert_refused", "remove", "pass_start", "pass_end"})},
    soundness="a refusal for size would depend on the broker-wide size",
    conformance_only="the inserted entry's size and the rest of the cache compared with the operation's arguments",
)
