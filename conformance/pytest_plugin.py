"""pytest plugin: run the conformance suite inside a user's own test run.

Registered under the ``pytest11`` entry point. It imports nothing heavy at load time: the engine,
Hypothesis strategies and adapters are imported inside the hooks, and only when
``--ledgerspec-adapter`` is given.
"""

from __future__ import annotations

from typing import Any

OPTION_ADAPTER = "--ledgerspec-adapter"
OPTION_PROFILE = "--ledgerspec-profile"
OPTION_PRESET = "--ledgerspec-preset"
OPTION_SETTINGS = "--ledgerspec-settings"
OPTION_SEED = "--ledgerspec-seed"


def pytest_addoption(parser: Any) -> None:
    """All options in one group with a common prefix."""
    group = parser.getgroup("ledgerspec", "ledgerspec conformance of an entry-cache adapter")
    group.addoption(OPTION_ADAPTER, default=None, help="adapter to check: a name, module:attr or exec:COMMAND")
    group.addoption(OPTION_PROFILE, default=None, help="profile to check against (default: the adapter's first)")
    group.addoption(OPTION_PRESET, default="minimal", help="configuration preset: minimal or pulsar-defaults")
    group.addoption(OPTION_SETTINGS, default="quick", help="Hypothesis settings: quick, ci or thorough")
    group.addoption(OPTION_SEED, default=None, type=int, help="random seed for a reproducible run")
