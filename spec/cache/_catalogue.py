"""The invariant catalogue: every invariant module of ``invariants/``, in catalogue order.

Each invariant is declared once, with its check, in its own module (``invariants/<name>.py``); this
module only gathers them under the names the rest of the package uses.
"""

from __future__ import annotations

from ledgerspec.spec.cache.invariants import CATALOGUE, INVARIANTS, Invariant, claimed
from ledgerspec.spec.cache.invariants._declare import ALL_PROFILES, LEGACY, MASTER, PIP430, SEGMENTED

__all__ = ["ALL_PROFILES", "CATALOGUE", "INVARIANTS", "LEGACY", "MASTER", "PIP430", "SEGMENTED", "Invariant", "claimed"]
