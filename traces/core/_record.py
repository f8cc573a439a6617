"""What every system's ``traces record`` shares: a recording a fault cut short leaves no trace behind."""

from __future__ import annotations

from pathlib import Path

from ledgerspec.conformance._errors import AdapterFault


def discarded(fault: AdapterFault, out: str | Path) -> AdapterFault:
    """The fault, saying that no file is left at ``out``: a recording cut short must not look like a trace.

    A header and the events before the fault would check as a short trace of a healthy run, and a file
    left there by an earlier run is not this run's trace either (traces/FORMAT.md, "Recorded traces").
    """
    path = Path(out)
    what = f"{out} removed" if path.exists() else f"nothing written to {out}"
    path.unlink(missing_ok=True)
    return type(fault)(f"{fault}\n  no trace: {what} (a recording an adapter fault cut short is no trace)")
