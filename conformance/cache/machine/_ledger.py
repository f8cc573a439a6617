"""The managed-ledger rules of the lockstep machine, for adapters that claim ``managed_ledger``.

One rule draws among the layer's operations: appends (cached iff the ledger has an active cursor), a
cursor reading up to a point (what storage returns cached iff its count is positive, then the cursor
moves and, in legacy mode, the cache below the slowest cursor goes), a ledger closing (and, half of
the time in tracking mode, coming back on a new BookKeeper ledger for two cursors to read across),
every cursor of a ledger leaving (in legacy mode the last one clears the cache), and the
expected-read-count tracking switched (``track_reads``). One rule, not five: Hypothesis enables a
random subset of the rules in each example, and every rule added makes the others rarer. But the rule
is registered twice: a broker's traffic is mostly the layer's, and as one rule among some twenty-five
it was drawn about once an example (a `ci` run of 200 examples closed a ledger 14 times, never one
with entries cached). The class is mixed in only when the adapter claims the capability, so searches
of other adapters are unchanged.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, initialize, multiple, rule
from ledgerspec.spec.cache import Append, Configure, CursorAdd, CursorRead, CursorRemove, LedgerClose

LAYER = "managed_ledger"
"""The capability, the rule's name, and what ``Run.exclude`` names to leave the layer out of a search."""

LEDGER_KINDS = ("append", "append", "read", "read", "read", "close", "close", "tracking")
"""What the rule does, weighted: reads and appends are what a broker does most. A ``close`` is the
ledger closing or, half of the time in legacy mode (where the last one clears), its cursors leaving:
a kind of its own made appends and reads rarer, and mutants of the tracking-off mode slipped seeds.
It is drawn twice as often as once it was: a ci run closed a ledger with entries cached too seldom."""


