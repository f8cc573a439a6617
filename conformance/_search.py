"""What every system's Hypothesis search shares: reproducible seeds and adapter faults carried out whole.

The cache's search (``cache/_engine.py``) and the lockstep systems' (``lockstep/_engine.py``) each run
a state machine under Hypothesis. An :class:`AdapterFault` raised in one as it is would be an
ordinary failure to Hypothesis, which replays the example to shrink it; but a fault may depend on the
process's past (a crash on its fifth ``apply``, a hang), so the replay goes differently, and Hypothesis
reports its own error (``FlakyStrategyDefinition``) instead of the adapter's, with the adapter's stderr
lost. So a machine calls the adapter through :func:`guard`, which raises :class:`Faulted`, a
BaseException that Hypothesis lets through at once, and :func:`hunt` runs the search and returns it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar

from hypothesis.errors import Flaky
from ledgerspec.conformance._errors import AdapterFault, Nondeterministic, clip

T = TypeVar("T")

Stage = Literal["start", "step", "stop", "search"]


class Faulted(BaseException):
    """The adapter faulted on ``op``, after the steps of ``history`` (``op`` None: at start or stop).

    Not shrunk: a fault may depend on the process's past (a crash after many examples), so
    replaying it would look flaky and, for a hang, cost a timeout per attempt. Hypothesis lets
    BaseExceptions that are not Exceptions through without shrinking.
    """

    def __init__(
        self, fault: AdapterFault, history: Sequence[Any], op: Any, stage: Stage = "step", config: Any = None
    ) -> None:
        super().__init__(str(fault))
        self.fault = fault
        self.history = list(history)
        self.op = op
        self.stage: Stage = stage
        """Where it came: ``start`` (creating the candidate, ``start``, ``configure``), a ``step``, ``stop``, or
        the ``search`` as a whole (Hypothesis replayed an example and it went differently)."""
        self.config = config
        """The configuration the example started from, if the machine had drawn it (the lockstep systems)."""


def guard(
    action: Callable[[], T], history: Sequence[Any], op: Any = None, stage: Stage = "step", config: Any = None
) -> T:
    """``action()``; an adapter fault in it is raised as :class:`Faulted`, with the steps taken before it."""
    try:
        return action()
    except AdapterFault as fault:
        raise Faulted(fault, history, op, stage, config) from fault


def hunt(test: Callable[[], None], adapter: str) -> Faulted | None:
    """Run a search (a Hypothesis test); the fault that ended it, or None. A finding propagates as raised.

    Hypothesis's ``Flaky`` (the same steps went differently when replayed) is the adapter's
    nondeterminism: the models are pure, so it is reported as a :class:`Nondeterministic` fault.
    """
    try:
        with no_local_constants():
            test()
    except Faulted as faulted:
        return _first(faulted)
    except Flaky:
        # the journal names a step that answered differently; this is what is left: a fault or a finding that
        # did not recur when the same steps ran again (Hypothesis's own words would speak of data generation)
        fault = Nondeterministic(
            f"{adapter}: the same steps went differently when run again: a fault or a violation they showed the "
            "first time did not recur"
        )
        return Faulted(fault, [], None, stage="search")
    return None


class Journal:
    """Every answer an adapter gave in one search, by the configuration and the steps that led to it.

    The search replays steps (to shrink, to confirm a failure): an adapter that answers the same steps
    differently is nondeterministic, and :meth:`note` says so at the step where it shows, with both answers,
    before Hypothesis notices that a replay went differently and reports it in its own words. The steps are
    kept as a trie (one node per step), so memory grows with the steps sent, not with their prefixes.
    """

    def __init__(self, adapter: str) -> None:
        self.adapter = adapter
        self._nodes: dict[tuple[int, Any], tuple[int, Any]] = {}
        self._roots: dict[str, int] = {}

    def root(self, config: Any) -> int:
        """The node the steps of an example under ``config`` start from."""
        return self._roots.setdefault(repr(config), -1 - len(self._roots))

    def note(self, node: int, op: Any, answer: Any, history: Sequence[Any], config: Any = None) -> int:
        """The node after ``op``; :class:`Faulted` (nondeterministic) if these steps were answered otherwise before."""
        try:
            seen = self._nodes.setdefault((node, op), (len(self._nodes), answer))
        except TypeError:  # an unhashable step: not journaled
            return node
        if seen[1] != answer:
            describe = getattr(op, "describe", None)
            said = describe() if callable(describe) else repr(op)
            fault = Nondeterministic(
                f"{self.adapter}: the same steps answered differently: step {len(history) + 1} ({said}) answered "
                f"{clip(repr(answer), 600)}, and earlier in this search {clip(repr(seen[1]), 600)}"
            )
            raise Faulted(fault, history, op, config=config)
        return seen[0]


def _first(faulted: Faulted) -> Faulted:
    """The fault that came first, not a ``stop`` that faulted after it.

    Hypothesis tears a machine down in a ``finally``: a ``stop`` that faults there raises while a step's
    fault is on its way out, and that one is in its ``__context__`` chain.
    """
    earlier = faulted.__context__
    while earlier is not None:
        if isinstance(earlier, Faulted):
            return _first(earlier)
        earlier = earlier.__context__
    return faulted


@contextlib.contextmanager
def no_local_constants() -> Iterator[bool]:
    """Keep Hypothesis from mixing constants of the loaded modules into its draws, for reproducible seeds.

    Hypothesis (6.131 on) draws some values from the literals of every "local" module imported so far,
    and an editable install makes ledgerspec local, a wheel does not: the same ``--seed`` would then
    search differently in a checkout, in CI, and after an extra import. Private API, so only if it is
    there (the context's value says whether it was); without it the search is as good, only less
    reproducible across installs. tests/conftest.py holds it for the whole test session.
    """
    try:
        from hypothesis.internal.conjecture import providers  # noqa: PLC0415
    except ImportError:  # pragma: no cover - a Hypothesis without local constants
        yield False
        return
    original = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if original is None or cache is None or not hasattr(providers, "Constants"):
        yield False
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty  # noqa: SLF001
    cache.cache.clear()
    try:
        yield True
    finally:
        providers._get_local_constants = original  # noqa: SLF001
        cache.cache.clear()
