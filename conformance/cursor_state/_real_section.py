"""The real ManagedCursorImpl against the cursor-state spec: which releases, and what it shows.

Two ways, one home: the JUnit reproductions of ``conformance/adapters/real/managed-cursor-common`` (run on
managed-ledger 4.0.8 and 4.2.4 by ``ledgerspec harness test``, and in CI by tests/slow/test_real_cursor_state.py),
and the protocol harnesses ``cursor-state-managed-cursor-4.2.4`` and ``cursor-state-managed-cursor-4.0.8`` judged by
``ledgerspec conform``
(their pinned verdicts: ``conformance/cursor_state/_real.py``, in CI tests/slow/test_real_cursor_verdicts.py).
``ledgerspec deviations --real`` writes both into DEVIATIONS.md.
"""

from __future__ import annotations

from dataclasses import dataclass

RELEASES_CHECKED = ("3.3.6", "4.0.0", "4.0.1", "4.0.6", "4.0.7", "4.0.8", "4.2.4", "5.0.0-M1", "5.0.1")
"""Every org.apache.pulsar:managed-ledger 3.3.x-5.x release on Maven Central on 2026-11-25 that was
checked with ``javap -p`` (4.0.2-4.0.5 and 4.1.x are not on Maven Central)."""
RELEASES_RUN = ("4.0.8", "4.2.4")
"""The releases the JUnit cases run on (managed-cursor-4.0 and managed-cursor-4.2)."""
TEST_CLASS = "CursorStateRecoveryTest"


@dataclass(frozen=True)
class CursorFinding:
    """One behaviour of the released cursor, with the spec's prediction and the JUnit case showing it."""

    key: str
    title: str
    profile: str
    invariants: str
    """The invariants at stake, and whether the release keeps them."""
    steps: str
    expected: str
    actual: str
    java: str
    """Where in the released code it is decided."""
    reproduction: str
    """The JUnit method of ``CursorStateRecoveryTest`` that runs it."""


