"""pytest plugin: run the conformance suite inside a user's own test run.

Registered under the ``pytest11`` entry point. It imports nothing heavy at load time: the engine,
Hypothesis and the adapters are imported inside the hooks, and only when ``--ledgerspec-adapter``
is given. Then one test item per invariant of the catalogue is added to the session: it passes,
fails with the counterexample, or is skipped when the profile does not claim it or the adapter
cannot show what it needs.

A bad option value is a usage error naming the option, before any test runs (pytest's exit 4), as
the CLI refuses it (exit 2): a profile the cache lacks (which would make every item "not claimed":
a green run that checked nothing), a preset or settings that does not exist, an adapter name that
does not resolve. An adapter that resolves but misbehaves when run (crashes, answers garbage) fails
every item with ``adapter fault: ...`` and no traceback, as an adapter fault during the search does.

    pytest --ledgerspec-adapter=reference-pip430 --ledgerspec-profile=pip430
"""

from __future__ import annotations

from typing import Any

import pytest

OPTION_ADAPTER = "--ledgerspec-adapter"
OPTION_PROFILE = "--ledgerspec-profile"
OPTION_PRESET = "--ledgerspec-preset"
OPTION_SETTINGS = "--ledgerspec-settings"
OPTION_SEED = "--ledgerspec-seed"
OPTION_EXAMPLES = "--ledgerspec-examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    """All options in one group with a common prefix."""
    from ledgerspec.conformance._names import adapter_name  # noqa: PLC0415 - light, but only when pytest asks
    from ledgerspec.conformance.cli._options import COUNT, SEED  # noqa: PLC0415

    group = parser.getgroup("ledgerspec", "ledgerspec conformance of an entry-cache adapter")
    group.addoption(
        OPTION_ADAPTER, default=None, type=adapter_name, help="adapter to check: a name, module:attr or exec:COMMAND"
    )
    group.addoption(OPTION_PROFILE, default=None, help="profile to check against (default: the adapter's first)")
    group.addoption(OPTION_PRESET, default="minimal", help="configuration preset: minimal or pulsar-defaults")
    group.addoption(OPTION_SETTINGS, default="quick", help="search effort: quick, ci or thorough")
    group.addoption(OPTION_SEED, default=None, type=SEED, help="seed for a reproducible run")
    group.addoption(OPTION_EXAMPLES, default=None, type=COUNT, help="examples per search (overrides settings)")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse a profile, preset or settings the CLI would refuse, by the same checks, before collection.

    A profile the cache lacks claims no invariant: every item would be skipped, a green run that
    checked nothing. An unknown preset or settings would fail every item with the run's error.
    """
    if config.getoption(OPTION_ADAPTER) is None:
        return
    from ledgerspec.conformance import InputError  # noqa: PLC0415 - only when the plugin is used
    from ledgerspec.conformance._settings import get_settings  # noqa: PLC0415
    from ledgerspec.conformance.cache._presets import get_preset  # noqa: PLC0415

    try:
        check_cache_profile(config.getoption(OPTION_PROFILE), option=OPTION_PROFILE)
    except InputError as error:
        raise pytest.UsageError(f"ledgerspec: {error}") from None
    for option, check in ((OPTION_PRESET, get_preset), (OPTION_SETTINGS, get_settings)):
        value = config.getoption(option)
        try:
            check(value)
        except InputError as error:
            raise pytest.UsageError(f"ledgerspec: {option} {value}: {error}") from None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add one item per invariant when an adapter is given.

    The adapter is resolved here, not in ``pytest_configure``: a ``module:attr`` adapter may live
    beside the tests, importable only once collection has put their folder on ``sys.path``.
    """
    adapter = config.getoption(OPTION_ADAPTER)
    if adapter is None:
        return
    from ledgerspec.conformance import ConformanceError  # noqa: PLC0415 - only when the plugin is used
    from ledgerspec.conformance.cache.adapters import load_adapter  # noqa: PLC0415
    from ledgerspec.spec.cache import CATALOGUE  # noqa: PLC0415

    try:
        load_adapter(adapter)
    except ConformanceError as error:
        raise pytest.UsageError(f"ledgerspec: {OPTION_ADAPTER} {adapter}: {error}") from None
    run = _SharedRun(config)
    items.extend(
        InvariantItem.from_parent(session, name=f"ledgerspec[{invariant.id}]", invariant=invariant.id, run=run)
        for invariant in CATALOGUE
    )


class _SharedRun:
    """One conformance run for the whole session, started by the first item that needs it."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.report: Any = None
        self.error: Exception | None = None

    def get(self) -> Any:
        """The report; a run that raised fails every item with its message, never a pytest traceback.

        An error of ledgerspec's (an adapter fault, as a process answering garbage to ``start``) is
        the item's whole message. Any other is a bug in ledgerspec: the first item shows its
        traceback, the others name it.
        """
        from ledgerspec.conformance import AdapterFault, ConformanceError  # noqa: PLC0415

        if self.report is None and self.error is None:
            from ledgerspec.conformance.cache._engine import conform  # noqa: PLC0415 - heavy, lazily
            from ledgerspec.conformance.cache.adapters import load_adapter  # noqa: PLC0415

            option = self.config.getoption
            try:
                self.report = conform(
                    load_adapter(option(OPTION_ADAPTER)),
                    profile=option(OPTION_PROFILE),
                    preset=option(OPTION_PRESET),
                    settings=option(OPTION_SETTINGS),
                    examples=option(OPTION_EXAMPLES),
                    seed=option(OPTION_SEED),
                )
            except ConformanceError as error:
                self.error = error
            except Exception as error:
                self.error = error
                raise
        if isinstance(self.error, AdapterFault):
            pytest.fail(f"adapter fault: {type(self.error).__name__}: {self.error}", pytrace=False)
        if isinstance(self.error, ConformanceError):
            pytest.fail(f"ledgerspec: {type(self.error).__name__}: {self.error}", pytrace=False)
        if self.error is not None:
            pytest.fail(f"ledgerspec: internal error (see the first failure): {self.error!r}", pytrace=False)
        return self.report


