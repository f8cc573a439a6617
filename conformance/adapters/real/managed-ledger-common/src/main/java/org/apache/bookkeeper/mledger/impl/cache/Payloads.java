package org.apache.bookkeeper.mledger.impl.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import ledgerspec.protocol.NotAllowed;

/**
 * Entry payloads of any size without a copy each: a buffer of its own (its own reference count) over
 * zero bytes shared by all, grown to the largest size asked for.
 */
final class Payloads {
    private byte[] zeros = new byte[0];

    ByteBuf of(long size) {
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new NotAllowed("an entry needs 0 < size < 2^31, got " + size);
        }
        if (zeros.length < size) {
            zeros = new byte[(int) size];
        }
        return Unpooled.wrappedBuffer(zeros, 0, (int) size);
    }
}
