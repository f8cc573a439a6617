"""ledgerspec.traces: what a running cache did, and whether it was correct.

A trace format (FORMAT.md), a recorder for any adapter, a workload generator over instrumented
reference caches, and two checkers of the same invariant catalogue with identical verdicts: a
streaming local one and a PySpark one for bulk traces.
"""

from ledgerspec.traces._errors import TraceError, TraceInputError

__all__ = ["TraceError", "TraceInputError"]