FINDINGS: tuple[CursorFinding, ...] = (
    CursorFinding(
        "C1",
        "P1 (a torn first chunk recovers as a complete state) cannot happen in any release",
        "pulsar-master",
        "`CURSOR-RECOVER-ACKNOWLEDGED` and `CURSOR-NO-ACK-LOSS` hold",
        "mark-delete e0; ack e3, e5 (each ack persists: one PositionInfo entry, acknowledged); hold the "
        "next bookie add; mark-delete e1 (its add in flight); crash: a second factory opens the topic",
        "the acknowledged state: mark-delete e0, e3 and e5 acknowledged, e1 not",
        "as expected; the cursor ledger's last entry is byte-identical to the acknowledged one",
        "persistPositionToLedger issues one asyncAddEntry of PositionInfo.toByteArray(); recoverFromLedger "
        "reads the entry at the LAC alone",
        "crashDuringASecondPersistRecoversTheAcknowledgedFirstState",
    ),
    CursorFinding(
        "C2",
        "batch-index acknowledgements are lost when the state goes through the metadata store (P2)",
        "pulsar-master",
        "breaks `CURSOR-NO-ACK-LOSS` and `CURSOR-RECOVER-ACKNOWLEDGED`",
        "deletionAtBatchIndexLevelEnabled; ack indexes 0-2 of a 10-message batch entry e2; the next "
        "bookie add fails (BookieHandleNotAvailable); mark-delete e0: the cursor falls back to the "
        "metadata store, whose record (cursorsLedgerId -1) holds the batch set, and the mark-delete "
        "succeeds; a second factory recovers the cursor",
        "e2's batch set back (indexes 0-2 acknowledged), as the [master] profile and managed-ledger 5.0.1 restore it",
        "mark-delete e0 and no batch set for e2: the whole batch, indexes 0-2 included, is delivered again",
        "ManagedCursorImpl$2.operationComplete (the cursorsLedgerId == -1 branch) restores the mark-delete "
        "position, ranges and properties and never calls recoverBatchDeletedIndexes; javap finds that call "
        "in this branch only in 5.0.1",
        "batchIndexAcksAreLostWhenTheStateGoesThroughTheMetadataStore",
    ),
    CursorFinding(
        "C3",
        "a graceful close loses batch-index acknowledgements the same way",
        "pulsar-master",
        "breaks `CURSOR-NO-ACK-LOSS` and `CURSOR-RECOVER-ACKNOWLEDGED`",
        "as C2 without the fault: mark-delete e0 (persisted in the cursor ledger), then close the "
        "managed ledger: with at most maxUnackedRangesToPersistInMetadataStore (1000) ack holes, "
        "persistPositionWhenClosing writes the state, batch set included, to the metadata store; reopen",
        "e2's batch set back",
        "no batch set for e2: a clean topic unload redelivers the acknowledged batch indexes",
        "persistPositionWhenClosing → persistPositionMetaStore, then the C2 recovery branch",
        "batchIndexAcksAreLostAcrossAGracefulClose",
    ),
    CursorFinding(
        "C4",
        "the range cap persists max + 1 ranges",
        "pulsar-master",
        "`CURSOR-MODEL` and `CURSOR-RECOVER-ACKNOWLEDGED` (more acknowledgements recovered than the profile's cap "
        "keeps; none invented); with C2 or C5, through its larger entries near BookKeeper's frame limit, "
        "`CURSOR-NO-ACK-LOSS` and `CURSOR-CALLBACK-ONCE`",
        "maxUnackedRangesToPersist 3; ack e1, e3, e5, e7, e9 (five holes, each ack persists); recover",
        "3 ranges persisted, e1, e3, e5 acknowledged after recovery (exactly max: apache/pulsar PR #25548, "
        "on master since April 2026)",
        "4 ranges persisted, e1, e3, e5, e7 acknowledged, e9 not: the pre-#25548 max + 1, as the `pip381` "
        "profile has it",
        "buildIndividualDeletedMessageRanges adds each range before comparing the count with the maximum",
        "theRangeCapPersistsOneRangeOverTheMaximum",
    ),
    CursorFinding(
        "C5",
        "a failed first write to a new cursor ledger still points the metadata store at it",
        "pulsar-master",
        "breaks `CURSOR-NO-ACK-LOSS`, `CURSOR-RECOVER-ACKNOWLEDGED`, `CURSOR-MODEL` and, as the model sees it, "
        "`CURSOR-CALLBACK-ONCE`",
        "mark-delete e0, ack e3 (acknowledged); restart (a second factory opens the topic: the cursor has no "
        "writable ledger); ack e4: the persist creates a new cursor ledger, whose first write fails "
        "(BookieHandleNotAvailable); the flush write after it is held; crash: a third factory recovers the cursor",
        "the failed write deletes the new ledger and fails the persist; the record still names the old ledger, "
        "and recovery gives mark-delete e0 with e3 acknowledged",
        "the record names the new ledger, whose only write failed; recovery finds it empty and rolls back to the "
        "record's mark-delete e0 alone: the acknowledged e3 is delivered again. Through the protocol the same "
        "shows as a fail_add of a persist from NoLedger completing no callback (`CURSOR-MODEL`) and the next "
        "confirm completing it with success, where the profile had failed it already (`CURSOR-CALLBACK-ONCE`)",
        "createNewMetadataLedger writes lastMarkDeleteEntry with persistPositionToLedger, whose error branch "
        "falls back to persistPositionMetaStore and calls the callback's operationComplete when the store write "
        "succeeds; that callback is createNewMetadataLedger's, which then runs switchToNewLedger on the new ledger "
        "and flushPendingMarkDeletes",
        "aFailedFirstWriteToANewCursorLedgerStillSwitchesToItAndACrashLosesAcks",
    ),
    CursorFinding(
        "C6",
        "a mark-delete moves on over the acknowledged run right after it (a spec correction, not a deviation)",
        "pulsar-master",
        "none broken since the spec's `MarkDelete` was corrected to do the same (both profiles); before, "
        "`CURSOR-MODEL` and `CURSOR-NO-PHANTOM-ACK` cried wolf on a state with the same acknowledged set",
        "ack e1, e2, e4 (each ack persists), mark-delete e0",
        "mark-delete e2 with e4 acknowledged on its own: the spec's `MarkDelete` is `removeAtMost`, then on over "
        "the run after it, as its `Ack` already was (spec/cursor_state/SPEC.md, section 2)",
        "as expected. The spec used to stop at e0 with e1, e2 and e4 acknowledged: the same acknowledged set in "
        "another form, which `CURSOR-NO-PHANTOM-ACK` (the recovered mark-delete position against the highest one "
        "the model ever had) read as a phantom acknowledgement",
        "setAcknowledgedPosition (ManagedCursorImpl.java lines 2030-2076 in managed-ledger-4.0.8-sources.jar, "
        "2180-2226 in 4.2.4's), called by asyncMarkDelete and by asyncDelete(Iterable), loops while "
        "getNextValidPosition(newMarkDeletePosition) is in individualDeletedMessages, setting newMarkDeletePosition "
        "to rangeContaining(that position).upperEndpoint(), then removeAtMost; javap -c finds the same "
        "rangeContaining loop in 2.11.0, 3.3.6 and 4.0.0, before and after 048142ca",
        "aMarkDeleteMovesOnOverTheAcknowledgedRunAfterIt",
    ),
    CursorFinding(
        "C7",
        "a write carries what the cursor holds when it is made, and a persist from NoLedger is two adds "
        "(a spec correction, not a deviation)",
        "both",
        "none broken since the spec's writes are built as the releases build them (both profiles); before, the "
        "releases' entries were larger or smaller than the spec's, so near the entry size limit BookKeeper refused "
        "other writes than the spec did: violations no finding explained (seed 430, `max_entry_size` 40)",
        "three parts, each on its own managed ledger. (a) deletionAtBatchIndexLevelEnabled; mark-delete e0; ack "
        "index 0 of batch entries e1 and e2; hold the next bookie add; mark-delete e2; confirm the add. (b) a new "
        "cursor, restart (a second factory: no writable cursor ledger); hold the next two adds; mark-delete e1 with "
        "property p = 7; confirm the first add, then the second. (c) mark-delete e0; ack e3 with its add held, then "
        "e5 with its add held; fail e3's add (BookieHandleNotAvailable)",
        "what spec/cursor_state/SPEC.md section 3 now says: (a) the mark-delete's entry carries the batch sets it "
        "covers, which the cursor drops when that persist completes; (b) the new ledger's first entry is "
        "`lastMarkDeleteEntry`, the pointer is switched, then the pending persist is flushed as a second add, "
        "which completes it; (c) the metadata-store record carries the ranges held when the fallback writes",
        "as expected. (a) While the add is held the cursor still holds both sets; the entry written is mark-delete "
        "e2 with 2 batch sets; after the confirm both are gone. (b) One add is in flight until it is confirmed; the "
        "record then names the new ledger, whose entry 0 is mark-delete e-1 (the recovered position) with no "
        "properties; a second add is in flight and the mark-delete is not complete; once it is confirmed, entry 1 "
        "is mark-delete e1 with p = 7 and the mark-delete completes. (c) e3's ack completes through the fallback; "
        "the record (cursorsLedgerId -1) holds the ranges ending at e3 and e5, while e5's own persist is still in "
        "flight. The spec used to drop the sets at the `MarkDelete` (4.2.4's entry was 41 bytes where the spec's was "
        "31), write the fallback's ranges as the persist was asked, and make a persist from NoLedger one add",
        "persistPositionToLedger calls buildBatchEntryDeletionIndexInfoList(), every set of batchDeletedIndexes "
        "(ManagedCursorImpl.java line 3325 in managed-ledger-4.0.8-sources.jar, 3462 in 4.2.4's); the sets up to "
        "the position are cleared only in internalMarkDelete's persist callback (4.0.8 line 2313, subMap(...).clear(); "
        "4.2.4 MarkDeleteEntry's alignAcknowledgeStatusAfterPersisted, line 262, run at line 2471). "
        "persistPositionToMetaStore (4.0.8 line 3422, 4.2.4 line 3558) calls persistPositionMetaStore(-1, "
        "mdEntry.newPosition, mdEntry.properties, ...), which adds buildIndividualDeletedMessageRanges() and the "
        "batch sets as they are then (4.0.8 lines 2855-2857, 4.2.4 lines 3009-3011). createNewMetadataLedger "
        "(4.0.8 line 3135, 4.2.4 line 3289) writes lastMarkDeleteEntry with persistPositionToLedger, then "
        "switchToNewLedger, and its callback flushPendingMarkDeletes()",
        "aWriteCarriesWhatTheCursorHoldsWhenItIsMadeAndAPersistFromNoLedgerIsTwoAdds",
    ),
)

