"""CACHE-NON-EVICTABLE-SIZE: ``getNonEvictableSize()`` is the bytes of the entries the profile calls non-evictable."""

from __future__ import annotations

from ledgerspec.spec.cache._kernels import can_evict
from ledgerspec.spec.cache._normative import Check
from ledgerspec.spec.cache._observation import CachedEntry
from ledgerspec.spec.cache.invariants._declare import COUNTS, MASTER, PIP430, Invariant, StepView

NON_EVICTABLE = "observe_non_evictable_size"
"""The adapter capability that shows it (conformance/cache/adapters/_api.py)."""


def counted(profile: str, entry: CachedEntry) -> bool:
    """Whether the profile's ``getNonEvictableSize()`` counts the entry.

    pulsar-master: no handler, or ``hasExpectedReads()`` (count >= 1). An entry without a handler counts
    although every pass treats it as evictable (E5, SPEC.md §3.1), as the test helper is written in
    managed-ledger 4.2.4 ``RangeCacheRemovalQueue.getNonEvictableSize``. pip430: ``!canEvict()``
    (pip-430.md at cf3d7d17d9): a handler with a count above 0.

    Micro-scenario: A (10 bytes, no handler), B (20, count 1), C (40, count 0): pulsar-master 30, pip430 20.
    """
    if profile == MASTER:
        return entry.count is None or entry.count >= 1
    return not can_evict(entry.count)


class NonEvictableSize(Check):
    """The observed non_evictable_size is the bytes of the cached entries the profile counts (:func:`counted`)."""

    def step(self, view: StepView) -> None:
        """Judge the observation after the step (not observed: not judged)."""
        after = view.after
        if after.non_evictable_size is None:
            return
        want = sum(entry.size for entry in after.entries if counted(view.profile, entry))
        if after.non_evictable_size != want:
            view.report([f"non_evictable_size {after.non_evictable_size}, the entries it counts hold {want} bytes"])


RULE = NonEvictableSize()


INVARIANT = Invariant(
    order=22,
    id="CACHE-NON-EVICTABLE-SIZE",
    statement=(
        "non_evictable_size is the sum of the sizes of the cached entries the profile's getNonEvictableSize() "
        "counts: in pulsar-master those without a handler or with a count of at least 1 (E5: an entry "
        "without a handler counts, although passes evict it); in pip430 those canEvict() refuses (count > 0)."
    ),
    citation=(
        "managed-ledger 4.2.4 (apache/pulsar PR #24623) RangeCacheRemovalQueue.getNonEvictableSize; "
        "apache/pulsar pip/pip-430.md at cf3d7d17d9 (CachedEntry.canEvict)"
    ),
    profiles=(PIP430, MASTER),
    check=RULE,
    needs={"*": frozenset({NON_EVICTABLE, COUNTS})},
    soundness="the size is observed, never recorded: conformance only",
    on_traces=False,
    conformance_only="all of it: the size is an observation, not an event",
)
