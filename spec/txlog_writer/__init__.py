"""Executable specification of PIP-160's batched transaction-log writer (``TxnLogBufferedWriter``).

Read SPEC.md beside this file first. ``init(profile, config)`` / ``step(model, op)``: the pure model
of ``pip160`` (the PIP text) and ``pulsar-master`` (the code); ``INVARIANTS`` / ``claimed``.
"""

from ledgerspec.spec.txlog_writer._model import PROFILES, TRIGGERS, Model, init, step
from ledgerspec.spec.txlog_writer._ops import (
    OPERATIONS,
    Add,
    Close,
    Complete,
    Fail,
    Metrics,
    Tick,
    WriterConfig,
    WriterOp,
    op_from_dict,
)
from ledgerspec.spec.txlog_writer.invariants import CAPABILITIES, INVARIANTS, Step, WriterInvariant, claimed

__all__ = [
    "CAPABILITIES",
    "INVARIANTS",
    "OPERATIONS",
    "PROFILES",
    "TRIGGERS",
    "Add",
    "Close",
    "Complete",
    "Fail",
    "Metrics",
    "Model",
    "Step",
    "Tick",
    "WriterConfig",
    "WriterInvariant",
    "WriterOp",
    "claimed",
    "init",
    "op_from_dict",
    "step",
]
