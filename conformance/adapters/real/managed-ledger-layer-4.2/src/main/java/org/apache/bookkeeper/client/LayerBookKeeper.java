package org.apache.bookkeeper.client;

import org.apache.bookkeeper.common.util.OrderedExecutor;

/**
 * Pulsar's PulsarMockBookKeeper (org.apache.pulsar:testmocks 4.0.8) as the bookies of the managed-ledger
 * harness. managed-ledger 4.2.4 reopens a closed managed ledger's ledgers with bookkeeper-server 4.17.3's
 * six-argument asyncOpenLedger, which the 4.0.8 mock does not override: here it is the mock's open (the
 * cursor-state harness's HoldingBookKeeper has the same shim).
 */
public final class LayerBookKeeper extends PulsarMockBookKeeper {
    public LayerBookKeeper(OrderedExecutor executor) throws Exception {
        super(executor);
    }

    @SuppressWarnings("unused")
    public void asyncOpenLedger(long ledgerId, DigestType digestType, byte[] password,
                                AsyncCallback.OpenCallback callback, Object ctx, boolean keepUpdateMetadata) {
        asyncOpenLedger(ledgerId, digestType, password, callback, ctx);
    }
}
