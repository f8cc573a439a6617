"""The boundaries the lockstep machine aims at: where ``<`` and ``<=`` part ways, and what races a removal.

Bugs live at boundaries (issue 16 item 4): a TTL cutoff hit exactly, an entry ending exactly at a
segment's end, a read-count operation arriving through a copy of an entry just removed. The rules of
:mod:`ledgerspec.conformance.cache.machine._core` draw among these named targets instead of hoping to hit them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import strategies as st
from ledgerspec.spec.cache import CacheConfig, EvictBefore, EvictBytes, Op, RemoveRange
from ledgerspec.spec.cache.segmented import geometry

if TYPE_CHECKING:
    from ledgerspec.conformance.cache._presets import Preset

TARGETED: tuple[type[Op], ...] = (EvictBytes, EvictBefore, RemoveRange)
"""Removals with a target of their own, each behind its capability; one rule draws among them."""

CUTOFFS = ("ttl-1", "ttl", "ttl+1", "ttl_max-1", "ttl_max", "ttl_max+1")
"""Moments relative to an entry's timestamp where a TTL comparison's ``<`` and ``<=`` part ways."""


AFTER_REMOVAL = ("", "release", "replay", "release+replay")
"""What follows a forced removal of an entry being read, through its open copies: nothing, a markRead, a
Key_Shared replay (``incrementExpectedReadCount``), or a markRead then a replay through another copy."""


ENTRY_BASES = (0, 0, 0, 0, 60, 2**31 - 4, 2**31 - 4, 2**32 - 4)
"""Where an example's entry ids start (one base per example, the drawn ids and tailing writes past it).

Half of the examples start at 0, where the shrinker takes them. The others straddle a boundary an
implementation may break at: a page of 64 slots (managed-ledger 5.0.1's ``RangeCache``), an ``(int)``
cast of an entry id at 2^31 (a quarter of the examples: the likeliest bug), and a 32-bit field of a
packed ``ledgerId << 32 | entryId`` key at 2^32. The managed-ledger layer's appends start at 0 whatever
the base, as a BookKeeper ledger's do. What the bases cost the mutants that need no large id (one seed
of one mutant in the 20-seed matrix) is in BENCHMARKS.md, "Mutant power".
"""

LEDGER_BASES = (0, 0, 0, 0, 0, 2**31 - 2, 2**31 - 2, 2**32 - 2)
"""What an example adds to the preset's ledger ids (1-3): one base per example, drawn apart from the entries'.

Five eighths of the examples keep ids 1-3. A quarter have 2^31 - 1, 2^31 and 2^31 + 1, the first
(where the shrinker goes) the last ledger whose ``ledgerId << 32`` is positive, the end of whose packed
keys, ``(ledgerId + 1) << 32``, overflows a long; the next where an ``(int)`` cast turns negative. An
eighth have 2^32 - 1, 2^32 and 2^32 + 1, past a 32-bit ledger field.
"""


def entry_ids(preset: Preset) -> st.SearchStrategy[int]:
    """An entry id of the example's range: ``preset.entries`` ids from its base (``ENTRY_BASES``)."""
    return entry_base().flatmap(lambda first: st.integers(first, first + preset.entries - 1))


def entry_base() -> st.SearchStrategy[int]:
    """The example's entry base: the same draw wherever it is asked for."""
    return st.shared(st.sampled_from(ENTRY_BASES), key="entry-base")


def ledger_ids(preset: Preset) -> st.SearchStrategy[int]:
    """A ledger id of the example's: one of the preset's, plus its base (``LEDGER_BASES``)."""
    return ledger_base().flatmap(lambda base: st.sampled_from([base + ledger for ledger in preset.ledgers]))


def ledger_base() -> st.SearchStrategy[int]:
    """The example's ledger base: the same draw wherever it is asked for."""
    return st.shared(st.sampled_from(LEDGER_BASES), key="ledger-base")


def cutoffs(config: CacheConfig) -> dict[str, int]:
    """The offsets of :data:`CUTOFFS` under ``config``."""
    bases = ("ttl", "ttl_max")
    return {f"{name}{off:+d}" if off else name: getattr(config, name) + off for name in bases for off in (-1, 0, 1)}


def segment_end(config: CacheConfig, size: int) -> int:
    """The size at which the segment being filled is full, from the observed ``size`` (segmented).

    ``ReadCache.size()`` is the current offset plus a full segment per other non-empty segment, so
    the current segment ends at the next multiple of the segment size (BookKeeper ReadCache at 9590a97f67).
    """
    _, segment = geometry(config)
    return (size // segment + 1) * segment


__all__ = [
    "AFTER_REMOVAL",
    "CUTOFFS",
    "ENTRY_BASES",
    "LEDGER_BASES",
    "TARGETED",
    "cutoffs",
    "entry_base",
    "entry_ids",
    "ledger_base",
    "ledger_ids",
    "segment_end",
]