def ledger_rules(  # noqa: C901 - a rule class: its nested functions count here
    ledgers: st.SearchStrategy[int], sizes: st.SearchStrategy[int], *, switch: bool, legacy: bool
) -> type:
    """A mixin with the managed-ledger rule.

    ``switch``: the adapter may change ``track_reads`` at run time; ``legacy``: the profile is always
    in legacy mode (the last cursor leaving clears, whatever ``track_reads`` says).
    """
    layer_rule = rule(
        target=Bundle("copies"),
        kind=st.sampled_from(LEDGER_KINDS),
        ledger=ledgers,
        cursor=st.one_of(st.none(), Bundle("cursors")),
        size=sizes,
        span=st.sampled_from([0, 0, 1, 2]),
        ahead=st.integers(0, 2),
    )

    class ManagedLedgerRules:
        """Appends, cursor reads and ledger closes, on the machine's cursors and copies."""

        cursors, copies = Bundle("cursors"), Bundle("copies")

        @initialize(tracking=st.sampled_from([True, False]))
        def starting_tracking(self: Any, tracking: bool) -> None:
            """Half the examples run with ``track_reads`` off from the start.

            Off is drawn second (``sampled_from``, not ``booleans``): Hypothesis's simplest examples
            draw the first choice everywhere, and with off first they were the off examples, where
            the search then met almost no cursor seek (2 of 46 seeks in a ci run).

            Pulsar's default is on; a switch flipped by a rule late in an example rarely leaves the
            search the appends, subscriptions and backlog reads that show what the off mode caches.
            """
            if switch and not tracking:
                self.tracking = False
                self.step(Configure(now=self.tick(), track_reads=False))

        @layer_rule
        def managed_ledger(self: Any, **step: Any) -> Any:
            """The layer's traffic (see ``layer_step``)."""
            return self.layer_step(**step)

        @layer_rule
        def managed_ledger_again(self: Any, **step: Any) -> Any:
            """The same rule again: drawn twice as often (see the module's docstring)."""
            return self.layer_step(**step)

        def layer_step(
            self: Any, kind: str, ledger: int, cursor: tuple[int, str] | None, size: int, span: int, ahead: int
        ) -> Any:
            """An append of the ledger's next entry, a cursor's read (appending up to it first), a close, a switch.

            A read with no cursor drawn is a new subscription reading the ledger's backlog from entry 0:
            what was appended while the ledger had no cursor comes from storage. A switch is followed by
            an append to a ledger with an active cursor, if any: a switch nothing follows shows nothing.
            """
            if kind == "tracking" and switch:
                self.tracking = not getattr(self, "tracking", self.config.track_reads)
                self.step(Configure(now=self.tick(), track_reads=self.tracking))
                followed = sorted({key[0] for key in self.cursor_positions})
                if followed:  # the next append to a followed ledger is where the new mode shows
                    self.append(ledger if ledger in followed else followed[0], size, 1)
                return multiple()
            if kind == "close":
                clears = not self.counts_reads()  # where the last cursor leaving must clear
                kind = "leave" if span and clears else "close"
                ledger = self.aimed(kind, ledger, ahead)
                reopen = kind == "close" and span > 0  # it comes back (a topic loaded again): tracking mode only
                if reopen and not self.stored_end(ledger):  # a new BookKeeper ledger follows one holding entries
                    self.append(ledger, size, 1)
                self.ledger_ends(kind, ledger, size)
                if reopen:
                    self.append(ledger, size, 1)  # on a new BookKeeper ledger
                    return multiple(*self.read_past_reopen(ledger, size))
                return multiple()
            if kind != "read":
                self.append(ledger, size, ahead + 1)
                return multiple()
            if cursor is None or cursor not in self.cursor_positions:
                reopened = sorted(at for at, starts in self.reopen_starts().items() if starts)
                if self.counts_reads() and ahead and reopened and ledger not in reopened:  # subscribers come back
                    ledger = reopened[ahead % len(reopened)]
                if self.stored_end(ledger) == 0:
                    self.append(ledger, size, ahead + 1)
                    return multiple()
                self.serial += 1  # a new subscription reading the ledger's backlog from its first entry
                cursor = (ledger, f"c{self.serial}")
                self.step(CursorAdd(now=self.tick(), ledger=ledger, cursor=cursor[1], entry=0))
                self.cursor_positions[cursor] = 0
            return multiple(*self.read_on(cursor, span, ahead, size))

        def read_on(self: Any, cursor: tuple[int, str], span: int, ahead: int, size: int) -> list[int]:
            """The cursor reads ``span + 1`` entries, producers ``ahead`` (the longest reads past a reopen)."""
            ledger, name = cursor
            position = self.cursor_positions[cursor]
            reach = position + span
            if span == 2 and self.counts_reads():  # the longest reads reach past the next reopen
                reach = max([reach, *(start for start in self.reopens(ledger) if start > position)][:2])
            self.append(ledger, size, reach + 1 + ahead - self.stored_end(ledger))  # producers run ahead
            last = min(reach, self.stored_end(ledger) - 1)
            if last < position:
                return []
            got = self.step(CursorRead(now=self.tick(), ledger=ledger, cursor=name, last=last))
            self.cursor_positions[cursor] = last + 1
            self.held.update((copy, (ledger, position + i)) for i, copy in enumerate(got) if copy is not None)
            return [copy for copy in got if copy is not None]

        def read_past_reopen(self: Any, ledger: int, size: int) -> list[int]:
            """Two cursors of a ledger just reopened (new subscriptions from 0 if it has fewer than two) read.

            The slowest but one reads an entry, then the slowest reads past the reopen: its second
            BookKeeper ledger's read counts the first cursor, and its first read does not.
            """
            behind = sorted((at, key) for key, at in self.cursor_positions.items() if key[0] == ledger)
            while len(behind) < 2:
                self.serial += 1
                key = (ledger, f"c{self.serial}")
                self.step(CursorAdd(now=self.tick(), ledger=ledger, cursor=key[1], entry=0))
                self.cursor_positions[key] = 0
                behind.insert(0, (0, key))
            first: list[int] = self.read_on(behind[1][1], 0, 0, size)
            past: list[int] = self.read_on(behind[0][1], 2, 0, size)
            return first + past

        def aimed(self: Any, kind: str, ledger: int, ahead: int) -> int:
            """The ledger drawn, or (``ahead`` > 0) one with entries cached; to leave, one with cursors.

            Cached ones first: cursors leaving a ledger that has none show nothing.
            """
            cached = sorted({e.ledger for e in self.history[-1].observation.entries}) if self.history else []
            if kind == "leave":
                followed = sorted({key[0] for key in self.cursor_positions})
                cached = [at for at in cached if at in followed] or followed
            return cached[ahead % len(cached)] if ahead and cached and ledger not in cached else ledger

        def ledger_ends(self: Any, kind: str, ledger: int, size: int) -> None:
            """The ledger closes, or (``leave``) its active cursors deactivate one by one, the slowest last.

            Either must leave nothing of the ledger cached (the leave: with tracking off, or always in
            legacy), so both are aimed at a ledger with entries cached, most of the time. The fastest
            cursors leave first: the slowest stays where it is, so what is cached from it on stays
            until the last one leaves (in name order, the slowest often left early and took it all).
            A ledger with active cursors and nothing cached gets one append first (cached: it has
            cursors), so there is something to remove. A close notes where the ledger's next append
            starts a new BookKeeper ledger.
            """
            mine = sorted(
                (key for key in self.cursor_positions if key[0] == ledger),
                key=lambda key: (-self.cursor_positions[key], key),
            )
            if mine and not any(e.ledger == ledger for e in self.history[-1].observation.entries):
                self.append(ledger, size, 1)
            if kind == "close":
                self.step(LedgerClose(now=self.tick(), ledger=ledger))
                if self.stored_end(ledger):
                    self.reopens(ledger).append(self.stored_end(ledger))
            for key in mine:
                if kind == "leave":
                    self.step(CursorRemove(now=self.tick(), ledger=ledger, cursor=key[1]))
                del self.cursor_positions[key]

        def counts_reads(self: Any) -> bool:
            """Tracking mode: reads are counted (and a read past a reopen twice); not in legacy mode."""
            return not legacy and bool(self.config.track_reads)

        def stored_end(self: Any, ledger: int) -> int:
            """The entry the ledger's next append gets: appends start at 0, where the cursors are."""
            appended: dict[int, int] = self.__dict__.setdefault("appended", {})
            return appended.get(ledger, 0)

        def reopen_starts(self: Any) -> dict[int, list[int]]:
            """Per ledger, where its reopens started BookKeeper ledgers, in order (a cursor read stops at each)."""
            reopened: dict[int, list[int]] = self.__dict__.setdefault("reopened", {})
            return reopened

        def reopens(self: Any, ledger: int) -> list[int]:
            """Where the ledger's reopens started BookKeeper ledgers (``reopen_starts``)."""
            starts: list[int] = self.reopen_starts().setdefault(ledger, [])
            return starts

        def append(self: Any, ledger: int, size: int, times: int) -> None:
            """``times`` appends of the ledger's next entries (at most 4, so counterexamples stay short)."""
            for _ in range(max(0, min(times, 4))):
                entry = self.stored_end(ledger)
                self.step(Append(now=self.tick(), ledger=ledger, entry=entry, size=size))
                self.appended[ledger] = entry + 1

    return ManagedLedgerRules


__all__ = ["LAYER", "LEDGER_KINDS", "ledger_rules"]
