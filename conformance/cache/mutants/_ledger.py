"""Mutants of the managed-ledger layer (``reference/cache/_ledger.py``), over the caches of three profiles.

Each subclasses a reference cache and breaks one rule of the layer: when an append or a read from
storage is cached and with what count, and what cursor moves and closes remove. The invariants of the
layer (CACHE-APPEND-CACHING, CACHE-BACKLOG-CACHING, CACHE-BELOW-SLOWEST, CACHE-LEDGER-CLOSE) must catch them.
"""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import LegacyCache, Pip430Cache, PulsarMasterCache


class Pip430AppendWithoutCursor(Pip430Cache):
    """An append is cached even when the ledger has no active cursor (``shouldCacheAddedEntry`` skipped).

    Breaks CACHE-APPEND-CACHING.
    """

    def append(self, *, now: int, ledger: int, entry: int, size: int) -> bool:
        cached = super().append(now=now, ledger=ledger, entry=entry, size=size)
        if cached or self._cursors.active(ledger) > 0:
            return cached
        return self.insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=0)  # bug: no cursor


class PulsarMasterAppendIgnoresTracking(PulsarMasterCache):
    """An append expects one read per active cursor even with ``cacheEvictionByExpectedReadCount`` off.

    Breaks CACHE-APPEND-CACHING (with tracking off an added entry has no handler).
    """

    def _append_reads(self, readers: int) -> int | None:
        return readers  # bug: whatever track_reads says


class Pip430BacklogCachedAtZero(Pip430Cache):
    """With tracking off, a read from storage is cached with the cursor's count (``isCacheReadEntry`` ignored).

    Breaks CACHE-BACKLOG-CACHING.
    """

    def _read_reads(self, ledger: int, cursor: str) -> int:
        return self._cursors.count_at_or_before(ledger, cursor)  # bug: whatever track_reads says


class LegacyInvalidatesSlowestToo(LegacyCache):
    """Invalidation by the slowest cursor removes its position too (``<=`` instead of ``<``).

    Breaks CACHE-BELOW-SLOWEST.
    """

    def _invalidate_by_cursors(self, ledger: int, before: int | None, *, left: bool = False) -> None:
        after = self._cursors.slowest(ledger)
        if after is None:
            self.invalidate_ledger(now=self._now, ledger=ledger)
        elif left or after != before:
            self.invalidate_before(now=self._now, ledger=ledger, entry=after + 1)  # bug: the slowest's entry too


class PulsarMasterTrackingInvalidates(PulsarMasterCache):
    """Cursor moves invalidate below the slowest cursor even with tracking on (the mode flag misread).

    Breaks CACHE-BELOW-SLOWEST (with tracking on, invalidation returns at once).
    """

    def _invalidate_by_cursors(self, ledger: int, before: int | None, *, left: bool = False) -> None:
        after = self._cursors.slowest(ledger)
        if after is not None and (left or after != before):
            self.invalidate_before(now=self._now, ledger=ledger, entry=after)  # bug: whatever the mode


class Pip430InvalidatesOnEveryMove(Pip430Cache):
    """In legacy mode every cursor move invalidates below the slowest cursor, moved or not (the test
    of the slowest positions before and after, in ``ManagedLedgerImpl.updateActiveCursor`` at
    managed-ledger 4.2.4, dropped).

    Breaks CACHE-MODEL (an entry cached below the slowest cursor stays until the slowest moves).
    """

    def _invalidate_by_cursors(self, ledger: int, before: int | None, *, left: bool = False) -> None:  # noqa: ARG002 - the bug: ``before`` ignored
        super()._invalidate_by_cursors(ledger, None, left=left)  # bug: as if the slowest had moved


class PulsarMasterOneReadAcrossReopens(PulsarMasterCache):
    """A cursor read across a reopened ledger is one read, counted once at its start (the read per
    BookKeeper ledger that ``OpReadEntry.checkReadCompletion`` makes, managed-ledger 4.2.4, ignored).

    Breaks CACHE-BACKLOG-CACHING (past the reopen, the cursor has moved: its count is taken there).
    """

    def _reopened(self) -> dict[int, list[int]]:
        return {}  # bug: no BookKeeper ledger boundaries


class Pip430CountsCursorsWithTrackingOff(Pip430Cache):
    """With tracking off, a cursor still answers the container's count, not ``isCacheReadEntry() ? 1 : 0``
    (``ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore()``, managed-ledger 4.2.4).

    Breaks CACHE-CURSOR-COUNT (with tracking off the count is 0, what the cursor's reads use).
    """

    def _cursor_count(self, ledger: int, cursor: str) -> int:
        return self._cursors.count_at_or_before(ledger, cursor)  # bug: whatever track_reads says


class PulsarMasterCloseKeepsEntries(PulsarMasterCache):
    """Closing a ledger drops its cursors but leaves its entries cached (the cache is not removed).

    Breaks CACHE-LEDGER-CLOSE.
    """

    def ledger_close(self, *, now: int, ledger: int) -> None:
        self._check_clock(now)
        self._now = now
        for name in self._cursors.of_ledger(ledger):  # bug: no invalidate_ledger
            self._cursors.remove(ledger, name)


class LegacyLastCursorKeepsCache(LegacyCache):
    """The last active cursor leaving does not clear the ledger's cache.

    Breaks CACHE-LEDGER-CLOSE.
    """

    def _invalidate_by_cursors(self, ledger: int, before: int | None, *, left: bool = False) -> None:
        if self._cursors.slowest(ledger) is not None:  # bug: nothing when no cursor is left
            super()._invalidate_by_cursors(ledger, before, left=left)


MUTANTS = [
    Mutant(
        "pip430-append-without-cursor", "pip430", "an append is cached with no active cursor", Pip430AppendWithoutCursor
    ),
    Mutant(
        "pulsar-master-append-ignores-tracking",
        "pulsar-master",
        "appends count the cursors with tracking off",
        PulsarMasterAppendIgnoresTracking,
    ),
    Mutant(
        "pip430-backlog-cached-at-zero",
        "pip430",
        "a read from storage is cached with tracking off",
        Pip430BacklogCachedAtZero,
    ),
    Mutant(
        "pip430-invalidates-on-every-move",
        "pip430",
        "legacy mode invalidates on every cursor move",
        Pip430InvalidatesOnEveryMove,
    ),
    Mutant(
        "legacy-invalidates-slowest-too",
        "legacy",
        "invalidation by cursors removes the slowest's entry",
        LegacyInvalidatesSlowestToo,
    ),
    Mutant(
        "pulsar-master-tracking-invalidates",
        "pulsar-master",
        "cursor moves invalidate with tracking on",
        PulsarMasterTrackingInvalidates,
    ),
    Mutant(
        "pulsar-master-one-read-across-reopens",
        "pulsar-master",
        "a read across a reopen is counted once",
        PulsarMasterOneReadAcrossReopens,
    ),
    Mutant(
        "pip430-counts-cursors-with-tracking-off",
        "pip430",
        "cursor_count counts the container with tracking off",
        Pip430CountsCursorsWithTrackingOff,
    ),
    Mutant(
        "pulsar-master-close-keeps-entries",
        "pulsar-master",
        "a closed ledger's entries stay cached",
        PulsarMasterCloseKeepsEntries,
    ),
    Mutant(
        "legacy-last-cursor-keeps-cache",
        "legacy",
        "the last cursor leaving does not clear",
        LegacyLastCursorKeepsCache,
    ),
]
