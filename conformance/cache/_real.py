"""What the real Pulsar and BookKeeper code is expected to do against its profile.

The data behind ``ledgerspec deviations --real`` and the CI pin of the real targets' verdicts.

A target is a harness under one named configuration. Its verdict must be PASS, or FAIL with exactly
the declared deviations; anything else (a new failure, a declared one that no longer shows) means the
upstream behaviour or the harness changed, and turns CI red. A spec correction records a FAIL that
was the spec's error: the spec was fixed, citing the Java code that decided it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ledgerspec.conformance.cache._case import Case, load_case
from ledgerspec.conformance.cache._deviations import search_one
from ledgerspec.conformance.cache._engine import Report, conform
from ledgerspec.conformance.cache._replay import replay
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.conformance.real._rows import RealRow, Record


@dataclass(frozen=True)
class RealDeviation:
    """A behaviour of the real code that its profile does not allow, with where it comes from."""

    key: str
    title: str
    invariant: str
    java: str
    """The release, class and method that decide it."""
    why: str
    bug: bool = False
    """True if it looks like a bug of the real code: then ``reproduction`` names its JUnit test."""
    reproduction: str | None = None
    exclude: frozenset[str] = frozenset()
    config: dict[str, Any] = field(default_factory=dict)
    case: str | None = None
    """A committed counterexample (a file of conformance/cases/real), for a deviation the pinned search misses."""
    also: tuple[str, ...] = ()
    """Other invariants the same behaviour breaks, through the same wrong value (a longer search finds them)."""


@dataclass(frozen=True)
class RealTarget:
    """A harness judged against its profile, under an optional named configuration."""

    adapter: str
    profile: str
    named_config: str | None = None
    deviations: tuple[RealDeviation, ...] = ()

    @property
    def label(self) -> str:
        """``adapter`` or ``adapter (config preset)``."""
        return self.adapter + (f" ({self.named_config})" if self.named_config else "")


@dataclass(frozen=True)
class SpecCorrection:
    """A failure of real code that was the spec's error; the spec now follows the code it cites."""

    key: str
    title: str
    profile: str
    found_with: str
    java: str
    change: str


CASES = Path(__file__).resolve().parents[1] / "cases" / "real"

R2 = RealDeviation(
    key="R2",
    title="a cursor group is miscounted after its tail cursor moves in place",
    invariant="CACHE-CURSOR-COUNT",
    java=(
        "managed-ledger 4.2.4, ActiveManagedCursorContainerImpl.moveNodeToNewPosition: when the moved cursor is the "
        "list's tail and stays in its place, it returns before updating the counters the cursors of a position "
        "share, so a tail moved back onto the previous position keeps its own counter (the others there count one "
        "too few) and one moved forward off a shared position keeps the shared one (one too many); managed-ledger "
        "5.0.1 returns early only when the tail neither shares its old position nor joins the previous one, and "
        "answers both committed cases right"
    ),
    why=(
        "getNumberOfCursorsAtSamePositionOrBefore, the expected read count of every entry a cursor reads from storage, "
        "is off by one for the cursors of a position after a single move of the last cursor among four or more "
        "(found first by a thorough search of cache-managed-ledger-4.2.4, 12 steps; since the search's cursor group "
        "rule, by ci searches of the cache harness in 7 steps, as the committed cases); a read from storage is cached "
        "with that miscounted count, so CACHE-BACKLOG-CACHING breaks too (a thorough search of "
        "cache-managed-ledger-4.2.4, seed 2, minimal: a tail cursor moved back onto position 5, then a new cursor "
        "there reads entry 5 from storage and caches it with 6 where 7 cursors count)"
    ),
    bug=True,
    also=("CACHE-BACKLOG-CACHING",),
    reproduction="ActiveCursorCountTest (ledgerspec harness test), on the class alone",
    case="r2-tail-moved-back.json",
)

