"""What a real target declares: a deviation's other invariants (``also``) are no surprise, any other is.

R2's miscount is also the count a read from storage is cached with, so a long enough search breaks
CACHE-BACKLOG-CACHING through it (DEVIATIONS.md, thorough table): declared, not a surprise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.conformance._real_code import R2, REAL_TARGETS, surprises


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


MANAGED_LEDGER = next(t for t in REAL_TARGETS if t.adapter == "pulsar-managed-ledger")


def test_r2_declares_what_its_miscount_breaks():
    assert R2 in MANAGED_LEDGER.deviations
    assert R2.also == ("CACHE-BACKLOG-CACHING",)
    rows = [_Row("CACHE-CURSOR-COUNT"), _Row("CACHE-BACKLOG-CACHING")]
    assert surprises(MANAGED_LEDGER, _Report(rows)) == []  # type: ignore[arg-type]


def test_an_invariant_no_deviation_names_is_a_surprise():
    report = _Report([_Row("CACHE-CURSOR-COUNT"), _Row("CACHE-APPEND-CACHING")])
    assert surprises(MANAGED_LEDGER, report) == ["undeclared failure of CACHE-APPEND-CACHING: found"]  # type: ignore[arg-type]
