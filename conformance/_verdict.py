"""Every verdict ledgerspec gives, for conformance runs, trace checks, their reports and their JSON.

One home so that ``conform``, ``replay``, ``traces check``, the terminal tables, JUnit XML and the
JSON reports spell a verdict the same way. Both enums are ``StrEnum``: a member *is* its JSON string
(``Verdict.PASS == "PASS"``), so the reports' strings stay what they were. Here in ``conformance``
because traces import conformance, never the reverse (spec <- reference <- conformance <- traces).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Verdict(StrEnum):
    """The verdict on a whole run: a conformance report, a replayed case, or one checked trace."""

    PASS = "PASS"  # noqa: S105 - a verdict, not a password
    """conform / replay: every claimed and checkable invariant held."""
    FAIL = "FAIL"
    """conform / replay: an invariant failed; counterexamples attached."""
    OK = "OK"
    """traces: every event was checked and no invariant of the profile broke."""
    VIOLATION = "VIOLATION"
    """traces: an invariant broke at a named event."""
    UNKNOWN = "UNKNOWN"
    """traces: no violation, but the check could not finish (a trace ending inside a pass, the budget)."""
    ERROR = "ERROR"
    """No verdict could be reached: an adapter fault (conform, replay) or a trace that is bad input."""


class Status(StrEnum):
    """The outcome for one invariant, a row of a report (lower case, as the reports always wrote it)."""

    PASS = "pass"  # noqa: S105 - a status, not a password
    FAIL = "fail"
    ERROR = "error"
    NOT_CLAIMED = "not claimed"
    NOT_CHECKABLE = "not checkable"
    """conform: the adapter lacks a capability the invariant's check needs."""
    NOT_RUN = "not run"
    OK = "ok"
    VIOLATION = "violation"
    UNKNOWN = "unknown"
    NOT_ON_TRACES = "not checkable on traces"


SKIPPED = frozenset({Status.NOT_CLAIMED, Status.NOT_CHECKABLE, Status.NOT_RUN, Status.NOT_ON_TRACES})
"""Statuses that say an invariant was not checked, and why; never a pass."""

CONFORM_EXIT = {Verdict.PASS: 0, Verdict.FAIL: 1, Verdict.ERROR: 3}
"""``conform`` and ``replay``'s exit code per verdict (ERROR: an adapter fault)."""
TRACE_EXIT = {Verdict.OK: 0, Verdict.VIOLATION: 1, Verdict.ERROR: 2, Verdict.UNKNOWN: 3}
"""``traces check``'s exit code per trace verdict (ERROR: the trace is bad input)."""
TRACE_RANK = (Verdict.VIOLATION, Verdict.ERROR, Verdict.UNKNOWN, Verdict.OK)
"""Which verdict decides the exit code of a check of several traces: the first of these any trace got.

A violation is a finding about the system and must never be hidden by another file's trouble; a bad
file was not checked at all, which is worse than a check that could not finish (UNKNOWN).
"""


def worst_trace_verdict(verdicts: Iterable[Verdict]) -> Verdict:
    """The verdict of several traces by :data:`TRACE_RANK` (OK for none)."""
    seen = set(verdicts)
    return next((verdict for verdict in TRACE_RANK if verdict in seen), Verdict.OK)
