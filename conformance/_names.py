"""The names the command line offers (the cache's profiles, presets, settings), without importing what they name.

``ledgerspec --help`` and a usage error must come at about the cost of starting Python (conformance/cli/
_main.py); the spec, Hypothesis, pandas and pyarrow take seconds to import. The names are therefore
written here once more, and tests/unit/test_cli_startup.py keeps them equal to the real catalogues. The
systems and their profiles come from the registry (``conformance/systems.py``), read only when needed.
"""

from __future__ import annotations

import argparse

from ledgerspec.conformance._errors import InputError

DEFAULT_SYSTEM = "cache"
"""What ``--system`` is when not given: the registry's default (``System.is_default``), kept equal by a test."""
CACHE_PROFILES: tuple[str, ...] = ("legacy", "pip430", "pulsar-master", "segmented")
"""The cache's profiles (``ledgerspec.spec.cache.PROFILES``), for its record and the options' help."""
SHIPPED_PROFILES: dict[str, tuple[str, ...]] = {
    "cache": CACHE_PROFILES,
    "cursor-state": ("pip381", "pulsar-master"),
    "txlog-writer": ("pip160", "pulsar-master"),
}
"""The shipped systems' profiles, once more: to check a profile, and name the system it belongs to, at the
cost of a Python start (reading the registry's entry points and records takes twice that).
tests/unit/test_cli_startup.py keeps it equal to their records; another system's are read from the registry."""
RENAMED_ADAPTERS: dict[str, str] = {
    "pulsar-range-cache": "cache-range-cache-4.2.4",
    "pulsar-entry-cache-manager": "cache-entry-cache-manager-4.2.4",
    "pulsar-managed-ledger": "cache-managed-ledger-4.2.4",
    "pulsar-legacy": "cache-entry-cache-manager-4.0.8",
    "bookkeeper-read-cache": "cache-bookkeeper-read-cache-4.17.3",
    "real-txlog-4.2.4": "txlog-writer-buffered-writer-4.2.4",
    "real-cursor-4.2.4": "cursor-state-managed-cursor-4.2.4",
    "real-cursor-4.0.8": "cursor-state-managed-cursor-4.0.8",
}
"""The real-code harnesses' names before they were ``<system>-<implementation>-<version>``: still taken for
one release (CHANGELOG), each as its new name with a note on stderr."""


def adapter_name(name: str) -> str:
    """``--adapter``'s value: a renamed harness's old name is taken as its new one, saying so on stderr."""
    new = RENAMED_ADAPTERS.get(name)
    if new is None:
        return name
    import sys  # noqa: PLC0415

    print(f"note: --adapter {name} is now {new}; the old name is taken until the next release", file=sys.stderr)
    return new


PRESET_NAMES = ("minimal", "pulsar-defaults")
"""``ledgerspec.conformance.cache._presets.PRESETS``."""
SETTINGS_NAMES = ("quick", "ci", "thorough")
"""``ledgerspec.conformance._settings.SETTINGS``."""
PROFILE_HELP = (
    "profile to check (default: the adapter's first): cache: "
    + ", ".join(CACHE_PROFILES)
    + "; another system's: `ledgerspec spec show --system NAME`"
)


def check_profile(system: str, profile: str | None, option: str = "--profile") -> None:
    """Refuse a profile the system lacks, naming ``option``, the system and, for another system's, that one.

    The registry (``conformance/systems.py``) is read only for a profile given: records import no Hypothesis.
    """
    if profile is None:
        return
    if profile in SHIPPED_PROFILES.get(system, ()):
        return
    shipped = [name for name, profiles in SHIPPED_PROFILES.items() if profile in profiles]
    if system in SHIPPED_PROFILES and shipped:
        raise _not_of(option, profile, shipped, system, SHIPPED_PROFILES[system])
    from ledgerspec.conformance.systems import names, profiles_of  # noqa: PLC0415 - only when a profile is given

    own = profiles_of(system)
    if profile in own:
        return
    raise _not_of(option, profile, [n for n in names() if n != system and profile in profiles_of(n)], system, own)


def _not_of(option: str, profile: str, others: list[str], system: str, own: tuple[str, ...]) -> InputError:
    """The usage error of a profile the system lacks, naming the systems that have it."""
    whose = f"a profile of the {' and '.join(others)} system, not of" if others else "not a profile of"
    return InputError(
        f"{option} {profile}: {whose} the {system} system (--system {system}); the {system} has "
        f"profiles {', '.join(own)}"
    )


def add_output_options(parser: argparse.ArgumentParser, *, html: bool = True) -> None:
    """``--plain``, ``--quiet`` and (where the command writes one) ``--html FILE``."""
    group = parser.add_argument_group("output")
    group.add_argument("--plain", action="store_true", help="plain text, no colour or tables (also: NO_COLOR, a pipe)")
    group.add_argument("--quiet", action="store_true", help="print only the verdicts")
    if html:
        group.add_argument("--html", metavar="FILE", help="write a self-contained HTML report (opens offline)")


SYSTEM_HELP = (
    "the system: cache (the broker entry cache, PIP-430), cursor-state (a cursor's persisted state, PIP-381), "
    "txlog-writer (the transaction-log buffered writer, PIP-160), or any installed in the ledgerspec.systems "
    "entry points"
)


def add_system_option(parser: argparse.ArgumentParser, *, every: str | None = None) -> None:
    """``--system``, for the commands every system has: the default system, or (``every``) all those ``every`` says."""
    from ledgerspec.conformance.systems import Names  # noqa: PLC0415 - its entry points are read only when checked

    default = f"; default: {every}" if every else f"; default: {DEFAULT_SYSTEM}"
    parser.add_argument(
        "--system",
        choices=Names(),
        default=None if every else DEFAULT_SYSTEM,
        metavar="SYSTEM",
        help=SYSTEM_HELP + default,
    )
