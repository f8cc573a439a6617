"""Mutants of the pip430 reference's stash, written blind: by someone who had not seen the catalogue,
asked for bugs a real engineer makes (BENCHMARKS.md, "Mutant power").

The stash holds the entries a pass spared (past ``ttl``, still awaited: pip-430.md at cf3d7d17d9) in
insertion order, with an index of those whose count now lets them go. No observation shows the stash
or its index; each bug shows only when a pass meets a spared entry after its protection is gone, which
the search's ``spare_then_release`` rule builds.
"""

from __future__ import annotations

from typing import Any

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import Pip430Cache, Stash


class Pip430ReleaseNotRefiled(Pip430Cache):
    """A release (``markRead``) does not re-file a stashed entry in the evictable index: one whose count
    fell to 0 stays protected until ``ttl_max``.

    Breaks CACHE-TTL and CACHE-FIFO (a pass keeps what it must remove).
    """

    def release(self, *, now: int, copy: int) -> None:
        self._check_clock(now)
        wrapper = self._open_copy(copy, "release")
        self._now = now
        del self._copies[copy]
        wrapper.handler.mark_read()  # the bug: no self._stash.refresh(wrapper)
        if self._listener is not None:
            self._emit("release", copy=copy, count=wrapper.handler.count)


class Pip430MergeRequeuesStashed(Pip430Cache):
    """A duplicate insert merged into a stashed entry offers it again at the queue's tail: behind newer
    entries, a TTL pass that stops at the first young one never reaches it.

    Breaks CACHE-TTL and CACHE-OLDEST-FIRST.
    """

    def insert(self, *, now: int, ledger: int, entry: int, size: int, expected_reads: int | None = 0) -> Any:
        previous = self._ranges.get(ledger, entry)
        result = super().insert(now=now, ledger=ledger, entry=entry, size=size, expected_reads=expected_reads)
        if previous is not None and expected_reads is not None and previous.stashed:
            self._stash.discard(previous)
            self._queue.offer(previous)
        return result


class _NewestEvictableFirst(Stash):
    """The evictable index read from the wrong end."""

    def _evictable_head(self) -> int:
        return int(self._evictable[-1])  # the bug: [0] is the oldest


class Pip430StashNewestFirst(Pip430Cache):
    """A size pass takes the newest evictable stashed entry first, not the oldest.

    Breaks CACHE-OLDEST-FIRST.
    """

    def _setup(self) -> None:
        super()._setup()
        self._stash = _NewestEvictableFirst(lambda wrapper: wrapper.handler.can_evict())


MUTANTS: list[Mutant] = [
    Mutant(
        "pip430-release-not-refiled",
        "pip430",
        "a release does not re-file a stashed entry as evictable",
        Pip430ReleaseNotRefiled,
    ),
    Mutant(
        "pip430-merge-requeues-stashed",
        "pip430",
        "a merge into a stashed entry puts it at the queue's tail",
        Pip430MergeRequeuesStashed,
    ),
    Mutant(
        "pip430-stash-newest-first",
        "pip430",
        "a size pass takes the newest evictable stashed entry first",
        Pip430StashNewestFirst,
    ),
]
