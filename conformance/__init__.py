"""ledgerspec.conformance: run a candidate cache in lockstep with the spec and report what breaks.

Importing this package is cheap (the pytest plugin relies on it): the engine, Hypothesis and the
adapters load only when a command or test needs them.
"""

from ledgerspec.conformance._errors import AdapterFault, ConformanceError, InputError, Nondeterministic

__all__ = ["AdapterFault", "ConformanceError", "InputError", "Nondeterministic"]
