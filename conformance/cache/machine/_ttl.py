"""The TTL rules of the lockstep machine: a walk over two entries, and entries a pass spared.

``ttl_walk``: two entries of one ledger, then a pass at either's expiry. A TTL pass walks the cache in
some order (by position in ``legacy``, by insertion in the removal queue of ``pip430`` and
``pulsar-master``) and decides per entry: remove, keep and go on, or stop. A walk that stops too early, or goes
on past where it must stop, shows only when the entries it meets disagree: one expired and one not, one
protected by expected reads and one not, one read since it was queued and one not, a newer entry at a
lower position than an older one (a catch-up read cached after tailing writes, which a broker does all
the time). Left to separate rules such a pair is rare, and a pass landing exactly at one of the two
expiries rarer still; this rule builds the pair and runs the pass at the cutoff of either entry, or 1
tick either side (where ``<`` and ``<=`` part ways).

``spare_then_release``: entries a pass spared for their readers, judged again once released (its
docstring says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, precondition, rule
from ledgerspec.conformance.cache.machine._marks import ledger_ids
from ledgerspec.spec.cache import EvictBytes, EvictSize, EvictTimestamp, Get, Insert, Release

if TYPE_CHECKING:
    from ledgerspec.conformance.cache.machine._core import Run

AT = (("ttl", -1), ("ttl", 0), ("ttl", 0), ("ttl", 1), ("ttl", 1), ("ttl_max", 0), ("ttl_max", 1))
"""Where the pass lands after the chosen entry's timestamp: mostly at the ``ttl`` boundary."""


WALK = "ttl_walk"
"""The rule's name, what ``Run.exclude`` names to leave it out (the deviations search does)."""
SPARE = "spare_then_release"
"""The second rule's name."""


def ttl_rules(run: Run) -> type:  # noqa: C901 - a rule class: its nested functions count here
    """A mixin with the TTL-walk and spare rules (each left out with it, ``evict_timestamp`` or ``insert`` excluded)."""
    preset = run.preset
    wanted = not {WALK, "evict_timestamp", "insert"} & run.exclude
    reads = st.sampled_from([0, 1, 2, None]) if run.profile == "pip430" else st.sampled_from([0, 1, 2])

    spare = not {SPARE, "evict_timestamp", "insert", "get", "release"} & run.exclude
    bytes_pass = run.sends(EvictBytes)

    class TtlRules:
        """Two entries whose order in position and in time may disagree, then a TTL pass; spared entries."""

        copies = Bundle("copies")

        @precondition(lambda _self: wanted)
        @rule(
            target=copies,
            ledger=ledger_ids(preset),
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

        @precondition(lambda _self: spare)
        @rule(
            ledger=ledger_ids(preset),
            count=st.integers(1, 3),
            reads=st.integers(1, 2),
            gap=st.sampled_from(preset.ticks),
            again=st.booleans(),
            then=st.sampled_from(["bytes", "bytes", "ttl", "ttl_max", "size"]),
        )
        def spare_then_release(
            self: Any, ledger: int, count: int, reads: int, gap: int, again: bool, then: str
        ) -> None:
            """Awaited entries read, spared by a TTL pass, released, then judged again by another pass.

            What a pass spares (stashed in pip430, requeued in pulsar-master) lives where no
            observation shows it (the stash and its index, the queue order) until a later pass runs
            after the protection is gone. Left to the separate rules, a released stashed entry met by
            a pass came a few times a run: a stash that kept a released entry's old place, or took the
            newest first, survived the ci searches (bugs written blind, by someone who had not seen
            the mutants; BENCHMARKS.md, "Mutant power").

            ``again``: just before the entries' ``ttl_max`` a newer entry is written and each spared
            one is inserted again (a racing reader: merged in pip430, refused in pulsar-master)
            before the releases. ``then``, the last pass: one byte, a TTL pass now or just past the
            entries' ``ttl_max``, or a size pass.
            """
            size = min(preset.sizes)
            entries = list(range(self.tail[ledger], self.tail[ledger] + count))
            self.tail[ledger] += count
            for entry in entries:
                self.step(Insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=reads))
            copies = [self.step(Get(now=self.tick(), ledger=ledger, entry=entry)) for entry in entries]
            written = self.now
            self.step(EvictTimestamp(now=self.tick(self.config.ttl + gap)))
            if again:  # just before the first entry's ttl_max: the newer entry is young at the last pass
                self.tick(max(1, written + self.config.ttl_max - 1 - self.now))
                self.step(Insert(now=self.tick(), ledger=ledger, entry=self.tail[ledger], size=size, expected_reads=0))
                self.tail[ledger] += 1
                for entry in entries:
                    self.step(Insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=reads))
            for copy in copies:
                if copy is not None:
                    self.step(Release(now=self.tick(), copy=copy))
            if then == "bytes" and bytes_pass:
                self.step(EvictBytes(now=self.tick(), bytes=1))
            elif then == "size" and "evict_size" not in run.exclude:
                self.step(EvictSize(now=self.tick()))
            elif then == "ttl_max":
                self.step(EvictTimestamp(now=self.tick(max(1, written + self.config.ttl_max + 1 - self.now))))
            else:
                self.step(EvictTimestamp(now=self.tick()))

    return TtlRules


__all__ = ["AT", "WALK", "ttl_rules"]
