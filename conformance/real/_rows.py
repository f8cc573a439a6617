"""One judged real-code target as data: what ``ledgerspec run`` tabulates, colours and writes to ``--json``.

The judges of the real code (conformance/cache/_real.py, txlog_writer/_real.py, cursor_state/_real.py) print a
line each; they hand the same facts here too, so the HTML table and the JSON never parse printed text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class RealRow:
    """A real target's verdict against what DEVIATIONS.md declares of it."""

    target: str
    """The harness and what it runs (``cache-range-cache-4.2.4``, ``cursor-state-managed-cursor-4.2.4``, ...)."""
    against: str
    """The profile, or for a search of one invariant alone, that invariant."""
    verdict: str
    """PASS, FAIL or ERROR, as the search gave it."""
    steps: int
    as_declared: bool
    note: str
    """What was declared (deviations, findings) and, when it differs, how."""

    def to_dict(self) -> dict[str, Any]:
        """The row as ``run --json`` writes it."""
        return asdict(self)


Record = Callable[[RealRow], None]
"""Where a judge hands each row (``ledgerspec run`` collects them; None: nobody asked)."""
