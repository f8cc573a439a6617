"""ledgerspec.spec: the executable specification.

Pure models (``init(config)`` and ``step(state, op)`` returning the allowed outcomes) and a catalogue of
named invariants, one subpackage per modelled system. Nothing here imports the reference, the
conformance engine or the trace checkers, and nothing reads a real clock.
"""

from ledgerspec.spec._errors import ConfigError, OperationError, SpecError, UnknownProfileError

__all__ = ["ConfigError", "OperationError", "SpecError", "UnknownProfileError"]
