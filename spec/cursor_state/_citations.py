"""Which rule of spec/cursor_state/SPEC.md gives each operation's expectation, per profile.

A ``CURSOR-MODEL`` or ``CURSOR-WRITES`` divergence names the rule behind the step (``spec/_rules.py``):
the same mechanism as the entry cache's ``CITATIONS``, one table per profile. [pip381] writes through
``writeToBookKeeperLastChunk`` (the chunks and the footer); [master] writes one entry, so its failure
path is the metadata-store write alone.
"""

from __future__ import annotations

from ledgerspec.spec._rules import Rule, RuleTable

SPEC = "spec/cursor_state/SPEC.md"


def _table(source: str, *, chunked: bool) -> RuleTable:
    """The rules of one profile; ``chunked``: [pip381]'s write path."""
    no_ledger = Rule("3", "NoLedger", ("createNewMetadataLedger",))
    failure = Rule(
        "3",
        "Failure",
        ("writeToBookKeeperLastChunk", "persistPositionMetaStore") if chunked else ("persistPositionMetaStore",),
    )
    state_open = Rule(
        "3",
        "State Open",
        ("persistPositionToLedger", "writeToBookKeeperLastChunk") if chunked else ("persistPositionToLedger",),
    )
    return RuleTable(
        SPEC,
        source,
        {
            "ack": Rule("2", "Ack(ledger, entry)", ("asyncDelete",)),
            "ack_index": Rule("2", "AckIndex(ledger, entry, index)", ("asyncDelete",)),
            "mark_delete": Rule(
                "2", "MarkDelete(ledger, entry)", ("ManagedCursorImpl.setAcknowledgedPosition", "removeAtMost")
            ),
            "persist": Rule("3", "State Open", ("internalMarkDelete", *state_open.methods)),
            "persist/no_ledger": no_ledger,
            "confirm": state_open,
            "confirm/no_ledger": no_ledger,
            "fail_add": failure,
            "fail_meta": failure,
            "rollover": Rule("3", "Rollover", ("periodicRollover", "createNewMetadataLedger")),
            "crash": Rule("2", "Crash(keep)"),
            "unreadable": Rule("2", "Unreadable()"),
            "recover": Rule("4", "The read path", ("ManagedCursorImpl.recover", "recoverBatchDeletedIndexes")),
            "*/writes": Rule("3", "Byte format", ("PositionInfo",)),
        },
    )


CITATIONS: dict[str, RuleTable] = {
    "pip381": _table("apache/pulsar PR #22799, ManagedCursorImpl.java at 048142ca", chunked=True),
    "pulsar-master": _table("apache/pulsar ManagedCursorImpl.java at a365c60cb9", chunked=False),
}
"""Each profile's table (``_model.PROFILES``)."""

__all__ = ["CITATIONS"]
