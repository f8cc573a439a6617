"""ledgerspec.reference: clear, efficient reference implementations of every modelled system.

The reference never imports the spec: it is checked against it (tests/unit/test_differential.py),
not built from it.
"""

from ledgerspec.reference._errors import ReferenceCacheError

__all__ = ["ReferenceCacheError"]
