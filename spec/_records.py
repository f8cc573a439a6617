"""What every system's invariants, and the lockstep systems' operations and configurations, share.

Plain frozen records that say themselves as data and as a line of Python, and their parsing from
JSON with errors naming the field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from ledgerspec.spec._errors import ConfigError, OperationError

StepT = TypeVar("StepT")


@dataclass(frozen=True)
class Invariant:
    """One named property of a correct implementation, for every system: its id, statement, source and check.

    A system's invariants add what its engine needs (the cache's: the capabilities and trace events per
    profile, the partition a trace is judged on; a lockstep system's: :class:`LockstepInvariant`).
    """

    id: str
    statement: str
    citation: str
    """Where the property comes from: upstream file, PR, commit or release."""
    profiles: tuple[str, ...]
    """The profiles that claim it."""
    check: Any
    """Its one normative check."""

    def claimed_by(self, profile: str) -> bool:
        """True if the profile promises this property."""
        return profile in self.profiles


@dataclass(frozen=True)
class LockstepInvariant(Invariant, Generic[StepT]):
    """An invariant of a lockstep system: one check of a step's facts (``StepT``: the system's ``Step``)."""

    check: Callable[[StepT], str | None]
    trace_events: tuple[str, ...] = ()
    """The output event kinds its check reads: a trace that does not record one of them cannot decide it
    (UNKNOWN, naming the kind)."""
    judges: Callable[[StepT], bool] | None = None
    """The steps its check has something to judge on (None: every step); "held" needs at least one."""


@dataclass(frozen=True, kw_only=True)
class Operation:
    """Base of a system's operations: ``kind`` names it on the wire."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data: ``{"op": kind, field: value, ...}``."""
        return {"op": self.kind, **vars(self)}

    def describe(self) -> str:
        """A line a person can read, which is also Python that rebuilds the operation."""
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{type(self).__name__}({shown})"


def operation_from_dict(data: dict[str, Any], operations: dict[str, type[Operation]], system: str) -> Operation:
    """An operation from its plain form, whose fields are all integers >= 0; a bad kind or field names itself."""
    kind = data.get("op")
    cls = operations.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise OperationError(f"unknown {system} operation {kind!r} (known: {', '.join(operations)})")
    names = {f.name for f in dataclasses.fields(cls)}
    args = {k: v for k, v in data.items() if k != "op"}
    for key, value in args.items():
        if key not in names:
            raise OperationError(f"{kind}: unknown field {key!r}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise OperationError(f"{kind}.{key}: want an integer >= 0, got {value!r}")
    try:
        return cls(**args)
    except TypeError as error:
        raise OperationError(f"{kind}: {error}") from error


Config = TypeVar("Config")


def config_from_dict(cls: type[Config], data: dict[str, Any]) -> Config:
    """A configuration from JSON: an unknown key names itself; the class checks the values."""
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"config: unknown field(s) {unknown} (known: {', '.join(sorted(known))})")
    return cls(**data)
