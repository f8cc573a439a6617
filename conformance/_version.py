"""The package's version, read from the installed distribution: pyproject.toml is its one source."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("ledgerspec")
except PackageNotFoundError:  # imported from a bare checkout on sys.path, never installed
    VERSION = "0+unknown"
"""``ledgerspec --version``, the ``ledgerspec`` field of JSON reports, the reference adapters' version."""
