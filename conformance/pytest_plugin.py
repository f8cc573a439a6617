"""Deprecated alias of ``ledgerspec.conformance.cache.pytest_plugin`` (kept for one release, CHANGELOG): ``-p`` it."""

from ledgerspec.conformance.cache.pytest_plugin import *  # noqa: F403