class InvariantItem(pytest.Item):
    """The verdict of one invariant for the session's adapter and profile."""

    def __init__(self, *, invariant: str, run: _SharedRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.invariant = invariant
        self.run = run

    def runtest(self) -> None:
        """Pass, fail with the counterexample, or skip (not claimed / not checkable)."""
        from ledgerspec.conformance._verdict import SKIPPED, Status  # noqa: PLC0415
        from ledgerspec.conformance.cache._report import counterexample  # noqa: PLC0415

        report = self.run.get()
        row = report.row(self.invariant)
        if row.status == Status.PASS:
            return
        if row.status in SKIPPED:
            pytest.skip(f"{row.status} ({report.profile}){': ' + row.detail if row.detail else ''}")
        if row.status == Status.ERROR:
            pytest.fail(f"adapter fault: {report.fault}", pytrace=False)
        pytest.fail(counterexample(row.case) if row.case else row.detail, pytrace=False)

    def reportinfo(self) -> tuple[str, int, str]:
        """Where the item comes from, for pytest's reports."""
        return ("ledgerspec", 0, f"ledgerspec conformance: {self.invariant}")


def check_cache_profile(profile: str | None, option: str = "--profile") -> None:
    """Refuse a profile the cache lacks (another system's, or a typo), naming ``option`` and the cache's profiles.

    Without this, every invariant would be "not claimed" by the unknown profile: a run that checks
    nothing and passes. None (no option given) is the adapter's first profile, which it must declare.
    """
    from ledgerspec.conformance._errors import InputError  # noqa: PLC0415 - pytest loads this module on every run
    from ledgerspec.spec.cache import PROFILES  # noqa: PLC0415

    if profile is not None and profile not in PROFILES:
        raise InputError(f"{option} {profile}: the cache has profiles {', '.join(sorted(PROFILES))}")
