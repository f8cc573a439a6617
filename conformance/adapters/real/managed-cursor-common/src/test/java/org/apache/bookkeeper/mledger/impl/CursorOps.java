package org.apache.bookkeeper.mledger.impl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/** What CursorStateRecoveryTest does to a managed ledger and its cursor, and how it walks raw protobuf. */
final class CursorOps {

    private CursorOps() {
    }

    static ManagedLedgerConfig config(boolean batchIndexAcks) {
        ManagedLedgerConfig config = new ManagedLedgerConfig();
        // the PIP-381 flag: in these releases it marks dirty ledgers only; nothing is chunked
        config.setPersistentUnackedRangesWithMultipleEntriesEnabled(true);
        config.setDeletionAtBatchIndexLevelEnabled(batchIndexAcks);
        return config;
    }

    static List<Position> addEntries(ManagedLedger ledger, int count) throws Exception {
        List<Position> positions = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            positions.add(ledger.addEntry(("entry-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        return positions;
    }

    static CompletableFuture<Void> markDelete(ManagedCursor cursor, Position position) {
        return markDelete(cursor, position, Collections.emptyMap()); // as asyncMarkDelete(position, cb, ctx)
    }

    /** asyncMarkDelete with these properties, which the persist writes. */
    static CompletableFuture<Void> markDelete(ManagedCursor cursor, Position position, Map<String, Long> properties) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        cursor.asyncMarkDelete(position, properties, new AsyncCallbacks.MarkDeleteCallback() {
            @Override
            public void markDeleteComplete(Object ctx) {
                done.complete(null);
            }

            @Override
            public void markDeleteFailed(ManagedLedgerException exception, Object ctx) {
                done.completeExceptionally(exception);
            }
        }, null);
        return done;
    }

    static CompletableFuture<Void> delete(ManagedCursor cursor, Position position) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        cursor.asyncDelete(position, new AsyncCallbacks.DeleteCallback() {
            @Override
            public void deleteComplete(Object ctx) {
                done.complete(null);
            }

            @Override
            public void deleteFailed(ManagedLedgerException exception, Object ctx) {
                done.completeExceptionally(exception);
            }
        }, null);
        return done;
    }

    /** Unacked batch indexes 0 .. size-1 except those in [0, acked): the ack set of a partial batch ack. */
    static long[] ackSet(int size, int acked) {
        BitSet unacked = new BitSet();
        unacked.set(acked, size);
        return unacked.toLongArray();
    }

    /** The end offsets of the top-level fields of a protobuf message (varint and length-delimited only). */
    static List<Integer> topLevelFieldEnds(byte[] data) {
        List<Integer> ends = new ArrayList<>();
        int[] at = {0};
        while (at[0] < data.length) {
            long tag = readVarint(data, at);
            switch ((int) (tag & 7)) {
                case 0 -> readVarint(data, at);
                case 2 -> {
                    int length = (int) readVarint(data, at);
                    at[0] += length;
                }
                default -> throw new IllegalStateException("wire type " + (tag & 7) + " at " + at[0]);
            }
            ends.add(at[0]);
        }
        return ends;
    }

    static long readVarint(byte[] data, int[] at) {
        return CursorRecord.varint(data, at);
    }
}
