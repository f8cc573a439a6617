"""The names the command line offers (systems, profiles, presets, settings), without importing what they name.

``ledgerspec --help`` and a usage error must come at about the cost of starting Python (conformance/cli/
_main.py); the spec, Hypothesis, pandas and pyarrow take seconds to import. The names are therefore
written here once more, and tests/unit/test_cli_startup.py keeps them equal to the real catalogues.
"""

from __future__ import annotations

import argparse

from ledgerspec.conformance._errors import InputError

SYSTEM_PROFILES: dict[str, tuple[str, ...]] = {
    "cache": ("legacy", "pip430", "pulsar-master", "segmented"),
    "cursor-state": ("pip381", "pulsar-master"),
    "txlog-writer": ("pip160", "pulsar-master"),
}
"""Each system's profiles (``ledgerspec.spec.cache.PROFILES`` and the lockstep systems' ``PROFILES``)."""
SYSTEMS = tuple(SYSTEM_PROFILES)
PRESET_NAMES = ("minimal", "pulsar-defaults")
"""``ledgerspec.conformance._presets.PRESETS``."""
SETTINGS_NAMES = ("quick", "ci", "thorough")
"""``ledgerspec.conformance._presets.SETTINGS``."""
PROFILE_HELP = "profile to check (default: the adapter's first): " + "; ".join(
    f"{system}: {', '.join(profiles)}" for system, profiles in SYSTEM_PROFILES.items()
)


def check_profile(system: str, profile: str | None, option: str = "--profile") -> None:
    """Refuse a profile the system lacks, naming ``option``, the system and, for another system's, that one."""
    if profile is None or profile in SYSTEM_PROFILES[system]:
        return
    others = [name for name, profiles in SYSTEM_PROFILES.items() if profile in profiles]
    whose = f"a profile of the {' and '.join(others)} system, not of" if others else "not a profile of"
    raise InputError(
        f"{option} {profile}: {whose} the {system} system (--system {system}); the {system} has "
        f"profiles {', '.join(SYSTEM_PROFILES[system])}"
    )


def add_output_options(parser: argparse.ArgumentParser, *, html: bool = True) -> None:
    """``--plain``, ``--quiet`` and (where the command writes one) ``--html FILE``."""
    group = parser.add_argument_group("output")
    group.add_argument("--plain", action="store_true", help="plain text, no colour or tables (also: NO_COLOR, a pipe)")
    group.add_argument("--quiet", action="store_true", help="print only the verdicts")
    if html:
        group.add_argument("--html", metavar="FILE", help="write a self-contained HTML report (opens offline)")


def add_system_option(parser: argparse.ArgumentParser) -> None:
    """``--system``, for the commands every system has."""
    parser.add_argument(
        "--system",
        choices=SYSTEMS,
        default="cache",
        help="the system: cache (the broker entry cache, PIP-430; the default), cursor-state (a cursor's "
        "persisted state, PIP-381) or txlog-writer (the transaction-log buffered writer, PIP-160)",
    )
