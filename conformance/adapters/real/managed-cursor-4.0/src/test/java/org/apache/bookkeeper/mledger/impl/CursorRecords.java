package org.apache.bookkeeper.mledger.impl;

import com.google.protobuf.InvalidProtocolBufferException;
import org.apache.bookkeeper.mledger.proto.MLDataFormats.ManagedCursorInfo;
import org.apache.bookkeeper.mledger.proto.MLDataFormats.PositionInfo;

/** The persisted cursor records, read with managed-ledger 4.0.8's own protobuf classes (Google protobuf). */
final class CursorRecords {

    private CursorRecords() {
    }

    /** A metadata-store ManagedCursorInfo. */
    static CursorStateRecoveryTest.StoreRecord metadataRecord(byte[] data) throws InvalidProtocolBufferException {
        ManagedCursorInfo info = ManagedCursorInfo.parseFrom(data);
        return new CursorStateRecoveryTest.StoreRecord(info.getCursorsLedgerId(), info.getBatchedEntryDeletionIndexInfoCount());
    }

    /** A cursor-ledger PositionInfo entry. */
    static CursorStateRecoveryTest.LedgerEntry ledgerEntry(byte[] data) throws InvalidProtocolBufferException {
        PositionInfo info = PositionInfo.parseFrom(data);
        return new CursorStateRecoveryTest.LedgerEntry(info.getEntryId(), info.getIndividualDeletedMessagesCount(),
                info.getBatchedEntryDeletionIndexInfoCount());
    }
}
