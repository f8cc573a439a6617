"""Reference implementation of PIP-160's batched transaction-log writer.

``BufferedWriter`` over a ``ManagedLedger`` whose completions the driver decides and a
``ManualTimer`` whose clock the driver moves: time is virtual, nothing sleeps. ``_entry`` writes and
reads the entry bytes. Nothing here imports the spec.
"""

from ledgerspec.reference.txlog_writer._entry import BadEntry, decode, encode
from ledgerspec.reference.txlog_writer._writer import BatchedPosition, BufferedWriter, ManagedLedger, ManualTimer

__all__ = ["BadEntry", "BatchedPosition", "BufferedWriter", "ManagedLedger", "ManualTimer", "decode", "encode"]
