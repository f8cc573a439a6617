"""The invariants: one module each, declaring the property and its one normative check.

Each public module of this package defines ``INVARIANT`` (``_declare.Invariant``); the catalogue is
every such module, found by name, in ``order``. Adding an invariant is adding a module (with a
mutant that breaks it and a test: tests/README.md, "Adding an invariant").
"""

from __future__ import annotations

import importlib
import pkgutil

from ledgerspec.spec.cache._normative import Check, Finding, Judge, TraceStructureError
from ledgerspec.spec.cache.invariants._declare import (
    ALL_PROFILES,
    LEGACY,
    MASTER,
    PIP430,
    SEGMENTED,
    Invariant,
    StepView,
)


def _discover() -> tuple[Invariant, ...]:
    found = []
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            invariant = importlib.import_module(f"{__name__}.{module.name}").INVARIANT
            assert isinstance(invariant, Invariant), module.name
            found.append(invariant)
    found.sort(key=lambda invariant: (invariant.order, invariant.id))
    assert len({i.id for i in found}) == len(found), "invariant ids are unique"
    return tuple(found)


CATALOGUE: tuple[Invariant, ...] = _discover()
INVARIANTS: dict[str, Invariant] = {invariant.id: invariant for invariant in CATALOGUE}


def claimed(profile: str) -> tuple[Invariant, ...]:
    """The invariants a profile claims, in catalogue order."""
    return tuple(invariant for invariant in CATALOGUE if invariant.claimed_by(profile))


__all__ = [
    "ALL_PROFILES",
    "CATALOGUE",
    "INVARIANTS",
    "LEGACY",
    "MASTER",
    "PIP430",
    "SEGMENTED",
    "Check",
    "Finding",
    "Invariant",
    "Judge",
    "StepView",
    "TraceStructureError",
    "claimed",
]