REAL_TARGETS: tuple[RealTarget, ...] = (
    RealTarget("cache-range-cache-4.2.4", "pulsar-master", "shipped-4.2.4"),
    RealTarget("cache-range-cache-4.2.4", "pulsar-master", "pr-26627"),
    RealTarget("cache-entry-cache-manager-4.2.4", "pulsar-master", "shipped-4.2.4", deviations=(R2,)),
    RealTarget("cache-entry-cache-manager-4.2.4", "pulsar-master", "pr-26627", deviations=(R2,)),
    RealTarget("cache-managed-ledger-4.2.4", "pulsar-master", deviations=(R2,)),
    RealTarget("cache-entry-cache-manager-4.0.8", "legacy"),
    RealTarget("cache-bookkeeper-read-cache-4.17.3", "segmented"),
)

SPEC_CORRECTIONS: tuple[SpecCorrection, ...] = (
    SpecCorrection(
        key="S1",
        title="legacy reads a partly cached range whole from storage",
        profile="legacy",
        found_with="cache-entry-cache-manager-4.0.8",
        java=(
            "managed-ledger 4.0.8, RangeEntryCacheImpl.doAsyncReadEntriesByPosition: unless "
            "cachedEntries.size() == numberOfEntries, the cached entries are released and "
            "pendingReadsManager.readEntries reads the whole range from BookKeeper"
        ),
        change=(
            "The profile had given legacy the merged code's per-entry range reads, with no source; a range "
            "with any entry missing is now all misses and dispatches no copy, CACHE-NO-STALE-READ allows "
            "those misses (and only those: a fully cached range must still hit), and the trace format marks "
            "them with `reason` `range`."
        ),
    ),
    SpecCorrection(
        key="S2",
        title="entries requeued by one pass have no order among themselves",
        profile="pulsar-master",
        found_with="cache-range-cache-4.2.4 and cache-entry-cache-manager-4.2.4 (pulsar-defaults, thorough)",
        java=(
            "managed-ledger 4.2.4, RangeCacheRemovalQueue.evictLeastAccessedEntries: one pass requeues until "
            "enough is freed, cycling the queue, and an entry's requeueCount caps how often it goes round, "
            "so the requeued entries end the pass in an order the outside view cannot know"
        ),
        change=(
            "CACHE-OLDEST-FIRST's monitor had kept the requeued entries in their previous order and reported "
            "a removal ahead of an entry that had in fact ended up behind it; the reference failed the same "
            "case. Entries requeued by one pass now share one place in the order."
        ),
    ),
    SpecCorrection(
        key="S3",
        title="a cursor read across a reopened managed ledger is one read per BookKeeper ledger",
        profile="pip430, pulsar-master, legacy (the managed-ledger layer)",
        found_with="cache-managed-ledger-4.2.4 (ci, seed 1)",
        java=(
            "managed-ledger 4.2.4: ManagedLedgerImpl.internalReadFromLedger reads to the end of one BookKeeper "
            "ledger; OpReadEntry.internalReadEntriesComplete moves the cursor (updateReadPosition) and "
            "checkReadCompletion reads on from the next, so RangeEntryCacheImpl.readFromStorage takes the "
            "second read's count (getNumberOfCursorsAtSamePositionOrBefore) after the cursor moved"
        ),
        change=(
            "CursorRead was one read with one count. A managed ledger closed and appended to again writes a new "
            "BookKeeper ledger, and the spec now cuts a read there: each part's hits, storage reads (counted "
            "at the part's start) and move, in order; CACHE-BACKLOG-CACHING counts each part so, and a "
            "cursor_read dispatches its copies per part."
        ),
    ),
    SpecCorrection(
        key="S4",
        title="with tracking off a cursor counts 0",
        profile="pip430, pulsar-master",
        found_with="cache-managed-ledger-4.2.4 (L2; JUnit ManagedLedgerLayerTest)",
        java=(
            "managed-ledger 4.2.4, ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore(): the container's "
            "count only when cacheEvictionByExpectedReadCount is on, else isCacheReadEntry() ? 1 : 0 (off by "
            "default); the container a managed ledger opens with the flag off cannot count"
        ),
        change=(
            "CursorCount counted the cursors at or before in every mode, while CursorRead (and "
            "CACHE-BACKLOG-CACHING) used the cursor's 0 with tracking off. It now answers what the cursor "
            "answers, the count its reads use: 0 with track_reads off; CACHE-CURSOR-COUNT checks that. The "
            "legacy profile, with no read counts, keeps the container's count."
        ),
    ),
)

