package org.apache.bookkeeper.mledger.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.bookkeeper.client.PulsarMockBookKeeper;
import org.apache.bookkeeper.common.util.OrderedExecutor;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Findings L1 and L2 of the cache-managed-ledger-4.2.4 harness (conformance/adapters/real/README.md), on the real
 * managed-ledger classes only: ManagedLedgerFactoryImpl and ManagedLedgerImpl over Pulsar's PulsarMockBookKeeper
 * and pulsar-metadata's in-memory store, as Pulsar's own managed-ledger tests run them.
 *
 * <p>L1: ManagedLedgerImpl's constructor picks the active-cursor container by cacheEvictionByExpectedReadCount, so
 * handing an open ledger the other value with setConfig leaves it a container that cannot do what the new mode
 * asks. L2: with the flag off, the count a backlog read uses is 0, whatever the cursors.
 */
class ManagedLedgerLayerTest {
    private OrderedExecutor executor;
    private PulsarMockBookKeeper bookKeeper;
    private MetadataStoreExtended store;
    private ManagedLedgerFactoryImpl factory;

    @BeforeEach
    void setUp() throws Exception {
        executor = OrderedExecutor.newBuilder().numThreads(1).name("mock-bookkeeper").build();
        bookKeeper = new PulsarMockBookKeeper(executor);
        store = MetadataStoreExtended.create("memory:" + UUID.randomUUID(), MetadataStoreConfig.builder().build());
        factory = new ManagedLedgerFactoryImpl(store, bookKeeper, new ManagedLedgerFactoryConfig());
    }

    @AfterEach
    void tearDown() throws Exception {
        factory.shutdown();
        bookKeeper.shutdown();
        store.close();
        executor.shutdownNow();
    }

    private ManagedLedgerImpl open(String name, boolean byExpectedReadCount) throws Exception {
        ManagedLedgerConfig config = new ManagedLedgerConfig();
        config.setCacheEvictionByExpectedReadCount(byExpectedReadCount);
        return (ManagedLedgerImpl) factory.open(name, config);
    }

    private static ManagedLedgerConfig flipped(ManagedLedgerImpl ledger) {
        ManagedLedgerConfig config = new ManagedLedgerConfig();
        config.setCacheEvictionByExpectedReadCount(!ledger.getConfig().isCacheEvictionByExpectedReadCount());
        return config;
    }

    @Test
    void switchingTheFlagOffOnAnOpenLedgerMakesCursorMovesThrow() throws Exception {
        ManagedLedgerImpl ledger = open("l1-off", true);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor("c", InitialPosition.Earliest);
        Position first = ledger.addEntry("e0".getBytes(StandardCharsets.UTF_8));
        ledger.addEntry("e1".getBytes(StandardCharsets.UTF_8));
        ledger.setConfig(flipped(ledger));
        // updateActiveCursor takes the legacy branch: ActiveManagedCursorContainerImpl.cursorUpdated throws
        assertThrows(UnsupportedOperationException.class,
                () -> cursor.seek(PositionFactory.create(first.getLedgerId(), 1), true));
        assertThrows(UnsupportedOperationException.class, () -> ledger.openCursor("c2", InitialPosition.Earliest));
    }

    @Test
    void switchingTheFlagOnOnAnOpenLedgerMakesTheBacklogReadCountThrow() throws Exception {
        ManagedLedgerImpl ledger = open("l1-on", false);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor("c", InitialPosition.Earliest);
        ledger.addEntry("e0".getBytes(StandardCharsets.UTF_8));
        ledger.setConfig(flipped(ledger));
        // the supplier every backlog read evaluates: ManagedCursorContainerImpl has no count
        assertThrows(UnsupportedOperationException.class, cursor::getNumberOfCursorsAtSamePositionOrBefore);
    }

    @Test
    void withTheFlagOffTheReadCountIsZeroWhateverTheCursors() throws Exception {
        ManagedLedgerImpl ledger = open("l2", false);
        ManagedCursorImpl first = (ManagedCursorImpl) ledger.openCursor("c1", InitialPosition.Earliest);
        ledger.openCursor("c2", InitialPosition.Earliest);
        ledger.addEntry("e0".getBytes(StandardCharsets.UTF_8));
        assertEquals(2, ledger.getActiveCursors().size());
        assertEquals(0, first.getNumberOfCursorsAtSamePositionOrBefore());
        // the same cursors with the flag on from the start: both count
        ManagedLedgerImpl tracking = open("l2-tracking", true);
        ManagedCursorImpl c1 = (ManagedCursorImpl) tracking.openCursor("c1", InitialPosition.Earliest);
        tracking.openCursor("c2", InitialPosition.Earliest);
        assertEquals(2, c1.getNumberOfCursorsAtSamePositionOrBefore());
    }
}
