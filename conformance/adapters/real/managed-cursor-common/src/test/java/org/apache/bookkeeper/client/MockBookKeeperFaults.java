package org.apache.bookkeeper.client;

import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.common.util.OrderedExecutor;

/**
 * Pulsar's PulsarMockBookKeeper (org.apache.pulsar:testmocks 4.0.8, the newest on Maven Central) and the
 * faults at the ledger boundary that its public API lacks. In this package for its package-private fields.
 */
public final class MockBookKeeperFaults {

    private MockBookKeeperFaults() {
    }

    /**
     * The mock, able to serve managed-ledger 4.2.4 too: that release opens cursor ledgers with the
     * six-argument asyncOpenLedger of bookkeeper-server 4.17.3, which the 4.0.8 mock does not override
     * (the inherited one would need real bookies); here it is the mock's recovery open, as the five-argument
     * one that 4.0.8 calls. On 4.17.2 (managed-ledger 4.0.8) it is a method nobody calls.
     */
    @SuppressWarnings("try") // the mock's close() may throw InterruptedException; the tests shut it down
    public static PulsarMockBookKeeper newBookKeeper(OrderedExecutor executor) throws Exception {
        return new PulsarMockBookKeeper(executor) {
            @SuppressWarnings("unused")
            public void asyncOpenLedger(long ledgerId, DigestType digestType, byte[] password,
                                        AsyncCallback.OpenCallback callback, Object ctx, boolean keepUpdateMetadata) {
                asyncOpenLedger(ledgerId, digestType, password, callback, ctx);
            }
        };
    }

    /**
     * Hold the next add of any ledger until the returned future completes: while it is pending the entry is
     * not in the ledger, and never completing it is a crash before that add became durable. (The mock's
     * addEntryDelay sleeps on its only executor thread instead, which stalls every later read and open.)
     */
    public static CompletableFuture<Void> holdNextAdd(PulsarMockBookKeeper bookKeeper) {
        return bookKeeper.promiseAfter(0, bookKeeper.addEntryFailures);
    }

    /** Hold the add after the next {@code steps} adds (which keep their programmed outcomes, if any). */
    public static CompletableFuture<Void> holdAddAfter(PulsarMockBookKeeper bookKeeper, int steps) {
        return bookKeeper.promiseAfter(steps, bookKeeper.addEntryFailures);
    }

    /** How many held or programmed add outcomes no add has taken yet (0: the held add is in flight). */
    public static int untakenAddFaults(PulsarMockBookKeeper bookKeeper) {
        synchronized (bookKeeper) {
            return bookKeeper.addEntryFailures.size();
        }
    }
}
