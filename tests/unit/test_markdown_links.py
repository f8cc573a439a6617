"""Every relative link in the repository's Markdown files resolves: the file exists, and so does the
#anchor (a heading of the target, slugged as GitHub does)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def markdown_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sorted(ROOT / name for name in listed if (ROOT / name).is_file())


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in CODE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    text = CODE.sub("", path.read_text(encoding="utf-8"))
    problems = []
    for target in LINK.findall(text) + IMAGE.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            problems.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{target}: no heading #{anchor} in {resolved.name}")
        elif not resolved.is_relative_to(root):
            problems.append(f"{target}: outside the repository")
    return problems


def test_the_repository_has_markdown_files():
    names = {path.relative_to(ROOT).as_posix() for path in markdown_files()}
    assert {"README.md", "traces/FORMAT.md", "spec/cache/SPEC.md", "CHANGELOG.md"} <= names


def test_every_relative_link_resolves():
    problems = {
        path.relative_to(ROOT).as_posix(): broken for path in markdown_files() if (broken := broken_links(path))
    }
    assert problems == {}


def test_the_checker_finds_a_broken_file_and_a_broken_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n\n## Exit codes\n\n[ok](#exit-codes) [gone](b.md) [bad](#nothing)\n")
    path = tmp_path / "a.md"
    assert slug("Exit codes (traces)") == "exit-codes-traces"
    problems = broken_links(path, tmp_path)
    assert problems[0] == "b.md: no such file"
    assert problems[1].startswith("#nothing: no heading #nothing")
    assert len(problems) == 2


OUTSIDE = re.compile(
    r"\.\./shared|shared/(domain|seeds)|pip430-entry-cache\.md|segmented-cache\.md"  # the notes, by path
    r"|(pip430|segmented) §"  # their sections, as SPEC.md wrote them
)
STILL_MOVING = {"spec/cache/_catalogue.py"}
"""Its ``source`` strings move into the per-invariant modules of issue 15, which cite upstream."""


def test_no_citation_points_outside_the_repository():
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    found = []
    for name in listed:
        path = ROOT / name
        if name in STILL_MOVING or path.suffix not in {".py", ".md", ".java", ".json", ".toml"} or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []
