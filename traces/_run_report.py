"""What ``ledgerspec run`` writes besides the terminal: its JSON document and the parts of its HTML page.

One JSON document (``--json FILE``) with every part's verdicts, written whatever the run ends with: all
as expected, something not, or an error that stopped it (then its ``error`` says which). The HTML page
(``--html FILE``) opens on the overall verdict; its real-code part is a table whose failing and
faulting targets are highlighted (a declared failure says so in its "as declared" column).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.real._rows import RealRow

if TYPE_CHECKING:
    from ledgerspec.conformance.render._html import HtmlReport

ALL_AS_EXPECTED = "All as expected."
DIFFERS = "SOMETHING DIFFERS FROM WHAT WAS EXPECTED"
"""Then " (see above)." on the terminal, " (see below)." on the page."""


@dataclass
class RunDocument:
    """Every part's verdicts, filled in as the parts run."""

    seed: int
    engine: str
    references: list[dict[str, Any]] = field(default_factory=list)
    """Each reference adapter's conformance report (as ``conform --json`` writes it)."""
    samples: list[dict[str, Any]] = field(default_factory=list)
    """Each sample trace: its verdict and violations against what it is expected to get."""
    real: list[RealRow] = field(default_factory=list)
    real_skipped: bool = False
    finished: set[str] = field(default_factory=set)
    """The parts that ran to their end (``references``, ``samples``, ``real``): only theirs say ``ok``."""
    ok: bool | None = None
    """None until every part ran."""
    error: str | None = None
    """What stopped the run, if something did."""

    @property
    def verdict(self) -> str:
        """PASS (all as expected), FAIL (something differs), ERROR (the run stopped before its end)."""
        if self.error is not None or self.ok is None:
            return "ERROR"
        return "PASS" if self.ok else "FAIL"

    def summary(self) -> str:
        """The verdict as a sentence, first on the HTML page."""
        if self.verdict == "ERROR":
            return f"ERROR: the run stopped before its end: {self.error or 'unknown'}"
        return f"{self.verdict}: {ALL_AS_EXPECTED if self.ok else DIFFERS + ' (see below).'}"

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document."""
        return {
            "ledgerspec": VERSION,
            "verdict": self.verdict,
            **({"error": self.error} if self.error is not None else {}),
            "seed": self.seed,
            "engine": self.engine,
            "references": {
                "ok": self._ok("references", all(r["verdict"] == "PASS" for r in self.references)),
                "reports": self.references,
            },
            "samples": {"ok": self._ok("samples", all(s["as_expected"] for s in self.samples)), "traces": self.samples},
            "real": {
                "skipped": self.real_skipped,
                "ok": self._ok("real", all(row.as_declared for row in self.real)),
                "targets": [row.to_dict() for row in self.real],
            },
        }

    def _ok(self, part: str, ok: bool) -> bool | None:
        """A part's ``ok``; None (not known) for a part the run did not finish."""
        return ok if part in self.finished else None

    def write(self, path: str | Path) -> None:
        """Save the document as pretty JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


def sample_entry(result: Any, expected: dict[str, Any], as_expected: bool) -> dict[str, Any]:
    """One sample trace's line of the document: what it got against what it is expected to get."""
    return {
        "trace": Path(result.path).name,
        "profile": result.profile,
        "events": result.events,
        "expected": expected,
        "verdict": str(result.verdict),
        "violations": [
            {"invariant": v.invariant, "broker": v.broker, "seq": v.seq, "message": v.message}
            for v in result.violations
        ],
        "as_expected": as_expected,
    }


REAL_HEADERS = ["target", "profile / invariant", "verdict", "steps", "as declared", "declared / why"]


def real_section(page: HtmlReport, title: str, rows: Sequence[RealRow]) -> None:
    """The real-code part as a table: failing and faulting targets highlighted, each against what was declared."""
    page.heading(title)
    page.paragraph(
        "Each real target against its profile (or, for the managed cursors, each invariant searched alone), "
        "its verdict against what DEVIATIONS.md declares: a FAIL may be declared (a known deviation); "
        "highlighted rows failed or faulted, and 'no' under 'as declared' is what makes the run fail."
    )
    marked = [i for i, row in enumerate(rows) if row.verdict in {"FAIL", "ERROR"} or not row.as_declared]
    cells = [[r.target, r.against, r.verdict, r.steps, r.as_declared, r.note] for r in rows]
    page.table(REAL_HEADERS, cells, marked=marked)
