"""The package's version, read from the installed distribution: pyproject.toml is its one source.

Read from the distribution's METADATA file found on ``sys.path`` (as importlib.metadata finds it, first
entry first) without importing importlib.metadata, which costs more than the rest of ``ledgerspec
--version`` (conformance/cli/_main.py); importlib.metadata answers only where no such file is found.
"""

from __future__ import annotations

import os
import sys


def _from_metadata_file() -> str | None:
    """The ``Version:`` of the first ``ledgerspec-*.dist-info`` on ``sys.path``, or None."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")  # noqa: PTH208 - no pathlib import on this path
        except OSError:
            continue
        for name in names:
            if name.startswith("ledgerspec-") and name.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry, name, "METADATA"), encoding="utf-8") as metadata:  # noqa: PTH118, PTH123 - no pathlib import on this path
                        return next((line[9:].strip() for line in metadata if line.startswith("Version: ")), None)
                except OSError:
                    continue
    return None


def _version() -> str:
    found = _from_metadata_file()
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 - the slow path

    try:
        return version("ledgerspec")
    except PackageNotFoundError:  # imported from a bare checkout on sys.path, never installed
        return "0+unknown"


VERSION = _version()
"""``ledgerspec --version``, the ``ledgerspec`` field of JSON reports, the reference adapters' version."""
