package org.apache.bookkeeper.mledger.impl;

/** The one field of a metadata-store ManagedCursorInfo the harness reads, parsed by hand: the same in every release. */
final class CursorRecord {

    private CursorRecord() {
    }

    /** Field 1 (cursorsLedgerId, int64) of a ManagedCursorInfo record, the same in every release's proto. */
    static long cursorsLedgerId(byte[] data) {
        int[] at = {0};
        while (at[0] < data.length) {
            long tag = varint(data, at);
            int wire = (int) (tag & 7);
            if (tag >>> 3 == 1 && wire == 0) {
                return varint(data, at);
            }
            switch (wire) {
                case 0 -> varint(data, at);
                case 1 -> at[0] += 8;
                case 2 -> at[0] += (int) varint(data, at);
                case 5 -> at[0] += 4;
                default -> throw new IllegalStateException("wire type " + wire + " in a ManagedCursorInfo");
            }
        }
        throw new IllegalStateException("a ManagedCursorInfo without cursorsLedgerId");
    }

    /** A protobuf varint at {@code at[0]}, which moves past it. */
    static long varint(byte[] data, int[] at) {
        long value = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = data[at[0]++];
            value |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return value;
            }
        }
    }
}
