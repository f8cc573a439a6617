package org.apache.bookkeeper.client;

import java.util.concurrent.CompletableFuture;

/**
 * Faults at the ledger boundary of PulsarMockBookKeeper (testmocks) that its public API lacks: its
 * addEntryDelay sleeps on the mock's only executor thread, which stalls every later read and open too.
 */
public final class MockBookKeeperFaults {

    private MockBookKeeperFaults() {
    }

    /**
     * Hold the next add of any ledger until the returned future completes: while it is pending the entry is
     * not in the ledger, and never completing it is a crash before that add became durable. Completing it
     * exceptionally with a BKException fails the add with that code.
     */
    public static CompletableFuture<Void> holdNextAdd(PulsarMockBookKeeper bookKeeper) {
        return bookKeeper.promiseAfter(0, bookKeeper.addEntryFailures);
    }
}
