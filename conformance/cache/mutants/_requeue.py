"""Mutants of the merged code's ``markRequeued()``: each swaps the removal queue's ``requeue`` for a buggy one.

A requeue stamps ``now``, clears ``accessed``, adds one to ``requeueCount`` whatever the reason, and moves
the wrapper to the tail (apache/pulsar#24623, ``RangeCacheEntryWrapper.markRequeued``); each mutant here
forgets or bends one of the four: the reference's requeue runs, then the mutant undoes its part.
"""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.conformance.cache.mutants._pulsar_master import LivelockWatchdog
from ledgerspec.reference.cache import PulsarMasterCache, RemovalQueue, Wrapper


class _KeepsAccessedQueue(RemovalQueue):
    """``markRequeued()`` that forgets to clear ``accessed``."""

    def requeue(self, now: int) -> Wrapper:
        accessed = self._queue[0].accessed
        head = super().requeue(now)
        head.accessed = accessed  # bug: not cleared
        return head


class PulsarMasterAccessedNeverCleared(LivelockWatchdog):
    """Accessed flag never cleared: one read extends an entry's TTL on every pass, for ever.

    Breaks CACHE-TTL / CACHE-MODEL (an entry read once is requeued again on the next pass instead of
    removed).
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _KeepsAccessedQueue()


class _KeepsTimestampQueue(RemovalQueue):
    """``markRequeued()`` that moves the wrapper to the tail but forgets to stamp ``now``."""

    def requeue(self, now: int) -> Wrapper:
        ts = self._queue[0].ts
        head = super().requeue(now)
        head.ts = ts  # bug: not stamped ``now``
        return head


class PulsarMasterRequeueKeepsTimestamp(PulsarMasterCache):
    """Requeue that keeps the old timestamp: the entry goes to the tail still looking expired, so the
    same pass meets it again and spends its whole requeue budget at once.

    Breaks CACHE-FIFO (timestamps change on requeue) and CACHE-TTL.
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _KeepsTimestampQueue()


class _UncountedRequeueQueue(RemovalQueue):
    """``markRequeued()`` that forgets ``requeueCount++``."""

    def requeue(self, now: int) -> Wrapper:
        head = super().requeue(now)
        head.requeues -= 1  # bug: not counted
        return head


class PulsarMasterRequeueUncounted(LivelockWatchdog):
    """A counter not incremented: ``markRequeued()`` forgets ``requeueCount++``, so the requeue budget is
    never spent and an entry with expected reads is protected for ever.

    Breaks CACHE-QUEUE-ACCOUNTING (a requeue adds one to requeues; needs observe_requeues) and
    CACHE-BOUNDED-PROTECTION.
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _UncountedRequeueQueue()


class _ReadsOnlyBudgetQueue(RemovalQueue):
    """``markRequeued()`` that counts a requeue only when the entry still has expected reads."""

    def requeue(self, now: int) -> Wrapper:
        head = super().requeue(now)
        if head.handler is None or not head.handler.has_expected_reads():
            head.requeues -= 1  # bug: an access requeue is free
        return head


class PulsarMasterAccessRequeueFree(PulsarMasterCache):
    """A requeue for an access alone spends no budget: an entry read often, then awaited, is protected
    longer than ``max_requeue`` allows. The bug of a variant of an outside implementation of the merged
    code, written from the docs, that passed a ``ci`` search of it (BENCHMARKS.md, "Mutant power").

    Breaks CACHE-QUEUE-ACCOUNTING (a requeue adds one to requeues; needs observe_requeues) and
    CACHE-MODEL.
    """

    def _setup(self) -> None:
        super()._setup()
        self._queue = _ReadsOnlyBudgetQueue()


MUTANTS = [
    Mutant(
        "pulsar-master-accessed-never-cleared",
        "pulsar-master",
        "requeue does not clear the accessed flag",
        PulsarMasterAccessedNeverCleared,
    ),
    Mutant(
        "pulsar-master-requeue-keeps-timestamp",
        "pulsar-master",
        "requeue does not stamp now",
        PulsarMasterRequeueKeepsTimestamp,
    ),
    Mutant(
        "pulsar-master-requeue-uncounted",
        "pulsar-master",
        "a requeue does not add to requeueCount",
        PulsarMasterRequeueUncounted,
    ),
    Mutant(
        "pulsar-master-access-requeue-free",
        "pulsar-master",
        "a requeue for an access alone does not add to requeueCount",
        PulsarMasterAccessRequeueFree,
    ),
]
