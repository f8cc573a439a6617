"""Mutants of how a cache keys its positions: bugs that show only at large entry or ledger ids.

The search starts an example's entry ids, and offsets its ledger ids, at a boundary now and then
(``ENTRY_BASES`` and ``LEDGER_BASES`` of the lockstep machine); these mutants are why: each is correct
below 2^31 - 1 and wrong at some id from there on, so a search drawing small ids alone lets it pass.
"""

from __future__ import annotations

from ledgerspec.conformance.cache._mutants import Mutant
from ledgerspec.reference.cache import PulsarMasterCache, RangeCaches, Wrapper


def _as_int(entry: int) -> int:
    """Java's ``(int) entryId``: the low 32 bits, signed."""
    return (entry + 2**31) % 2**32 - 2**31


def _as_long(value: int) -> int:
    """Java's ``long`` arithmetic: the low 64 bits, signed."""
    return (value + 2**63) % 2**64 - 2**63


class _IntKeyedRanges(RangeCaches[Wrapper]):
    """Range caches that key each ledger's entries by ``(int) entryId``, as an int-keyed map would."""

    def get(self, ledger: int, entry: int) -> Wrapper | None:
        return super().get(ledger, _as_int(entry))

    def put(self, ledger: int, entry: int, value: Wrapper) -> None:
        super().put(ledger, _as_int(entry), value)

    def pop(self, ledger: int, entry: int) -> Wrapper:
        return super().pop(ledger, _as_int(entry))

    def pop_before(self, ledger: int, entry: int) -> list[Wrapper]:
        return super().pop_before(ledger, _as_int(entry))

    def pop_range(self, ledger: int, first: int, end: int) -> list[Wrapper]:
        return super().pop_range(ledger, _as_int(first), _as_int(end))


class PulsarMasterIntEntryKeys(PulsarMasterCache):
    """Entry ids cast to ``int`` as keys: past 2^31 - 1 they turn negative and sort before entry 0.

    Invalidating below a position past 2^31 then removes only what was cached past 2^31 and keeps the
    entries just below it; a range removal across 2^31 removes nothing; ``first`` answers the cast key.
    Past 2^32 an id aliases the id 2^32 below it (entry 2^32 reads entry 0's value; an insert there is
    refused). Breaks CACHE-NO-STALE-READ and CACHE-MODEL; below 2^31 it is the reference.
    """

    def _setup(self) -> None:
        super()._setup()
        self._ranges = _IntKeyedRanges()


class _PackedLedgerRanges(RangeCaches[Wrapper]):
    """Range caches that drop a ledger as the range of its packed keys, ``[ledger << 32, (ledger + 1) << 32)``.

    As a map keyed by one ``long`` per position (``ledgerId << 32 | entryId``) would: in Java's long
    arithmetic the end of ledger 2^31 - 1's range is -2^63, below its start, and a walk up to the end
    removes nothing.
    """

    def pop_ledger(self, ledger: int) -> list[Wrapper]:
        if _as_long((ledger + 1) << 32) <= _as_long(ledger << 32):
            return []
        return super().pop_ledger(ledger)


class PulsarMasterPackedLedgerRange(PulsarMasterCache):
    """A whole ledger removed as the range of its packed keys: ledger 2^31 - 1's range is empty.

    Invalidating (or closing) that ledger leaves every entry of it cached; every other ledger is
    removed as the reference removes it. Breaks CACHE-LEDGER-CLOSE, CACHE-NO-STALE-READ and CACHE-MODEL there.
    """

    def _setup(self) -> None:
        super()._setup()
        self._ranges = _PackedLedgerRanges()


MUTANTS = [
    Mutant(
        "pulsar-master-int-entry-keys",
        "pulsar-master",
        "entry ids keyed as (int) entryId: past 2^31 - 1 they sort before 0",
        PulsarMasterIntEntryKeys,
    ),
    Mutant(
        "pulsar-master-packed-ledger-range",
        "pulsar-master",
        "a ledger removed as its packed keys' range [L << 32, (L + 1) << 32): empty in long arithmetic at 2^31 - 1",
        PulsarMasterPackedLedgerRange,
    ),
]
