"""A counterexample as a story of the cache: its state after each step, what left it and why.

One home for the step-by-step view that the terminal table (conformance/render/_term.py) and the HTML
timeline (conformance/cache/_html_views.py) both draw. It is read from the case's ``expected``
observations, the spec's own state after each step (conformance/cache/_case.py), so it shows what a
conforming cache holds, next to the step where the candidate broke an invariant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ledgerspec.conformance.cache._case import Case

REASONS = (
    ("removed_size", "size"),
    ("removed_ttl", "ttl"),
    ("removed_invalidate", "invalidated"),
    ("removed_clear", "cleared"),
)
"""The removal counters of an observation (``Counters``) and the reason each names."""


@dataclass(frozen=True)
class Step:
    """One step of a counterexample and the spec's cache after it (None where the spec allows several)."""

    index: int
    """1-based, as the terminal and the case's ``failing_step`` count."""
    op: str
    result: str
    entries: tuple[tuple[int, int, int, int | None, int | None], ...] | None
    """(ledger, entry, size, expected reads, timestamp) by timestamp: the removal queue's order."""
    size: int | None
    evicted: tuple[str, ...]
    """Entries gone since the step before, each as ``ledger:entry (reason)``."""
    breaks: bool

    def cache(self, limit: int = 6) -> str:
        """The entries as ``ledger:entry=size/reads``, oldest first, the first ``limit`` of them."""
        if self.entries is None:
            return "(several outcomes allowed)"
        shown = [f"{ledger}:{entry}={size}/{_reads(count)}" for ledger, entry, size, count, _ in self.entries[:limit]]
        if len(self.entries) > limit:
            shown.append(f"+{len(self.entries) - limit}")
        return " ".join(shown) or "empty"


def _reads(count: int | None) -> str:
    return "-" if count is None else str(count)


def steps(case: Case) -> list[Step]:
    """The case's steps, each with the spec's cache after it."""
    expected = case.expected or []
    out: list[Step] = []
    before: dict[tuple[int, int], int] = {}
    counters: dict[str, int] = {}
    for index, op in enumerate(case.steps, start=1):
        step = expected[index - 1] if index - 1 < len(expected) else {}
        observation: dict[str, Any] | None = step.get("observation")
        entries = None
        size = None
        evicted: tuple[str, ...] = ()
        if observation is not None:
            rows = sorted(
                observation["entries"], key=lambda e: (e.get("timestamp") or 0, e["ledger"], e["entry"])
            )
            entries = tuple((e["ledger"], e["entry"], e["size"], e.get("count"), e.get("timestamp")) for e in rows)
            size = int(observation["size"])
            now = {(e[0], e[1]): e[2] for e in entries}
            now_counters = observation.get("counters", {})
            reasons = [name for key, name in REASONS if now_counters.get(key, 0) > counters.get(key, 0)]
            why = "/".join(reasons) or "gone"
            evicted = tuple(f"{ledger}:{entry} ({why})" for ledger, entry in sorted(set(before) - set(now)))
            before, counters = now, dict(now_counters)
        out.append(
            Step(
                index=index,
                op=op.describe(),
                result=json.dumps(step["result"]) if "result" in step else "",
                entries=entries,
                size=size,
                evicted=evicted,
                breaks=index == case.failing_step,
            )
        )
    return out
