"""CACHE-SPACE-CHECK (legacy): an insert is cached exactly when the size before it is below maxSize."""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Check, Judge
from ledgerspec.spec.cache._shadow import At
from ledgerspec.spec.cache.invariants._declare import LEGACY, Invariant


class SpaceCheck(Check):
    """An insert of an uncached position is cached exactly when the size before it is below maxSize.

    ``hasSpaceInCache`` reads the size before the insert (a disabled cache has no space).
    """

    kinds = frozenset({"insert", "insert_refused"})

    def event(self, at: At, judge: Judge) -> None:
        """An insert or a refusal of an uncached position, against the size before it."""
        if at.cached is not None:
            return
        limit = judge.config.max_size if judge.enabled else 0
        position, size = at.event.position, at.total
        if at.event.kind == "insert" and size >= limit:
            judge.report(f"cached {position} while the size {size} was not below maxSize {limit}")
        elif at.event.kind == "insert_refused" and size < limit:
            judge.report(f"refused {position} while the size {size} was below maxSize {limit}")


INVARIANT = Invariant(
    order=17,
    id="CACHE-SPACE-CHECK",
    statement=(
        "An insert of an uncached position is cached exactly when the cache's size before it is below "
        "maxSize (hasSpaceInCache reads the size before the insert): one insert may take the size above "
        "maxSize, and every later one is refused until eviction brings it back below (L5)."
    ),
    citation=(
        "apache/pulsar at 8ce67b97b3^ (the parent of PR #24363): impl/cache/RangeEntryCacheManagerImpl.java "
        "hasSpaceInCache, impl/cache/RangeEntryCacheImpl.java insert"
    ),
    profiles=(LEGACY,),
    check=SpaceCheck(),
    events={"*": frozenset({"insert", "insert_refused", "remove"})},
    soundness="the size it reads is the broker-wide sum of the live entries",
)
