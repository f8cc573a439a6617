"""CACHE-MODEL: every result and observation is one the profile's model allows (conformance only)."""

from __future__ import annotations

from ledgerspec.spec.cache.invariants._declare import ALL_PROFILES, Invariant

INVARIANT = Invariant(
    order=0,
    id="CACHE-MODEL",
    statement=(
        "After every step, the candidate's result and observation (cached entries with size, count and "
        "timestamp; total size; counters; open copies) are one of the outcomes the profile's model "
        "allows from some state consistent with the history so far."
    ),
    citation="spec/cache/<profile>.py, each rule citing its upstream source",
    profiles=ALL_PROFILES,
    check=None,
    on_traces=False,
    soundness="it needs each operation's arguments and the model's outcomes, and a trace records effects; "
    "the conformance monitor runs the model (spec/cache/_monitor.py)",
)
