"""The HTML report API: escaping, tables, inline SVG figures, one self-contained file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ledgerspec.conformance.render._html import HtmlReport, new_figure


def test_text_is_escaped_everywhere(tmp_path: Path) -> None:
    report = HtmlReport("a <b> & c")
    report.heading("<script>alert(1)</script>")
    report.paragraph("x < y & z")
    report.table(["<h>"], [["<td>"], [3]])
    report.preformatted("<pre>")
    path = tmp_path / "r.html"
    report.write(path)
    page = path.read_text(encoding="utf-8")
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "a &lt;b&gt; &amp; c" in page
    assert "&lt;td&gt;" in page
    assert '<td class="num">3</td>' in page


def test_verdict_cells_are_coloured() -> None:
    report = HtmlReport("t")
    report.table(["invariant", "verdict"], [["A", "pass"], ["B", "FAIL"], ["C", "not claimed"]], marked=[1])
    page = report.render()
    assert '<td class="good">pass</td>' in page
    assert '<td class="bad">FAIL</td>' in page
    assert '<td class="off">not claimed</td>' in page
    assert '<tr class="mark">' in page


def test_figures_are_inline_svg_with_distinct_ids() -> None:
    report = HtmlReport("t")
    for _ in range(2):
        fig = new_figure()
        fig.add_subplot().plot([0, 1, 2], [1, 0, 1])
        report.figure(fig, "a <curve>")
    page = report.render()
    assert page.count("<svg") == 2
    assert "&lt;curve&gt;" in page
    ids = re.findall(r'id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "two figures share an SVG id"
    assert not re.search(r"(src|href)=\"https?:", page), "the page must not fetch anything"
    assert "<?xml" not in page


def test_bad_heading_level() -> None:
    with pytest.raises(ValueError, match="heading level 1"):
        HtmlReport("t").heading("x", level=1)
