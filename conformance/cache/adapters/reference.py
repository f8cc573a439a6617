"""In-process adapters of the reference implementations (``reference-<profile>``).

Also the pattern for wrapping any Python cache: call the method named by the operation's kind with
the operation's fields, convert the snapshot to an :class:`Observation`, and turn an exception into
an :class:`AdapterFault` naming the step.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ledgerspec.conformance._errors import AdapterFault
from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.cache.adapters._api import CAPABILITIES, NEEDS_BY_OPERATION, NOT_OBSERVED, AdapterInfo
from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import CacheConfig, Observation, Op, get_profile


def profile_capabilities(profile: str) -> frozenset[str]:
    """Every capability a cache of the profile can have, less the observations and operations it lacks."""
    knows = get_profile(profile).knows
    lacking = {need for op, need in NEEDS_BY_OPERATION.items() if not knows(op)}
    return frozenset(CAPABILITIES) - NOT_OBSERVED.get(profile, frozenset()) - lacking


class ReferenceAdapter:
    """Drives one class of ``ledgerspec.reference.cache`` in this process."""

    def __init__(self, profile: str, cache_class: type | None = None, *, name: str | None = None) -> None:
        self.cache_class = cache_class or CACHES[profile]
        self.info = AdapterInfo(
            name=name or f"reference-{profile}",
            version=VERSION,
            language="python",
            profiles=(profile,),
            capabilities=profile_capabilities(profile),
        )
        self.cache: Any = None

    def start(self, config: CacheConfig) -> None:
        """A fresh cache."""
        self.cache = self.cache_class(**config.to_dict())

    def apply(self, op: Op) -> Any:
        """Call the method named by the operation's kind."""
        fields = {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}
        try:
            return getattr(self.cache, op.kind)(**fields)
        except Exception as error:
            raise AdapterFault(
                f"{self.info.name} raised on {op.describe()}: {type(error).__name__}: {error}"
            ) from error

    def observe(self) -> Observation:
        """The cache's snapshot as an observation."""
        try:
            return Observation.from_dict(self.cache.snapshot())
        except Exception as error:
            raise AdapterFault(f"{self.info.name}: bad snapshot: {type(error).__name__}: {error}") from error

    def stop(self) -> None:
        """Nothing to release."""
        self.cache = None


def pip430() -> ReferenceAdapter:
    """``reference-pip430``."""
    return ReferenceAdapter("pip430")


def pulsar_master() -> ReferenceAdapter:
    """``reference-pulsar-master``."""
    return ReferenceAdapter("pulsar-master")


def legacy() -> ReferenceAdapter:
    """``reference-legacy``."""
    return ReferenceAdapter("legacy")


def segmented() -> ReferenceAdapter:
    """``reference-segmented``."""
    return ReferenceAdapter("segmented")
