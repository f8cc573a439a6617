"""Packaging: every folder is installed under ``ledgerspec.``, never as a top-level name."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_package_list_matches_the_folders():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = config["package-dir"]
    folders = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            folders.add(".".join([package, *relative.parts]))
    assert set(config["packages"]) == folders


def test_installed_names_outside_the_repository(tmp_path):
    def python(code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False)

    assert python("import ledgerspec.spec.cache, ledgerspec.reference.cache, ledgerspec.traces").returncode == 0
    for name in ("spec", "reference", "conformance", "traces"):
        assert python(f"import {name}").returncode != 0, name


def test_console_script_and_module_entry(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "ledgerspec.conformance.cli", "spec", "show", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"CACHE-FIFO"' in result.stdout
