"""The spec's exceptions: one root, and subclasses that say the likely cause and the fix."""


class SpecError(Exception):
    """Root of every error raised by ``ledgerspec.spec``."""

    code = "spec-error"
    exit_status = 2


class ConfigError(SpecError, ValueError):
    """A configuration value is out of range or of the wrong type.

    Likely cause: a hand-written config or preset with a typo or a unit mistake (TTLs are in
    nanoseconds, sizes in bytes). Fix: use the value range named in the message.
    """

    code = "config-error"


class UnknownProfileError(SpecError, LookupError):
    """A profile name is not one the spec defines.

    Fix: use one of the names the message lists (``ledgerspec spec show`` prints them).
    """

    code = "unknown-profile"


class OperationError(SpecError, ValueError):
    """An operation could not be built from its description (unknown kind, missing or bad field).

    Likely cause: a hand-edited case file or trace. Fix: compare with the operation table in
    spec/cache/SPEC.md.
    """

    code = "bad-operation"
