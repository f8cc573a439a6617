"""The TTL-walk rule of the lockstep machine: two entries of one ledger, then a pass at either's expiry.

A TTL pass walks the cache in some order (by position in ``legacy``, by insertion in the removal queue
of ``pip430`` and ``pulsar-master``) and decides per entry: remove, keep and go on, or stop. A walk that
stops too early, or goes on past where it must stop, shows only when the entries it meets disagree:
one expired and one not, one protected by expected reads and one not, one read since it was queued and
one not, a newer entry at a lower position than an older one (a catch-up read cached after tailing
writes, which a broker does all the time). Left to separate rules such a pair is rare, and a pass
landing exactly at one of the two expiries rarer still; this rule builds the pair and runs the pass
at the cutoff of either entry, or 1 tick either side (where ``<`` and ``<=`` part ways).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, precondition, rule
from ledgerspec.spec.cache import EvictTimestamp, Get, Insert

if TYPE_CHECKING:
    from ledgerspec.conformance._machine import Run

AT = (("ttl", -1), ("ttl", 0), ("ttl", 0), ("ttl", 1), ("ttl", 1), ("ttl_max", 0), ("ttl_max", 1))
"""Where the pass lands after the chosen entry's timestamp: mostly at the ``ttl`` boundary."""


WALK = "ttl_walk"
"""The rule's name, what ``Run.exclude`` names to leave it out (the deviations search does)."""


def ttl_rules(run: Run) -> type:
    """A mixin with the TTL-walk rule (left out with it, ``evict_timestamp`` or ``insert`` excluded)."""
    preset = run.preset
    wanted = not {WALK, "evict_timestamp", "insert"} & run.exclude
    reads = st.sampled_from([0, 1, 2, None]) if run.profile == "pip430" else st.sampled_from([0, 1, 2])

    class TtlRules:
        """Builds two entries whose order in position and in time may disagree, then a TTL pass."""

        copies = Bundle("copies")

        @precondition(lambda _self: wanted)
        @rule(
            target=copies,
            ledger=st.sampled_from(preset.ledgers),
            older_reads=reads,
            newer_reads=reads,
            below=st.booleans(),
            gap=st.sampled_from(preset.ticks),
            touch=st.sampled_from(["", "", "older", "newer"]),
            expiring=st.sampled_from(["older", "newer"]),
            at=st.sampled_from(AT),
        )
        def ttl_walk(
            self: Any,
            ledger: int,
            older_reads: int | None,
            newer_reads: int | None,
            below: bool,
            gap: int,
            touch: str,
            expiring: str,
            at: tuple[str, int],
        ) -> Any:
            """Two writes, perhaps a read of one, and a TTL pass at the ``at`` cutoff of one of them.

            A tailing write, then a later one below the ledger's lowest cached entry (``below``) or
            after it; ``touch`` reads the older or the newer one.
            """
            older = (ledger, self.tail[ledger])
            self.tail[ledger] += 1
            size = min(preset.sizes)
            stamps = {"older": self.tick()}
            self.step(Insert(now=stamps["older"], ledger=ledger, entry=older[1], size=size, expected_reads=older_reads))
            self.tick(gap - 1)
            cached = [e.entry for e in self.history[-1].observation.entries if e.ledger == ledger]
            lowest = min([*cached, older[1]]) - 1
            if below and lowest >= 0:
                newer = (ledger, lowest)
            else:
                newer = (ledger, self.tail[ledger])
                self.tail[ledger] += 1
            stamps["newer"] = self.tick()
            self.step(Insert(now=stamps["newer"], ledger=ledger, entry=newer[1], size=size, expected_reads=newer_reads))
            copies = []
            if touch:
                position = older if touch == "older" else newer
                copy = self.step(Get(now=self.tick(), ledger=ledger, entry=position[1]))
                if copy is not None:
                    self.held[copy] = position
                    copies.append(copy)
            setting, delta = at
            target = stamps[expiring] + getattr(self.config, setting) + delta
            self.step(EvictTimestamp(now=self.tick(max(1, target - self.now))))
            return multiple(*copies)

    return TtlRules


__all__ = ["AT", "WALK", "ttl_rules"]
