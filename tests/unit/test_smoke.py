"""``ledgerspec smoke`` tries two traps of adapter writers in a second, in process (no subprocess here):
pip430's insert with ``expected_reads`` null, and legacy's cursor-driven invalidation (SPEC.md §3.2)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from ledgerspec.conformance.cache import _cli as _conform_run
from ledgerspec.conformance.cache.adapters.reference import ReferenceAdapter
from ledgerspec.conformance.cli._main import main
from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import Op

RULE = "cursor-driven invalidation (spec/cache/SPEC.md §3.2, #cursor-driven-invalidation)"


class _CursorsWithoutInvalidation(CACHES["legacy"]):  # type: ignore[misc,valid-type]
    """The protocol page's old reading: cursors invalidate only under ``managed_ledger``, which this one lacks."""

    def _invalidate_by_cursors(self, *_args: Any, **_kwargs: Any) -> None:
        return None


def old_reading() -> ReferenceAdapter:
    """A legacy cache that claims ``cursors`` but not ``managed_ledger``, and so (it thought) no invalidation."""
    adapter = ReferenceAdapter("legacy", _CursorsWithoutInvalidation, name="old-reading-legacy")
    capabilities = adapter.info.capabilities - {"managed_ledger", "switch_track_reads"}
    adapter.info = dataclasses.replace(adapter.info, capabilities=capabilities)
    return adapter


class _NullReadsCrash(ReferenceAdapter):
    """A pip430 adapter that reads ``expected_reads`` as an int: it raises on the first null."""

    def __init__(self) -> None:
        super().__init__("pip430", name="int-reads-pip430")

    def apply(self, op: Op) -> Any:
        return int(op.expected_reads) if op.kind == "insert" and op.expected_reads is None else super().apply(op)  # type: ignore[attr-defined]


def run_smoke(monkeypatch: pytest.MonkeyPatch, factory: Any, *argv: str) -> int:
    """``ledgerspec smoke --adapter ADAPTER ...`` with the adapter ``factory`` (an in-process one)."""
    monkeypatch.setattr(_conform_run, "load_adapter", lambda *_args, **_kwargs: factory)
    return main(["smoke", "--adapter", "in-process", *argv])


def test_an_adapter_ignoring_cursor_driven_invalidation_fails_smoke_naming_the_rule(monkeypatch, capsys):
    # Inserts (1,0), (1,1); a cursor at 0 moves to 1: the legacy profile removes (1,0), this adapter keeps it.
    assert run_smoke(monkeypatch, old_reading) == 3
    out = capsys.readouterr().out
    assert (
        f"SMOKE FAILED (old-reading-legacy): {RULE}: after CursorSeek(now=4, ledger=1, cursor='smoke-rule', entry=1) "
        "the adapter caches [(1,0), (1,1)], the legacy profile [(1,1)]"
    ) in out


@pytest.mark.parametrize("adapter", ["reference-legacy", "reference-pip430", "reference-pulsar-master"])
def test_the_references_pass_smoke(adapter, capsys):
    assert main(["smoke", "--adapter", adapter]) == 0
    out = capsys.readouterr().out
    assert "SMOKE OK" in out
    assert ("(beyond cursor-driven invalidation, this says" in out) == (adapter == "reference-legacy")
    assert (f"  rule {RULE}, on a fresh cache:" in out) == (adapter == "reference-legacy")
    assert ("expected_reads=None) -> True" in out) == (adapter == "reference-pip430")


def test_the_rule_is_tried_on_the_profile_asked_for(capsys):
    # The pip430 reference is in tracking mode: its cursors invalidate nothing, so it is no legacy cache.
    assert main(["smoke", "--adapter", "reference-pip430", "--profile", "legacy"]) == 3
    assert f"SMOKE FAILED (reference-pip430): {RULE}: after CursorSeek(" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["--profile", "pip430"]])
def test_an_adapter_crashing_on_null_expected_reads_fails_smoke_naming_the_insert(monkeypatch, capsys, argv):
    assert run_smoke(monkeypatch, _NullReadsCrash, *argv) == 3
    out = capsys.readouterr().out
    assert (
        "SMOKE FAILED (int-reads-pip430): Insert(now=3, ledger=1, entry=2, size=5, expected_reads=None): "
        "the adapter raised TypeError: int() argument must be"
    ) in out
    assert "Traceback" not in out
