"""The fill rule of the lockstep machine: producers outrunning eviction, to the size marks and past them.

A size pass that starts at ``>=`` for ``>``, stops at the trigger for the watermark, or frees what the
size was when it runs for what it was when decided, shows only when a write lands exactly on a mark,
or one byte either side, and the pass comes right then: rare for separate rules, so one rule builds
the sequence. It is registered twice (``fill`` and ``fill_again``): as one rule among some thirty it
was drawn a couple of times an example, and the trigger mutants slipped about one seed in twenty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import rule
from ledgerspec.conformance.cache.machine._marks import segment_end
from ledgerspec.spec.cache import EvictSize, Insert

if TYPE_CHECKING:
    from ledgerspec.conformance.cache.machine._core import Run


def fill_rules(run: Run, ledgers: st.SearchStrategy[int], sizes: st.SearchStrategy[int]) -> type:  # noqa: C901 - a rule class: its nested functions count here
    """A mixin with the fill rule, twice; the machine gives ``step``, ``tick``, ``tail`` and ``tailing_insert``."""
    preset = run.preset
    legacy = run.profile == "legacy"
    # segmented has no trigger (no size pass): its boundary is the end of the segment being filled
    marks = ("segment", "segment") if run.profile == "segmented" else ("trigger", "trigger")
    fill_rule = rule(
        ledgers_used=st.lists(ledgers, min_size=1, max_size=3),
        size=sizes,
        expected_reads=st.sampled_from([0, 0, 1, 2, 3]),
        until=st.sampled_from(["above", "above", *marks, "watermark", "max"]),
        off_by=st.sampled_from([0, 0, 1, -1]),
        then=st.sampled_from(["", "evict", *(["insert+evict"] if legacy else ["evict"]), "insert+evict"]),
        more=st.sampled_from([0, 1, 1, 2]),
    )

    class FillRules:
        """Writes to a size mark (or above the trigger), then perhaps the pass."""

        @fill_rule
        def fill_again(self: Any, **fill: Any) -> None:
            """The fill rule again: drawn twice as often (see the module's docstring)."""
            self.fill(**fill)

        @fill_rule
        def fill(
            self: Any,
            ledgers_used: list[int],
            size: int,
            expected_reads: int,
            until: str,
            off_by: int,
            then: str,
            more: int,
        ) -> None:
            """Producers outrun eviction: tailing writes until the size is above the trigger, or one write to a mark.

            The marks are the trigger (in segmented, which has none, the end of the segment being
            filled), the watermark and the maximum, or 1 byte either side (``off_by``): where ``>`` and
            ``>=`` part ways. One write sized to land on the mark exactly (a mark already passed: the
            size eviction runs first, as the executor would) keeps counterexamples short. Otherwise
            round robin over the ledgers drawn; at most 16 writes (some may be refused). ``then`` runs
            the size eviction right after landing on a mark, or after one more smallest write (legacy
            tests the trigger when an insert comes, the others when the pass runs: each draws its own
            way more often): where a ``>=`` for ``>`` at the mark shows. ``more``
            writes of ``size`` then arrive before the pass runs: the size when a pass was decided and the
            size when it runs differ, and a pass computing its target from the wrong one shows. The writes
            are mostly awaited by no reader (``expected_reads`` 0, producers ahead of every cursor): a
            pass can evict only those in pip430, so only they show where it starts and stops.
            """
            config = self.config
            observed = self.history[-1].observation.size if self.history else 0
            if until != "above":
                marks = {
                    "trigger": config.trigger_size,
                    "watermark": config.watermark_size,
                    "max": config.max_size,
                    "segment": segment_end(config, observed),
                }
                observed = self.executor_runs(marks[until] + off_by, observed, ledgers_used[0])
                drawn, size = size, marks[until] + off_by - observed
                if size <= 0:
                    return
            for attempt in range(16 if until == "above" else 1):
                if until == "above" and self.history and self.history[-1].observation.size > config.trigger_size:
                    return
                ledger = ledgers_used[attempt % len(ledgers_used)]
                entry = self.tail[ledger]
                self.tail[ledger] += 1
                self.step(Insert(now=self.tick(), ledger=ledger, entry=entry, size=size, expected_reads=expected_reads))
            if until != "above" and then and "evict_size" not in run.exclude:
                if then == "insert+evict":
                    self.tailing_insert(ledgers_used[0], min(preset.sizes))
                    for _ in range(more):
                        self.tailing_insert(ledgers_used[-1], drawn)
                self.step(EvictSize(now=self.tick()))

        def executor_runs(self: Any, mark: int, observed: int, ledger: int) -> int:
            """The size eviction runs before a write lands on ``mark``: the size it leaves.

            Run when the mark is passed (back below it first), and in legacy always: a pass scheduled
            earlier would run at the landing's insert. Legacy schedules a pass on an insert only, so
            one comes first when the first pass left the mark passed.
            """
            if "evict_size" in run.exclude:
                return observed
            for schedule in (False, True):
                if mark > observed and not (legacy and not schedule):
                    break
                if schedule:
                    self.tailing_insert(ledger, min(preset.sizes))
                self.step(EvictSize(now=self.tick()))
                observed = self.history[-1].observation.size
            return observed

    return FillRules


__all__ = ["fill_rules"]
