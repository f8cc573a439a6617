package org.apache.bookkeeper.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.common.util.OrderedExecutor;

/**
 * Pulsar's PulsarMockBookKeeper (org.apache.pulsar:testmocks 4.0.8) with the cursor-state faults at the ledger
 * boundary: once {@link #hold()} is on, every add waits in {@link #held} until the harness confirms it (the mock
 * then appends it and runs the cursor's callback), fails it (the callback gets the error) or, at a crash, makes
 * it durable without any callback; reads of an entry marked unreadable fail with NoSuchEntry. In this package for
 * the mock's package-private fields. The spec's steps are in spec/cursor_state/SPEC.md §2.
 */
public final class HoldingBookKeeper extends PulsarMockBookKeeper {

    /** One add the cursor issued and BookKeeper has not answered. */
    public record Add(HeldHandle handle, byte[] data, AsyncCallback.AddCallback callback, Object ctx) {
    }

    public final List<Add> held = new ArrayList<>();
    private final Set<List<Long>> unreadable = new HashSet<>();
    private volatile boolean holding;

    public HoldingBookKeeper(OrderedExecutor executor) throws Exception {
        super(executor);
    }

    /** From now on every add waits for the harness. */
    public void hold() {
        holding = true;
    }

    /** The ledger's entry can no longer be read (its reads fail with NoSuchEntry). */
    public synchronized void makeUnreadable(long ledgerId, long entryId) {
        unreadable.add(List.of(ledgerId, entryId));
    }

    synchronized boolean isUnreadable(long ledgerId, long first, long last) {
        for (long entry = first; entry <= last; entry++) {
            if (unreadable.contains(List.of(ledgerId, entry))) {
                return true;
            }
        }
        return false;
    }

    /** The oldest held add, confirmed: the mock appends it and answers the cursor. */
    public CompletableFuture<Void> confirm(Add add) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        add.handle().write(add.data(), (rc, lh, entryId, ctx) -> {
            add.callback().addComplete(rc, lh, entryId, ctx);
            done.complete(null);
        }, add.ctx());
        return done;
    }

    /** The add fails with {@code rc}; nothing is written. */
    public void fail(Add add, int rc) {
        executor.execute(() -> add.callback().addComplete(rc, add.handle(), LedgerHandle.INVALID_ENTRY_ID, add.ctx()));
    }

    /** A crash after the add reached the bookies: it is durable, and no callback runs (the broker is gone). */
    public CompletableFuture<Void> persistSilently(Add add) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        add.handle().write(add.data(), (rc, lh, entryId, ctx) -> done.complete(null), null);
        return done;
    }

    /** The mock's own ledger creation, making {@link HeldHandle}s. */
    @Override
    public void asyncCreateLedger(int ensembleSize, int writeQuorumSize, int ackQuorumSize, DigestType digestType,
                                  byte[] passwd, AsyncCallback.CreateCallback cb, Object ctx,
                                  Map<String, byte[]> properties) {
        executor.execute(() -> {
            long id = sequence.getAndIncrement();
            try {
                HeldHandle handle = new HeldHandle(this, id, digestType, passwd);
                ledgers.put(id, handle);
                cb.createComplete(BKException.Code.OK, handle, ctx);
            } catch (Exception e) {
                cb.createComplete(BKException.Code.UnexpectedConditionException, null, ctx);
            }
        });
    }

    /**
     * managed-ledger 4.2.4 opens ledgers with bookkeeper-server 4.17.3's six-argument asyncOpenLedger, which the
     * 4.0.8 mock does not override: here it is the mock's recovery open (MockBookKeeperFaults has the same shim).
     */
    @SuppressWarnings("unused")
    public void asyncOpenLedger(long ledgerId, DigestType digestType, byte[] password,
                                AsyncCallback.OpenCallback callback, Object ctx, boolean keepUpdateMetadata) {
        asyncOpenLedger(ledgerId, digestType, password, callback, ctx);
    }

    /** A mock ledger handle whose adds wait for the harness and whose unreadable entries fail to read. */
    public static final class HeldHandle extends PulsarMockLedgerHandle {
        private final HoldingBookKeeper bk;

        HeldHandle(HoldingBookKeeper bk, long id, DigestType digest, byte[] passwd) throws Exception {
            super(bk, id, digest, passwd);
            this.bk = bk;
        }

        @Override
        public void asyncAddEntry(ByteBuf data, AsyncCallback.AddCallback cb, Object ctx) {
            if (!bk.holding) {
                super.asyncAddEntry(data, cb, ctx);
                return;
            }
            byte[] bytes = new byte[data.readableBytes()];
            data.getBytes(data.readerIndex(), bytes);
            data.release();
            synchronized (bk) {
                bk.held.add(new Add(this, bytes, cb, ctx));
            }
        }

        @Override
        public void asyncAddEntry(byte[] data, AsyncCallback.AddCallback cb, Object ctx) {
            asyncAddEntry(Unpooled.wrappedBuffer(data), cb, ctx);
        }

        void write(byte[] data, AsyncCallback.AddCallback cb, Object ctx) {
            super.asyncAddEntry(Unpooled.wrappedBuffer(data), cb, ctx);
        }

        @Override
        public void asyncReadEntries(long first, long last, AsyncCallback.ReadCallback cb, Object ctx) {
            if (bk.isUnreadable(getId(), first, last)) {
                bk.executor.execute(() -> cb.readComplete(BKException.Code.NoSuchEntryException, this, null, ctx));
                return;
            }
            super.asyncReadEntries(first, last, cb, ctx);
        }
    }
}
