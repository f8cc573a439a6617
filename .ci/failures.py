# ruff: noqa: INP001 - a script CI runs, not a package
"""Print the failed tests of every tox environment, from the JUnit files its pytest wrote.

`tox -p auto --parallel-live` interleaves the environments' output, so a failure's report can sit
far from the end of a long log; this prints one block per failed or erroring test at the end, where
a reader of the log's tail finds it.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

LINES = 30  # the end of each failure's text: the assertion and the code around it


def main(paths: list[str]) -> None:
    """One block per failed test of the JUnit files at ``paths``, named by environment."""
    for path in sorted(paths):
        try:
            root = ET.parse(path).getroot()  # noqa: S314 - our own pytest's file, in CI's own clone
        except (OSError, ET.ParseError) as error:
            print(f"{path}: unreadable ({error})")
            continue
        env = Path(path).name.removesuffix("-junit.xml")
        for case in root.iter("testcase"):
            for problem in (*case.findall("failure"), *case.findall("error")):
                name = f"{case.get('classname', '')}::{case.get('name', '')}"
                print(f"--- {env}: {problem.tag.upper()} {name}: {(problem.get('message') or '')[:300]}")
                text = (problem.text or "").rstrip().splitlines()
                print("\n".join(text[-LINES:]))


if __name__ == "__main__":
    main(sys.argv[1:])
