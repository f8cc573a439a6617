"""Conformance for the txlog-writer system (PIP-160).

The lockstep machine and the in-process adapter of the reference writer; the search, its report and
its counterexamples are ``conformance.lockstep._engine``'s.
"""

from ledgerspec.conformance.systems import lazy_exports

__getattr__ = lazy_exports(
    __name__,
    TXLOG_WRITER="_machine",
    conform_txlog="_machine",
    make_txlog_machine="_machine",
    TxlogAdapter="_reference_adapter",
)
"""Imported on first use: the record (``_system.py``) loads without Hypothesis."""
__all__ = ["TXLOG_WRITER", "TxlogAdapter", "conform_txlog", "make_txlog_machine"]
