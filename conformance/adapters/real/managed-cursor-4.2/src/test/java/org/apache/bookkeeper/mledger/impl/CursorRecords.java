package org.apache.bookkeeper.mledger.impl;

import org.apache.bookkeeper.mledger.proto.ManagedCursorInfo;
import org.apache.bookkeeper.mledger.proto.PositionInfo;

/** The persisted cursor records, read with managed-ledger 4.2.4's own protobuf classes (LightProto). */
final class CursorRecords {

    private CursorRecords() {
    }

    /** A metadata-store ManagedCursorInfo. */
    static CursorStateRecoveryTest.StoreRecord metadataRecord(byte[] data) {
        ManagedCursorInfo info = new ManagedCursorInfo();
        info.parseFrom(data);
        return new CursorStateRecoveryTest.StoreRecord(info.getCursorsLedgerId(), info.getBatchedEntryDeletionIndexInfosCount());
    }

    /** A cursor-ledger PositionInfo entry. */
    static CursorStateRecoveryTest.LedgerEntry ledgerEntry(byte[] data) {
        PositionInfo info = new PositionInfo();
        info.parseFrom(data);
        return new CursorStateRecoveryTest.LedgerEntry(info.getEntryId(), info.getIndividualDeletedMessagesCount(),
                info.getBatchedEntryDeletionIndexInfosCount());
    }
}