OBSERVATIONS: tuple[str, ...] = (
    (
        "managed-ledger 4.0.8, RangeEntryCacheManagerImpl.hasSpaceInCache: the scheduled eviction computes "
        "sizeToEvict from the size captured when an insert scheduled it and the maximum size when it runs, so "
        "a maximum raised in between (a dynamic managedLedgerCacheSizeMB update) makes "
        "EntryCacheDefaultEvictionPolicy.doEviction's checkArgument(sizeToFree > 0) throw an "
        "IllegalArgumentException on the broker's scheduled executor; the task's finally block still clears "
        "evictionInProgress and nothing is evicted, so the cache behaves as the legacy profile says (an error "
        "in the log, not a deviation). managed-ledger 4.2.4's doEvictToWatermarkWhenOverThreshold re-reads "
        "the size and checks sizeToEvict > 0 first."
    ),
)
"""What judging the real code showed that is not a deviation from its profile."""

PRESETS = ("minimal", "pulsar-defaults")


def run_target(target: RealTarget, *, preset: str, settings: str, seed: int) -> Report:
    """One conformance run of a real target."""
    return conform(
        load_adapter(target.adapter),
        profile=target.profile,
        preset=preset,
        settings=settings,
        seed=seed,
        named_config=target.named_config,
    )


def surprises(target: RealTarget, report: Report) -> list[str]:
    """How a report differs from what the target declares: undeclared failures, faults."""
    problems = []
    if report.fault:
        problems.append(f"adapter fault: {report.fault.splitlines()[0]}")
    declared = {invariant for d in target.deviations for invariant in (d.invariant, *d.also)}
    problems += [
        f"undeclared failure of {row.invariant}: {row.detail}"
        for row in report.failed()
        if row.invariant not in declared and not _same_bug(target, row, declared)
    ]
    return problems


def _same_bug(target: RealTarget, row: Any, declared: set[str]) -> bool:
    """A CACHE-MODEL failure whose counterexample, replayed, also breaks a declared deviation's invariant.

    A declared deviation shows as a difference from the model too; any other difference stays a surprise.
    """
    if row.invariant != "CACHE-MODEL" or row.case is None or not declared:
        return False
    return any(violation.invariant in declared for violation in release_violations(target, row.case))


def release_violations(target: RealTarget, case: Case) -> list[Any]:
    """What the case breaks, every invariant checked, when replayed on the target's release."""
    return list(replay(case, load_adapter(target.adapter), every_invariant=True).violations)


def deviation_case(target: RealTarget, deviation: RealDeviation, *, settings: str, seed: int) -> Case | None:
    """The deviation's counterexample: its committed case, else what a search of its invariant alone finds."""
    if deviation.case is not None:
        return load_case(CASES / deviation.case)
    return find_deviation(target, deviation, settings=settings, seed=seed).row(deviation.invariant).case


def find_deviation(target: RealTarget, deviation: RealDeviation, *, settings: str, seed: int) -> Report:
    """A search for one declared deviation alone: its invariant, configuration and excluded rules."""
    return search_one(
        target.adapter, target.profile, deviation.invariant,
        settings=settings, seed=seed, config=deviation.config, exclude=deviation.exclude,
        named_config=target.named_config,
    )  # fmt: skip


def judge_all(
    out: Callable[[str], None], *, settings: str, seed: int, presets: tuple[str, ...], record: Record | None = None
) -> bool:
    """Run every real target; print a line each (and ``record`` it); True if every one is as declared."""
    ok = True
    for target in REAL_TARGETS:
        for preset in presets:
            report = run_target(target, preset=preset, settings=settings, seed=seed)
            problems = surprises(target, report)
            declared = ", ".join(d.key for d in target.deviations) or "none"
            ok &= not problems
            said = "as declared" if not problems else "NOT AS DECLARED: " + problems[0]
            out(
                f"   {target.label:<44} {target.profile:<14} {report.verdict:<5} {report.steps:>6} steps"
                f"  deviations: {declared}  {said}"
            )
            if record is not None:
                note = f"deviations: {declared}; {said}"
                record(RealRow(target.label, target.profile, str(report.verdict), report.steps, not problems, note))
    return ok
