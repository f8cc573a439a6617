package org.apache.bookkeeper.mledger.impl;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    /** The properties of a cursor-ledger PositionInfo entry, by name. */
    static Map<String, Long> ledgerEntryProperties(byte[] data) throws InvalidProtocolBufferException {
        PositionInfo info = PositionInfo.parseFrom(data);
        Map<String, Long> properties = new TreeMap<>();
        info.getPropertiesList().forEach(property -> properties.put(property.getName(), property.getValue()));
        return properties;
    }

    /** The upper ends (entry ids) of a metadata-store ManagedCursorInfo's acknowledged ranges. */
    static List<Long> metadataRangeEnds(byte[] data) throws InvalidProtocolBufferException {
        ManagedCursorInfo info = ManagedCursorInfo.parseFrom(data);
        return info.getIndividualDeletedMessagesList().stream().map(range -> range.getUpperEndpoint().getEntryId())
                .toList();
    }
}
