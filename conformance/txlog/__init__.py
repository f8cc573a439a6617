"""Conformance for the txlog-writer system (PIP-160).

The lockstep machine and the in-process adapter of the reference writer; the search, its report and
its counterexamples are ``conformance._lockstep``'s.
"""

from ledgerspec.conformance.txlog._machine import TXLOG_WRITER, conform_txlog, make_txlog_machine
from ledgerspec.conformance.txlog._reference_adapter import TxlogAdapter

__all__ = ["TXLOG_WRITER", "TxlogAdapter", "conform_txlog", "make_txlog_machine"]