CONTROLS = (
    (
        "aPrefixEndingOnAFieldBoundaryParsesAsAStateWithFewerRanges",
        (
            "P1's mechanism holds on the release's own `PositionInfo` parser (Google protobuf in 4.0.8, "
            "LightProto in 4.2.4): every prefix of a real entry that ends on a top-level field boundary after "
            "fields 1 and 2 parses as a state with the same mark-delete position and fewer ranges, and a cut "
            "inside a field does not parse; only the chunked writer of `048142ca` would leave such a prefix "
            "as the last entry"
        ),
    ),
    (
        "aFailedLedgerWriteIsPersistedInTheMetadataStoreAndRecovered",
        (
            "a failed cursor-ledger write falls back "
            "to the metadata store, the persist is acknowledged and recovery gives back its mark-delete and ranges"
        ),
    ),
    (
        "aFailedPointerSwitchFailsThePersistAndRecoveryKeepsTheAcknowledgedState",
        (
            "after a restart the next persist writes a new cursor ledger and then points the metadata store "
            "at it; when that update fails, the persist fails, the record still names the old ledger and "
            "recovery gives back the acknowledged state (FailMeta)"
        ),
    ),
    (
        "batchIndexAcksPersistedInTheCursorLedgerAreRecovered",
        ("a batch set persisted in the cursor ledger is recovered (C2 and C3 are the metadata-store path only)"),
    ),
)

