"""The real ManagedCursorImpl as cursor-state adapters: ``real-cursor-4.2.4`` and ``real-cursor-4.0.8``.

One Java harness, ``CursorHarness`` (conformance/adapters/real/managed-cursor-common), compiled against each
release's managed-ledger (modules managed-cursor-4.2 and managed-cursor-4.0) and started as a process adapter
(conformance/protocol/cursor-state.md). No release holds the chunked writer of PIP-381 (DEVIATIONS.md, "Cursor
state (PIP-381)"): both claim only ``pulsar-master``, and declare what they cannot express by leaving it out of
their capabilities (``rollover``, ``zlib``).
"""

from __future__ import annotations

from ledgerspec.conformance.adapters._harness import Harness

_MAIN = "org.apache.bookkeeper.mledger.impl.CursorHarness"
_DRIVES = "ManagedCursorImpl + ManagedLedgerImpl + ManagedLedgerFactoryImpl over PulsarMockBookKeeper"

REAL_CURSOR_4_2 = Harness(
    name="real-cursor-4.2.4",
    module="managed-cursor-4.2",
    main=_MAIN,
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.master.version",
    drives=_DRIVES,
    profile="pulsar-master",
)
REAL_CURSOR_4_0 = Harness(
    name="real-cursor-4.0.8",
    module="managed-cursor-4.0",
    main=_MAIN,
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.legacy.version",
    drives=_DRIVES,
    profile="pulsar-master",
)
REAL_CURSORS: dict[str, Harness] = {h.name: h for h in (REAL_CURSOR_4_2, REAL_CURSOR_4_0)}


def real_cursor_command(name: str) -> str:
    """The ``exec:`` command of a built cursor harness (built first if needed); it names its release."""
    harness = REAL_CURSORS[name]
    return f"{harness.command()} {harness.version}"
