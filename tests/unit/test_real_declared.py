"""What a real target declares: a deviation's other invariants (``also``) are no surprise, any other is.

R2's miscount is also the count a read from storage is cached with, so a long enough search breaks
CACHE-BACKLOG-CACHING through it (DEVIATIONS.md, thorough table): declared, not a surprise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.conformance.cache._real import R2, REAL_TARGETS, surprises


@dataclass
class _Row:
    invariant: str
    detail: str = "found"
    case: None = None


@dataclass
class _Report:
    rows: list[_Row]
    fault: str | None = None

    def failed(self) -> list[_Row]:
        return self.rows


MANAGED_LEDGER = next(t for t in REAL_TARGETS if t.adapter == "cache-managed-ledger-4.2.4")


def test_r2_declares_what_its_miscount_breaks():
    assert R2 in MANAGED_LEDGER.deviations
    assert R2.also == ("CACHE-BACKLOG-CACHING",)
    rows = [_Row("CACHE-CURSOR-COUNT"), _Row("CACHE-BACKLOG-CACHING")]
    assert surprises(MANAGED_LEDGER, _Report(rows)) == []  # type: ignore[arg-type]


def test_an_invariant_no_deviation_names_is_a_surprise():
    report = _Report([_Row("CACHE-CURSOR-COUNT"), _Row("CACHE-APPEND-CACHING")])
    assert surprises(MANAGED_LEDGER, report) == ["undeclared failure of CACHE-APPEND-CACHING: found"]  # type: ignore[arg-type]


def test_deviations_md_keeps_no_count_that_changes_with_every_search():
    """Examples and steps move whenever the search does; the committed tables kept them stale (issue 37)."""
    from pathlib import Path

    from ledgerspec.conformance.cache._real_deviations import TABLE, real_section, verdict_tables

    section = real_section((Path(__file__).resolve().parents[2] / "DEVIATIONS.md").read_text(encoding="utf-8"))
    tables = verdict_tables(section)
    assert tables, "DEVIATIONS.md has its real-code verdict tables"
    for table in [TABLE, *tables.values()]:
        header = next(line for line in table.splitlines() if line.startswith("| Target"))
        assert "Examples" not in header
        assert "Steps" not in header
