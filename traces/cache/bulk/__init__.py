"""The bulk replay: each invariant's check as an accelerator over a broker's trace events, with numpy.

Both trace checkers run one :class:`Replay` per broker. Its facts (``_facts.py``: what the cache held
before each event) and its accelerators (``accelerators/``, one module per invariant, under the
invariant's id) compute in bulk what the normative checks (spec/cache/invariants/, plain Python, one
event at a time) compute; tests/quality/test_differential.py holds them equal: the same verdict and
the same first violating event on every conformance history of the mutant matrix recorded as a
trace, every sample and injected trace, and generated workloads of each profile.
"""

from __future__ import annotations

from ledgerspec.spec.cache._normative import Finding
from ledgerspec.traces.cache.bulk._engine import Replay, TraceStructureError
from ledgerspec.traces.cache.bulk._views import Accelerator, EventsView, PassView

__all__ = ["Accelerator", "EventsView", "Finding", "PassView", "Replay", "TraceStructureError"]