OBSERVED = (
    (
        "Every individual ack persists: `asyncDelete` ends in `internalAsyncMarkDelete` unless the mark-delete "
        "rate limiter (`throttleMarkDelete`) defers it. The spec's `Ack` only changes the state and `Persist` "
        "writes it, so the real ack is an `Ack` followed by a `Persist`."
    ),
    (
        "managed-ledger 4.0.0 and 4.0.1 have no `persistIndividualAckAsLongArray`: `persistPositionToLedger` "
        "calls `RangeSetWrapper.toRanges` unconditionally and writes field 6 (the long array) whenever it "
        "returns ledgers (the default `OpenLongPairRangeSet`); from 4.0.6 it is gated by "
        "`unackedRangesOpenCacheSetEnabled && persistIndividualAckAsLongArray` (javap; not run)."
    ),
)


def _protocol_lines() -> list[str]:
    """The protocol harnesses' part: how they map the spec's steps, and their pinned verdicts."""
    from ledgerspec.conformance.cursor_state import _real  # noqa: PLC0415 - imported here: it imports this module

    adapters = ", ".join(f"`{name}`" for name in _real.REAL_CURSORS)

    lines = [
        (
            f"The same classes behind the cursor-state process protocol: adapters {adapters} "
            '(`CursorHarness`, conformance/adapters/real/README.md, "Cursor state"), claiming `pulsar-master` and the '
            "capabilities `ack_index`, `fail_add`, `fail_meta` and `unreadable`; `rollover` and `zlib` are not claimed "
            "(a periodic rollover's write completes no callback the protocol can number; no release compresses the "
            "cursor ledger), so they are never sent. A persist from NoLedger is two adds, in these releases as in "
            "the spec (C7): createNewMetadataLedger writes `lastMarkDeleteEntry`, switches the pointer, then flushes "
            "the pending persists; each add is one `Confirm`. C3 needs a graceful close, which the protocol has not. "
            "`CURSOR-WRITES` is not checked: process protocol v1 carries no writes (the report says so)."
        ),
        "",
        (
            "Each invariant searched alone (a search stops at its first violation), "
            f"settings `{_real.SETTINGS}`, seed {_real.SEED}; a FAIL must be explained by the findings below: its "
            "counterexample, replayed on the real code against the spec's model taking on their behaviours (C2, C4, "
            "C5, alone or together: `spec.cursor_state.QUIRKS`), gets that model's every answer. It must also fail "
            "again on the real code and pass on `reference-pulsar-master` (tests/slow/test_real_cursor_verdicts.py; "
            "the same holds at seed 430). The findings that break each invariant:"
        ),
        "",
        "| Adapter | Invariant | Verdict | Explained by |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {v.adapter} | `{v.invariant}` | {v.verdict} | {', '.join(v.findings) or '-'} |"
        for v in _real.CURSOR_VERDICTS
    ]
    lines += ["", "Pinned counterexamples, breaking their invariant on both releases and passing on the reference:"]
    for case in _real.CURSOR_CASES:
        config = ", ".join(f"{k} {v}" for k, v in case.config.to_dict().items())
        lines += ["", f"{case.finding}, `{case.invariant}` ({config}):", "", "```"]
        lines += [f"{i:>2}. {op.describe()}" for i, op in enumerate(case.steps, start=1)]
        lines += ["```"]
    return lines


