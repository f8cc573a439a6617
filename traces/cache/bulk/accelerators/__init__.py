"""The accelerators: one module per invariant checkable on traces, registered under its id.

Each module defines ``INVARIANT_ID`` and ``ACCELERATOR`` (an ``Accelerator``); the normative check it
speeds up is the invariant's own (spec/cache/invariants/<the same name>.py).
"""

from __future__ import annotations

import importlib
import pkgutil

from ledgerspec.traces.cache.bulk._views import Accelerator


def _discover() -> dict[str, Accelerator]:
    found: dict[str, Accelerator] = {}
    for module in pkgutil.iter_modules(__path__):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        assert isinstance(loaded.ACCELERATOR, Accelerator), module.name
        assert loaded.INVARIANT_ID not in found, loaded.INVARIANT_ID
        found[loaded.INVARIANT_ID] = loaded.ACCELERATOR
    return found


ACCELERATORS: dict[str, Accelerator] = _discover()
"""Invariant id -> its accelerator."""

__all__ = ["ACCELERATORS"]
