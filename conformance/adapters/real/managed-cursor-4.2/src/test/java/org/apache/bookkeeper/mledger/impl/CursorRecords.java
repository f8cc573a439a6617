package org.apache.bookkeeper.mledger.impl;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    /** The properties of a cursor-ledger PositionInfo entry, by name. */
    static Map<String, Long> ledgerEntryProperties(byte[] data) {
        PositionInfo info = new PositionInfo();
        info.parseFrom(data);
        Map<String, Long> properties = new TreeMap<>();
        info.getPropertiesList().forEach(property -> properties.put(property.getName(), property.getValue()));
        return properties;
    }

    /** The upper ends (entry ids) of a metadata-store ManagedCursorInfo's acknowledged ranges. */
    static List<Long> metadataRangeEnds(byte[] data) {
        ManagedCursorInfo info = new ManagedCursorInfo();
        info.parseFrom(data);
        return info.getIndividualDeletedMessagesList().stream().map(range -> range.getUpperEndpoint().getEntryId())
                .toList();
    }
}
