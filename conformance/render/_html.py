"""A self-contained HTML report: headings, text, tables and matplotlib figures as inline SVG.

One home for every HTML output (``run``, ``conform``, ``matrix``, ``mutants``, ``traces check`` and
the simulator build their pages with it). The file opens offline: the stylesheet is inline, each
figure is an inline ``<svg>`` drawn by matplotlib (text as paths, so no font is fetched), and there
is no script and no external URL. Every piece of text is escaped here, so callers pass plain strings.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; padding: 0 1em; }
h1 { border-bottom: 2px solid #446; padding-bottom: .2em; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ccd; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .92em; }
table { display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccd; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.good { background: #e3f6e3; } td.bad { background: #fbe0e0; font-weight: 600; }
td.meh { background: #f6f0da; } td.off { color: #777; } .nw { white-space: nowrap; }
tr.mark td { background: #fff1c6; }
p.verdict { font-size: 1.25em; font-weight: 700; padding: .5em .8em; border-radius: .3em; }
p.verdict.good { background: #e3f6e3; } p.verdict.bad { background: #fbe0e0; color: #900; }
details { margin: .4em 0 1em; } summary { cursor: pointer; color: #446; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .9em; color: #444; }
pre { background: #f5f5f8; padding: .6em; white-space: pre-wrap; overflow-wrap: anywhere; }
"""

GOOD = frozenset({"pass", "ok", "held", "killed", "yes", "as expected"})
"""Cell texts (lower case) shown green: a verdict or status that is good news."""
BAD = frozenset({"fail", "violation", "violated", "error", "survived", "no", "differs"})
"""Cell texts shown red."""
MEH = frozenset({"unknown", "weak"})
"""Cell texts shown amber."""
SHORT = 24
"""Cells of at most this many characters are kept on one line."""
NAME = 48
"""Cells of one word (a mutant's name, an invariant's) up to this long are kept on one line too."""


def _header(text: str, *, wrap: bool = False) -> str:
    nowrap = ' class="nw"' if _unbroken(text) and not wrap else ""
    return f"<th{nowrap}>{html.escape(text)}</th>"


def _unbroken(text: str) -> bool:
    """A cell kept on one line: short, or one long name that would break at its hyphens."""
    if not text:
        return False
    return len(text) <= SHORT or (len(text) <= NAME and not any(c.isspace() for c in text))


def _cell_class(value: object) -> str:
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if isinstance(value, int | float):
        return "num"
    text = str(value).strip().lower()
    if text in GOOD:
        return "good"
    if text in BAD:
        return "bad"
    if text in MEH:
        return "meh"
    if text.startswith(("not ", "skipped")):
        return "off"
    return ""


class HtmlReport:
    """An HTML page built in order; :meth:`write` saves it as one file."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._parts: list[str] = [f"<h1>{html.escape(title)}</h1>"]
        self._figures = 0

    def heading(self, text: str, level: int = 2) -> None:
        """A section heading, ``<h2>`` by default (levels 2 to 6; the title is the one ``<h1>``)."""
        if not 2 <= level <= 6:
            raise ValueError(f"heading level {level}: expected 2..6 (the title is the h1)")
        self._parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def verdict(self, text: str, *, good: bool) -> None:
        """The page's verdict, first under its title (green or red), whenever it is known."""
        self._parts.insert(1, f'<p class="verdict {"good" if good else "bad"}">{html.escape(text)}</p>')

    @contextmanager
    def folded(self, summary: str) -> Iterator[None]:
        """What is added inside the block is folded under ``summary`` (``<details>``), shown on a click."""
        self._parts.append(f"<details><summary>{html.escape(summary)}</summary>")
        try:
            yield
        finally:
            self._parts.append("</details>")

    def paragraph(self, text: str) -> None:
        """A paragraph of plain text."""
        self._parts.append(f"<p>{html.escape(text)}</p>")

    def preformatted(self, text: str) -> None:
        """Text shown as is, in a monospace block (a message, a stack trace, a command)."""
        self._parts.append(f"<pre>{html.escape(text)}</pre>")

    def table(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[object]],
        *,
        marked: Sequence[int] = (),
        wrap_headers: bool = False,
    ) -> None:
        """A table; verdict-like cells are coloured, numbers right-aligned; ``marked`` rows highlighted.

        ``wrap_headers``: headers of several words may break, so that a table of many numeric columns fits
        the page rather than scroll (the simulator's); a table wider than the page still scrolls inside itself.
        """
        heads = (_header(str(h), wrap=wrap_headers) for h in headers)
        out = ["<table>", "<thead><tr>", *heads, "</tr></thead>"]
        out.append("<tbody>")
        for index, row in enumerate(rows):
            out.append('<tr class="mark">' if index in marked else "<tr>")
            for value in row:
                text = _text(value)
                # A short cell (a number with its unit or spread, a name) never breaks: "2 MiB" on one line.
                css = _cell_class(value) or ("nw" if _unbroken(text) else "")
                attr = f' class="{css}"' if css else ""
                out.append(f"<td{attr}>{html.escape(text)}</td>")
            out.append("</tr>")
        out.append("</tbody></table>")
        self._parts.append("".join(out))

    def figure(self, fig: Any, caption: str) -> None:
        """A matplotlib figure (``matplotlib.figure.Figure``) as inline SVG, with its caption.

        matplotlib names SVG elements ``figure_1``, ``text_1``, ... in every figure, so each
        figure's ids (and the references to them) get a prefix of their own: on one page, two
        figures sharing an id would draw each other's glyphs and clip paths.
        """
        import matplotlib as mpl  # noqa: PLC0415 - only reports with figures need it

        self._figures += 1
        buffer = io.StringIO()
        with mpl.rc_context({"svg.fonttype": "path", "svg.hashsalt": f"ledgerspec-fig-{self._figures}"}):
            fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
        svg = buffer.getvalue()
        svg = _prefix_ids(svg[svg.index("<svg") :], f"f{self._figures}-")
        self._parts.append(f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>")

    def render(self) -> str:
        """The whole page as a string."""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(self.title)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(self._parts)
            + "\n</body></html>\n"
        )

    def write(self, path: str | Path) -> None:
        """Save the page as one UTF-8 file."""
        Path(path).write_text(self.render(), encoding="utf-8")


_ID = re.compile(r'(\bid="|xlink:href="#|href="#|url\(#)([^")]+)')


def _prefix_ids(svg: str, prefix: str) -> str:
    """Every id of an SVG document and every local reference to one, prefixed."""
    return _ID.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def plural(count: int, noun: str) -> str:
    """``1 invariant``, ``2 invariants``: what a folded block's summary counts."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def new_figure(width: float = 7.0, height: float = 3.2) -> Any:
    """A matplotlib ``Figure`` not tied to any GUI backend (safe in a CLI, a thread, a Spark task)."""
    from matplotlib.figure import Figure  # noqa: PLC0415 - only reports with figures need it

    return Figure(figsize=(width, height), layout="constrained")


COLOURS = {"pass": "#3a9a3a", "ok": "#3a9a3a", "fail": "#c03030", "violation": "#c03030", "error": "#9030a0"}
"""Bar colours per status; anything else (not checked) is grey."""
