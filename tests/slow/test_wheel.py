"""The package as a user gets it: a wheel installed in a fresh virtual environment, outside the checkout.

``ledgerspec mutants`` must work there (the mutants ship in the package), the version must be the one
pyproject.toml declares, and the type marker must be in the wheel.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the ``ledgerspec`` script of a fresh venv that has only it installed from the checkout)."""
    scratch = tmp_path_factory.mktemp("wheel")
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(scratch), str(ROOT)]
    subprocess.run(build, check=True, capture_output=True, timeout=600)
    wheel = next(scratch.glob("ledgerspec-*.whl"))
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Install before the dependencies are visible: pip would otherwise find this interpreter's ledgerspec
    # (editable, or installed by tox) "already satisfied" and install nothing.
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=600)
    # The dependencies (pyarrow, hypothesis, ...) come from this interpreter's site-packages, appended to
    # sys.path by a .pth line, after the venv's own: its ledgerspec, if any, is shadowed by the wheel's.
    (Path(purelib) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return wheel, venv / "bin" / "ledgerspec"


def run(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(script), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=900
    )


def test_the_wheel_ships_the_mutants_and_the_type_marker(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in ("spec", "reference", "conformance", "traces"):
        assert f"ledgerspec/{package}/py.typed" in names
    assert "ledgerspec/conformance/cache/mutants/__init__.py" in names


def test_the_installed_package_is_the_wheel_not_the_checkout(installed, tmp_path):
    _, script = installed
    python = script.with_name("python")
    done = subprocess.run(
        [python, "-c", "import ledgerspec.conformance.cache.mutants as m; print(m.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(script.parents[1])


def test_version_comes_from_pyproject(installed, tmp_path):
    _, script = installed
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = run(script, "--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"ledgerspec {declared}"


def test_mutants_run_from_the_installed_wheel(installed, tmp_path):
    _, script = installed
    helped = run(script, "mutants", "--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "--mutant NAME" in helped.stdout
    done = run(
        script, "mutants", "--mutant", "pip430-newest-first", "--settings", "quick", "--seed", "2", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 mutants from ledgerspec.conformance.cache.mutants" in done.stdout
    assert "killed 1/1" in done.stdout
