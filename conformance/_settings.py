"""How hard a conformance search of any system tries: the settings profiles and their Hypothesis settings."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, settings
from ledgerspec.conformance._errors import InputError


@dataclass(frozen=True)
class SearchSettings:
    """How hard to search: examples per run and steps per example."""

    name: str
    examples: int
    steps: int


SETTINGS: dict[str, SearchSettings] = {
    "quick": SearchSettings("quick", examples=60, steps=30),
    "ci": SearchSettings("ci", examples=200, steps=40),
    "thorough": SearchSettings("thorough", examples=2000, steps=80),
}


def get_settings(name: str) -> SearchSettings:
    """The settings profile called ``name``."""
    try:
        return SETTINGS[name]
    except KeyError:
        raise InputError(f"unknown settings {name!r}; choose one of: {', '.join(SETTINGS)}") from None


def hypothesis_settings(search: SearchSettings, *, examples: int | None = None) -> settings:
    """Hypothesis settings for one search: no database, no deadline, quiet; no shrinking (``minimize`` does it)."""
    return settings(
        max_examples=examples or search.examples,
        stateful_step_count=search.steps,
        deadline=None,
        database=None,
        derandomize=False,
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
    )
