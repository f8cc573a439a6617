"""What an invariant module declares: the property as data, and its one normative check.

An invariant is data (:class:`Invariant`: id, statement, citation, claiming profiles, what it needs
from an adapter and from a trace, its partition and why that is sound) plus one
:class:`~ledgerspec.spec.cache._normative.Check` in plain Python: it judges each event with the shadow's
facts before it, each finished pass with the cache after it, and, for what only an observation shows
(counters, the count of a copy no event touched), the observed step itself (:class:`StepView`,
conformance only; ``conformance_only`` says what that part covers). The trace checkers run an
accelerator of each check (traces/cache/), held equal to it by the differential tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledgerspec.spec import _records as records
from ledgerspec.spec.cache._shadow import CountDifference

if TYPE_CHECKING:
    from ledgerspec.spec.cache._config import CacheConfig
    from ledgerspec.spec.cache._normative import Check
    from ledgerspec.spec.cache._observation import Observation
    from ledgerspec.spec.cache._ops import Op


PIP430 = "pip430"


MASTER = "pulsar-master"


LEGACY = "legacy"


SEGMENTED = "segmented"


ALL_PROFILES = (PIP430, MASTER, LEGACY, SEGMENTED)


TIMES, COUNTS, COPIES, CURSORS = "observe_timestamps", "observe_counts", "observe_copies", "cursors"
"""Adapter capabilities a check can need (``conformance/cache/adapters/_api.py`` lists them all)."""


@dataclass(frozen=True)
class Invariant(records.Invariant):
    """One named property of a correct cache, with everything needed to check it anywhere."""

    check: Check | None
    """Its normative check (``_normative.py``); None: ``CACHE-MODEL``, which the monitor judges by the model."""
    needs: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Adapter capabilities it needs, per profile (``"*"``: any profile); without them it is not checkable."""
    events: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Event kinds it reads, per profile (``"*"``: any); a trace lacking one cannot show a violation."""
    partition: str = "broker"
    soundness: str = ""
    """Why checking it on the events of one partition (a broker's, or a ledger's within it) is sound."""
    order: int = 0
    """Its place in the catalogue (reports list invariants in this order); a new one takes the next number."""
    conformance_only: str = ""
    """What part of it only an observed step shows (checked by :meth:`Check.step`), if any."""
    on_traces: bool = True
    """False: its check reads only observed steps (or the model), so a trace can never show a violation."""

    @property
    def source(self) -> str:
        """The citation (the catalogue's former name for it)."""
        return self.citation

    def needs_for(self, profile: str) -> frozenset[str]:
        """Adapter capabilities its check needs under ``profile``."""
        return self.needs.get(profile, self.needs.get("*", frozenset()))

    def events_for(self, profile: str) -> frozenset[str]:
        """Event kinds its check reads under ``profile``."""
        return self.events.get(profile, self.events.get("*", frozenset()))


@dataclass
class StepView:
    """One observed step: the operation, its result and the observations around it (conformance only)."""

    profile: str
    config: CacheConfig
    op: Op
    result: Any
    before: Observation
    after: Observation
    enabled: bool
    project: Callable[[Observation], Observation]
    differences: list[CountDifference]
    """Counts of entries and copies that no event of the step showed and that differ from the shadow's."""
    sink: Callable[[str, str], None]
    invariant: str = ""
    cursors: dict[tuple[int, str], int] = field(default_factory=dict)
    """The active cursors (ledger, name) and their read positions before the step, as the operations placed them."""
    reopens: frozenset[tuple[int, int]] = frozenset()
    """(ledger, entry): where a reopen started a BookKeeper ledger, as the appends and closes placed them."""

    def report(self, messages: Iterable[str]) -> None:
        """Report violations of the step."""
        for message in messages:
            self.sink(self.invariant, message)


__all__ = [
    "ALL_PROFILES",
    "COPIES",
    "COUNTS",
    "CURSORS",
    "LEGACY",
    "MASTER",
    "PIP430",
    "SEGMENTED",
    "TIMES",
    "CountDifference",
    "Invariant",
    "StepView",
]
