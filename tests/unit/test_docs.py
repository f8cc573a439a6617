"""The documents that define things stay in step with the code that defines them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from ledgerspec.conformance.cache.adapters._api import CAPABILITIES, NEEDS_BY_OPERATION
from ledgerspec.spec.cache import CATALOGUE, OPERATIONS, PROFILES, CacheConfig, CursorSeek
from ledgerspec.traces.cache._check import judged_at
from ledgerspec.traces.cache._format import KINDS, SCHEMA

ROOT = Path(__file__).resolve().parents[2]


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header row starts with ``| header |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


@pytest.mark.parametrize("document", ["spec/cache/SPEC.md", "conformance/protocol/README.md"])
def test_config_table_matches_cache_config(document):
    rows = table_rows((ROOT / document).read_text(), "Field")
    documented = {row[0].strip("`"): row[2] for row in rows}
    defaults = CacheConfig().to_dict()
    assert list(documented) == list(defaults)
    for name, value in defaults.items():
        assert documented[name] == str(value).lower(), name


def test_spec_lists_every_invariant_with_its_profiles():
    rows = table_rows((ROOT / "spec/cache/SPEC.md").read_text(), "Id")
    documented = {row[0].strip("`"): row[1] for row in rows}
    for invariant in CATALOGUE:
        claimed = documented[invariant.id]
        expected = "all" if set(invariant.profiles) == set(PROFILES) else ", ".join(invariant.profiles)
        assert claimed == expected, invariant.id


def test_format_columns_match_the_arrow_schema():
    rows = table_rows((ROOT / "traces/FORMAT.md").read_text(), "Column")
    assert [row[0].strip("`") for row in rows] == SCHEMA.names
    for row, field in zip(rows, SCHEMA, strict=True):
        assert row[1] == str(field.type), field.name
        assert row[2] == ("yes" if field.nullable else "no"), field.name


def test_format_lists_every_partition_as_the_invariants_declare_it():
    rows = table_rows((ROOT / "traces/FORMAT.md").read_text(), "Invariant")
    documented = {row[0].strip("`"): (row[1], row[2]) for row in rows}
    assert documented == {i.id: (i.partition, i.soundness) for i in CATALOGUE if i.on_traces}


def test_format_gives_every_checked_invariant_the_granularity_its_check_has():
    """Per event, per pass (at its pass_end), at a broker's end: as the check's methods are, so a reader
    knows that a pass is judged whole (the order of its removals is free: S2, DEVIATIONS.md)."""
    text = (ROOT / "traces/FORMAT.md").read_text()
    rows = table_rows(text, "Checked invariant")
    documented = {row[0].strip("`"): row[1].split("; ") for row in rows}
    checked = [i for i in CATALOGUE if i.on_traces]
    assert documented == {i.id: judged_at(i) for i in checked}
    assert {"each event", "each pass, at its pass_end"} <= {what for whats in documented.values() for what in whats}
    assert "S2 of [DEVIATIONS.md]" in text


def test_format_lists_every_kind_with_its_required_fields():
    rows = table_rows((ROOT / "traces/FORMAT.md").read_text(), "Kind")
    documented: dict[str, list[str]] = {}
    for row in rows:
        for name in re.findall(r"`([a-z_]+)`", row[0]):
            documented[name] = [field.strip() for field in row[1].split(",")]
    assert set(documented) == set(KINDS)
    for name, kind in KINDS.items():
        assert documented[name] == list(kind.required), name


PROTOCOL = ROOT / "conformance/protocol/README.md"


def test_protocol_operation_table_matches_the_operations_and_capabilities():
    rows = table_rows(PROTOCOL.read_text(), "`op`")
    documented = {row[0].strip("`"): (set(re.findall(r"`([a-z_]+)`", row[1])), row[3].strip("`")) for row in rows}
    assert set(documented) == set(OPERATIONS)
    for kind, operation in OPERATIONS.items():
        fields, capability = documented[kind]
        assert fields == {f.name for f in dataclasses.fields(operation)} - {"now"}, kind
        assert capability == NEEDS_BY_OPERATION.get(operation, ""), kind


def test_protocol_capability_table_lists_every_capability():
    rows = table_rows(PROTOCOL.read_text(), "Capability")
    assert sorted(row[0].strip("`") for row in rows) == sorted(CAPABILITIES)


RULE_ANCHOR = "cursor-driven-invalidation"


def _applies_to_paragraph(spec: str) -> str:
    """The first paragraph under SPEC.md's heading of the rule that starts with **Applies to**, one line."""
    section = spec.split("#### Cursor-driven invalidation\n", 1)[1].split("\n#", 1)[0]
    paragraph = next(p for p in section.split("\n\n") if p.startswith("**Applies to**"))
    return " ".join(paragraph.split())


def test_cursor_driven_invalidation_is_stated_once_and_quoted_by_the_protocol_page():
    """SPEC.md states the rule under its anchor; the protocol page links it and quotes who it applies to."""
    spec_path = ROOT / "spec/cache/SPEC.md"  # the heading's GitHub slug is the anchor (test_markdown_links.py)
    assert "\n#### Cursor-driven invalidation\n" in spec_path.read_text()
    page = PROTOCOL.read_text()
    assert f"(../../spec/cache/SPEC.md#{RULE_ANCHOR})" in page
    applies = _applies_to_paragraph(spec_path.read_text())
    # the trigger the spec names is the capability the runner sends the cursor operations under
    assert f"claims `{NEEDS_BY_OPERATION[CursorSeek]}`," in applies
    quotes = re.findall(r"(?:^ *> .*\n)+", page, re.MULTILINE)
    quoted = {" ".join(re.sub(r"^ *> ", "", quote, flags=re.MULTILINE).split()) for quote in quotes}
    assert applies in quoted