def cursor_state_section() -> str:
    """DEVIATIONS.md's "Cursor state (PIP-381)" subsection of the real-code section."""
    lines = [
        "",
        "### Cursor state (PIP-381)",
        "",
        (
            "**No release holds the chunked design.** `javap -p` of org.apache.pulsar:managed-ledger "
            f"{', '.join(RELEASES_CHECKED)} (all of 4.x and 5.x on Maven Central; 4.0.2-4.0.5 and 4.1.x are not "
            "there) finds no `ManagedCursorImpl$ChunkSequenceFooter`, no `PositionInfoUtils`, no "
            "`maxPositionChunkSize` or `cursorInfoCompressionType` in `ManagedLedgerConfig`; "
            "`persistPositionToLedger` makes one `asyncAddEntry(byte[])` of `PositionInfo.toByteArray()` and "
            "`recoverFromLedger` reads only the entry at the LAC. The PIP-381 flag survives as "
            "`ManagedLedgerConfig.setPersistentUnackedRangesWithMultipleEntriesEnabled(boolean)`; in 4.0.8 and "
            "4.2.4 its only use is `RangeSetWrapper`'s dirty-ledger marking: nothing is chunked. So `pip381` "
            "(`048142ca`) has no released implementation, and the released cursor is judged against "
            "`pulsar-master`."
        ),
        "",
        (
            f"JUnit cases (`{TEST_CLASS}`, real ManagedLedgerFactoryImpl/ManagedLedgerImpl/ManagedCursorImpl over "
            "Pulsar's PulsarMockBookKeeper from org.apache.pulsar:testmocks:4.0.8 and pulsar-metadata's "
            f"in-memory store) on managed-ledger {' and '.join(RELEASES_RUN)}; a crash is a second factory on "
            "the same bookies and store while the first one's add is held."
        ),
        "",
        *_protocol_lines(),
        "",
        "Findings:",
        "",
        "| Key | Finding | Profile | Invariants | JUnit case |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {f.key} | {f.title} | {f.profile} | {f.invariants} | `{f.reproduction}` |" for f in FINDINGS]
    for f in FINDINGS:
        lines += [
            "",
            f"#### {f.key}: {f.title}",
            "",
            (
                f"Steps: {f.steps}. Expected ({f.profile}): {f.expected}. Actual, on {' and '.join(RELEASES_RUN)}: "
                f"{f.actual}. Java: {f.java}."
            ),
        ]
    lines += ["", "Controls, passing on both releases:", ""]
    lines += [f"* `{name}`: {what}." for name, what in CONTROLS]
    lines += ["", "Observed, not a deviation:", ""]
    lines += [f"* {observation}" for observation in OBSERVED]
    lines += [
        "",
        (
            "Run: `ledgerspec harness test` (Maven's surefire reports are under the build's "
            "`real/managed-cursor-4.*/target/surefire-reports`). A Pulsar developer copies "
            f"`managed-cursor-common/src/test/java/org/apache/bookkeeper/mledger/impl/{TEST_CLASS}.java`, "
            "`CursorOps.java` beside it and the release's `CursorRecords.java` into "
            "`managed-ledger/src/test/java/org/apache/bookkeeper/mledger/impl/`, "
            "and `MockBookKeeperFaults.java` into the testmocks module's `org.apache.bookkeeper.client`."
        ),
    ]
    return "\n".join(lines) + "\n"
