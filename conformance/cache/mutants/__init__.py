"""Mutants of the reference caches: each one plausible bug that the conformance suite must kill.

A mutant subclasses the reference cache of one profile and overrides the smallest method (or swaps
the smallest building block) that turns correct behaviour into a bug someone could write: an
off-by-one comparison, a forgotten line, the wrong end of a deque. Each docstring names the bug and
the invariant it should break. ``ledgerspec mutants`` runs the conformance suite against every
mutant and prints the kill matrix; tests/quality/test_mutants.py checks each one is killed.
They ship in the package so that ``ledgerspec mutants`` runs from an installed wheel; one module per
profile (and one for pulsar-master's ``markRequeued()``), each with its classes and its ``MUTANTS``
entries.

Mutants keep the snapshot/observation contract of the reference: they are judged on behaviour
only. Where a bug would livelock a size pass (a requeue that never ends), the mutant carries a
watchdog that ends the pass after a whole cycle without progress, so that the harness sees the bug
instead of hanging; the watchdog changes nothing until the livelock.
"""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.conformance.cache.mutants import (
    _cursor_counts,
    _ledger,
    _legacy,
    _pip430,
    _positions,
    _pulsar_master,
    _requeue,
    _segmented,
    _stash,
)

MUTANTS: list[Mutant] = [
    *_pip430.MUTANTS,
    *_pulsar_master.MUTANTS,
    *_requeue.MUTANTS,
    *_positions.MUTANTS,
    *_legacy.MUTANTS,
    *_segmented.MUTANTS,
    *_ledger.MUTANTS,
    *_cursor_counts.MUTANTS,
    *_stash.MUTANTS,
]
"""Every mutant, by profile; ``ledgerspec mutants`` and tests/quality/test_mutants.py iterate over it."""

__all__ = ["MUTANTS", "Mutant"]
