"""Deprecated (CHANGELOG): the plugin is ``ledgerspec.conformance.cache.pytest_plugin`` (its ``pytest11`` entry).

``-p ledgerspec.conformance.pytest_plugin`` still names an importable module, with no hooks of its own, so
that the plugin the entry point loads is not registered twice.
"""
