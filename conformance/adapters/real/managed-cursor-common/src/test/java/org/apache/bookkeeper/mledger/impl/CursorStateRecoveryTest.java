package org.apache.bookkeeper.mledger.impl;

import static org.apache.bookkeeper.mledger.impl.CursorOps.ackSet;
import static org.apache.bookkeeper.mledger.impl.CursorOps.addEntries;
import static org.apache.bookkeeper.mledger.impl.CursorOps.config;
import static org.apache.bookkeeper.mledger.impl.CursorOps.delete;
import static org.apache.bookkeeper.mledger.impl.CursorOps.markDelete;
import static org.apache.bookkeeper.mledger.impl.CursorOps.topLevelFieldEnds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.client.BKException;
import org.apache.bookkeeper.client.MockBookKeeperFaults;
import org.apache.bookkeeper.client.PulsarMockBookKeeper;
import org.apache.bookkeeper.client.PulsarMockLedgerHandle;
import ledgerspec.world.World;
import org.apache.bookkeeper.common.util.OrderedExecutor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.MetadataStoreException;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.apache.pulsar.metadata.impl.FaultInjectionMetadataStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cursor-state recovery of the released ManagedCursorImpl after a crash, a failed cursor-ledger write and a
 * graceful close; ledgerspec's spec/cursor_state, findings P1 and P2. One source, compiled and run against
 * managed-ledger 4.0.8 (module managed-cursor-4.0) and 4.2.4 (managed-cursor-4.2); CursorRecords, beside
 * each, reads the persisted records with that release's own protobuf classes.
 *
 * <p>Only real Pulsar classes: ManagedLedgerFactoryImpl, ManagedLedgerImpl and ManagedCursorImpl over
 * Pulsar's own PulsarMockBookKeeper (org.apache.pulsar:testmocks) and pulsar-metadata's in-memory store.
 * A "crash" is a second factory opened on the same bookies and metadata store while the first one's write
 * is still in flight, as Pulsar's ManagedCursorTest does. The tests assert what the code does (so they
 * pass while it does it); the comments say what the spec expects.
 */
class CursorStateRecoveryTest {

    private static final String LEDGER = "cursor-state";
    private static final String CURSOR = "c";

    private OrderedExecutor executor;
    private World world;
    private PulsarMockBookKeeper bookKeeper;
    private FaultInjectionMetadataStore metadataStore;
    private final List<ManagedLedgerFactoryImpl> factories = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        world = new World(); // every task on one counted thread: a step settles by running it, not by sleeping
        executor = OrderedExecutor.newBuilder().numThreads(1).name("mock-bookkeeper").build();
        world.captureOrdered(executor);
        bookKeeper = MockBookKeeperFaults.newBookKeeper(executor);
        world.capture(bookKeeper);
        // memory:<name> stores of one name share their data in a JVM: a fresh name per test
        metadataStore = new FaultInjectionMetadataStore(MetadataStoreExtended.create(
                "memory:" + UUID.randomUUID(), MetadataStoreConfig.builder().build()));
        world.captureWith(metadataStore, "store");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (ManagedLedgerFactoryImpl factory : factories) {
            try {
                factory.shutdown();
            } catch (Exception | Error ignored) {
                // the first factory of a crash test still holds a fenced ledger
            }
        }
        bookKeeper.shutdown();
        metadataStore.close();
        executor.shutdownNow();
        world.end();
    }

    /** A broker's managed ledgers: one factory per "broker process". */
    private ManagedLedgerFactoryImpl newFactory() throws Exception {
        ManagedLedgerFactoryImpl factory = new ManagedLedgerFactoryImpl(metadataStore, bookKeeper);
        world.captureWith(factory, "store", "entryCacheManager");
        factories.add(factory);
        return factory;
    }

    private ManagedCursorImpl recover(ManagedLedgerConfig config) throws Exception {
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        return (ManagedCursorImpl) ledger.openCursor(CURSOR);
    }

    /** What a test reads of the metadata-store record (ManagedCursorInfo). */
    record StoreRecord(long cursorsLedgerId, int batchIndexSets) {
    }

    /** What a test reads of a cursor-ledger entry (PositionInfo). */
    record LedgerEntry(long markDeleteEntryId, int ranges, int batchIndexSets) {
    }

    private StoreRecord cursorRecord() throws Exception {
        return CursorRecords.metadataRecord(cursorRecordBytes(LEDGER));
    }

    private byte[] cursorRecordBytes(String ledgerName) throws Exception {
        return metadataStore.get("/managed-ledgers/" + ledgerName + "/" + CURSOR).get(10, TimeUnit.SECONDS)
                .orElseThrow().getValue();
    }

    private byte[] lastCursorLedgerEntry(long cursorLedgerId) throws Exception {
        PulsarMockLedgerHandle handle = bookKeeper.getLedgerMap().get(cursorLedgerId);
        long last = handle.getLastAddConfirmed();
        return handle.readEntries(last, last).nextElement().getEntry();
    }

    /**
     * P1 does not reproduce: a crash while the second persist is in flight recovers the first, acknowledged
     * state whole. Both releases write one PositionInfo entry per persist and read back only the last entry, so
     * no torn prefix of a state can ever be the last entry (the `pulsar-master` profile).
     */
    @Test
    void crashDuringASecondPersistRecoversTheAcknowledgedFirstState() throws Exception {
        ManagedLedgerConfig config = config(false);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 8);

        cursor.markDelete(p.get(0));
        cursor.delete(p.get(3));
        cursor.delete(p.get(5)); // persisted too: asyncDelete ends in internalAsyncMarkDelete (no mark-delete rate limit is set)
        long cursorLedgerId = cursor.getCursorLedger();
        byte[] acknowledged = lastCursorLedgerEntry(cursorLedgerId);
        assertEquals(new LedgerEntry(0, 2, 0), CursorRecords.ledgerEntry(acknowledged),
                "the acknowledged state: mark-delete e0, ranges (e2,e3] and (e4,e5]");

        CompletableFuture<Void> held = MockBookKeeperFaults.holdNextAdd(bookKeeper); // never released
        CompletableFuture<Void> second = markDelete(cursor, p.get(1));
        world.settle();
        assertEquals(0, MockBookKeeperFaults.untakenAddFaults(bookKeeper), "the mark-delete's add took the hold");
        assertFalse(second.isDone(), "the next persist is still in flight at the crash");
        assertArrayEquals(acknowledged, lastCursorLedgerEntry(cursorLedgerId), "nothing of it is durable");

        ManagedCursorImpl recovered = recover(config); // crash: another broker opens the topic
        assertEquals(p.get(0), recovered.getMarkDeletedPosition());
        assertTrue(recovered.isMessageDeleted(p.get(3)));
        assertTrue(recovered.isMessageDeleted(p.get(5)));
        assertFalse(recovered.isMessageDeleted(p.get(1)), "the in-flight mark-delete was never acknowledged");
        assertFalse(recovered.isMessageDeleted(p.get(4)));
        assertFalse(held.isDone());
    }

    /**
     * A failed cursor-ledger write falls back to the metadata store (cursorsLedgerId = -1) and the persist is
     * acknowledged; recovery gives that state back, ranges included.
     */
    @Test
    void aFailedLedgerWriteIsPersistedInTheMetadataStoreAndRecovered() throws Exception {
        ManagedLedgerConfig config = config(false);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 8);
        cursor.delete(p.get(3));
        cursor.delete(p.get(5));
        cursor.markDelete(p.get(0));

        cursor.delete(p.get(7));
        bookKeeper.addEntryFailAfter(0, BKException.Code.BookieHandleNotAvailableException);
        markDelete(cursor, p.get(1)).get(10, TimeUnit.SECONDS); // acknowledged through the fallback
        assertEquals(-1, cursorRecord().cursorsLedgerId(), "the state went to the metadata store");

        ManagedCursorImpl recovered = recover(config);
        assertEquals(p.get(1), recovered.getMarkDeletedPosition());
        assertTrue(recovered.isMessageDeleted(p.get(3)));
        assertTrue(recovered.isMessageDeleted(p.get(5)));
        assertTrue(recovered.isMessageDeleted(p.get(7)));
    }

    /** Control for P2: through the cursor ledger, a partial batch ack survives recovery. */
    @Test
    void batchIndexAcksPersistedInTheCursorLedgerAreRecovered() throws Exception {
        ManagedLedgerConfig config = config(true);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 4);
        Position batch = p.get(2);
        cursor.delete(AckSetStateUtil.createPositionWithAckSet(batch.getLedgerId(), batch.getEntryId(), ackSet(10, 3)));
        long[] before = cursor.getDeletedBatchIndexesAsLongArray(batch);
        assertNotNull(before);
        cursor.markDelete(p.get(0));
        assertEquals(1, CursorRecords.ledgerEntry(lastCursorLedgerEntry(cursor.getCursorLedger())).batchIndexSets());

        ManagedCursorImpl recovered = recover(config);
        assertArrayEquals(before, recovered.getDeletedBatchIndexesAsLongArray(batch));
    }

    /**
     * P2 reproduces: when the cursor-ledger write fails, the persist is acknowledged through the metadata
     * store, whose record holds the batch-index set, but recovery from that record (cursorsLedgerId = -1,
     * ManagedCursorImpl$2.operationComplete) restores the mark-delete position, the ranges and the properties
     * and never the batch-index sets. The spec expects the acknowledged set back; the code gives none, so
     * batch messages 0..2 of the entry are delivered again.
     */
    @Test
    void batchIndexAcksAreLostWhenTheStateGoesThroughTheMetadataStore() throws Exception {
        ManagedLedgerConfig config = config(true);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 4);
        Position batch = p.get(2);
        cursor.delete(AckSetStateUtil.createPositionWithAckSet(batch.getLedgerId(), batch.getEntryId(), ackSet(10, 3)));
        long[] before = cursor.getDeletedBatchIndexesAsLongArray(batch);
        assertNotNull(before);

        bookKeeper.addEntryFailAfter(0, BKException.Code.BookieHandleNotAvailableException);
        markDelete(cursor, p.get(0)).get(10, TimeUnit.SECONDS); // acknowledged through the fallback
        assertEquals(new StoreRecord(-1, 1), cursorRecord(), "the record holds the state and its batch-index set");

        ManagedCursorImpl recovered = recover(config);
        assertEquals(p.get(0), recovered.getMarkDeletedPosition());
        assertNull(recovered.getDeletedBatchIndexesAsLongArray(batch),
                "P2: the acknowledged batch-index set is not restored from the metadata store");
        assertFalse(recovered.isMessageDeleted(batch));
    }

    /**
     * P2 through a graceful close: with few ack holes (at most maxUnackedRangesToPersistInMetadataStore),
     * closing the ledger persists the cursor in the metadata store and deletes its ledger, so the same
     * recovery path drops the batch-index sets of a cleanly unloaded topic.
     */
    @Test
    void batchIndexAcksAreLostAcrossAGracefulClose() throws Exception {
        ManagedLedgerConfig config = config(true);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 4);
        Position batch = p.get(2);
        cursor.delete(AckSetStateUtil.createPositionWithAckSet(batch.getLedgerId(), batch.getEntryId(), ackSet(10, 3)));
        cursor.markDelete(p.get(0));
        long[] before = cursor.getDeletedBatchIndexesAsLongArray(batch);
        assertNotNull(before);

        ledger.close();
        assertEquals(new StoreRecord(-1, 1), cursorRecord(), "closing wrote the state into the metadata store");

        ManagedCursorImpl recovered = recover(config);
        assertEquals(p.get(0), recovered.getMarkDeletedPosition());
        assertNull(recovered.getDeletedBatchIndexesAsLongArray(batch),
                "P2: a graceful close loses the acknowledged batch-index set");
    }

    /**
     * The range cap of these releases: with maxUnackedRangesToPersist = 3 and five ack holes, a persist
     * writes max + 1 = 4 ranges (each range is added before the count is checked), and recovery gives four
     * back. The `pulsar-master` profile caps at exactly max, as master does since apache/pulsar PR #25548;
     * the `pip381` profile's max + 1 is what these releases do. More acks recovered, none invented: only
     * CURSOR-MODEL differs.
     */
    @Test
    void theRangeCapPersistsOneRangeOverTheMaximum() throws Exception {
        ManagedLedgerConfig config = config(false);
        config.setMaxUnackedRangesToPersist(3);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 12);
        for (int entry : new int[] {1, 3, 5, 7, 9}) {
            cursor.delete(p.get(entry)); // five holes: e0, e2, e4, e6, e8 unacknowledged
        }
        assertEquals(4, CursorRecords.ledgerEntry(lastCursorLedgerEntry(cursor.getCursorLedger())).ranges(),
                "max + 1 ranges persisted");

        ManagedCursorImpl recovered = recover(config);
        for (int entry : new int[] {1, 3, 5, 7}) {
            assertTrue(recovered.isMessageDeleted(p.get(entry)), "e" + entry + " recovered acknowledged");
        }
        assertFalse(recovered.isMessageDeleted(p.get(9)), "the fifth range is beyond the cap");
    }

    /**
     * A metadata-store failure after the ledger write: after recovery the cursor has no writable ledger,
     * so its next persist creates one, writes the state there and then points the metadata store at it
     * (createNewMetadataLedger). When that pointer update fails, the persist fails and recovery gives back
     * the previous acknowledged state, as the `pulsar-master` profile says (FailMeta).
     */
    @Test
    void aFailedPointerSwitchFailsThePersistAndRecoveryKeepsTheAcknowledgedState() throws Exception {
        ManagedLedgerConfig config = config(false);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 6);
        cursor.markDelete(p.get(0));
        cursor.delete(p.get(3)); // acknowledged: mark-delete e0, e3
        long firstLedger = cursor.getCursorLedger();

        ManagedCursorImpl restarted = recover(config); // a broker restart: the cursor has no writable ledger
        metadataStore.failConditional(new MetadataStoreException("injected"), (operation, path) ->
                operation == FaultInjectionMetadataStore.OperationType.PUT
                        && path.equals("/managed-ledgers/" + LEDGER + "/" + CURSOR));
        CompletableFuture<Void> failed = delete(restarted, p.get(4));
        Throwable error = null;
        try {
            failed.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            error = e.getCause();
        }
        assertNotNull(error, "the persist whose pointer switch failed is not acknowledged");
        assertEquals(firstLedger, cursorRecord().cursorsLedgerId(), "the record still names the first ledger");

        ManagedCursorImpl recovered = recover(config);
        assertEquals(p.get(0), recovered.getMarkDeletedPosition());
        assertTrue(recovered.isMessageDeleted(p.get(3)));
        assertFalse(recovered.isMessageDeleted(p.get(4)));
    }

    /**
     * C5: after a restart the cursor's next persist creates a new cursor ledger (createNewMetadataLedger). When
     * that ledger's first write (of lastMarkDeleteEntry) fails, persistPositionToLedger falls back to the metadata
     * store and reports success, so the cursor then points the record at the new, empty ledger (switchToNewLedger)
     * and flushes the pending persist there. A crash before that flush is durable recovers from an empty ledger:
     * the record's mark-delete position alone. The acknowledged e3 comes back unacknowledged; the spec expects the
     * failed write to delete the new ledger and leave the record as it was (CURSOR-NO-ACK-LOSS).
     */
    @Test
    void aFailedFirstWriteToANewCursorLedgerStillSwitchesToItAndACrashLosesAcks() throws Exception {
        ManagedLedgerConfig config = config(false);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 6);
        cursor.markDelete(p.get(0));
        cursor.delete(p.get(3)); // acknowledged: mark-delete e0, e3
        long firstLedger = cursor.getCursorLedger();

        ManagedCursorImpl restarted = recover(config); // a broker restart: the cursor has no writable ledger
        assertTrue(restarted.isMessageDeleted(p.get(3)));
        bookKeeper.addEntryFailAfter(0, BKException.Code.BookieHandleNotAvailableException); // the first write
        CompletableFuture<Void> held = MockBookKeeperFaults.holdAddAfter(bookKeeper, 1); // the flush, in flight
        CompletableFuture<Void> persist = delete(restarted, p.get(4));
        world.settle();
        assertFalse(persist.isDone(), "the persist waits for the flush");
        long pointed = cursorRecord().cursorsLedgerId();
        assertNotEquals(firstLedger, pointed, "C5: the record names the new ledger");
        assertEquals(-1, bookKeeper.getLedgerMap().get(pointed).getLastAddConfirmed(), "whose only write failed");

        ManagedCursorImpl recovered = recover(config); // crash: another broker opens the topic
        assertEquals(p.get(0), recovered.getMarkDeletedPosition());
        assertFalse(recovered.isMessageDeleted(p.get(3)), "C5: the acknowledged e3 is lost");
        assertFalse(held.isDone());
    }

    /**
     * C6: a mark-delete moves on over the run of individually acknowledged entries right after it
     * (setAcknowledgedPosition: rangeContaining(getNextValidPosition(position)).upperEndpoint()). Nothing is lost
     * or invented; the spec's mark-delete stops at the position given and keeps the run as individual acks.
     */
    @Test
    void aMarkDeleteMovesOnOverTheAcknowledgedRunAfterIt() throws Exception {
        ManagedLedger ledger = newFactory().open(LEDGER, config(false));
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 6);
        cursor.delete(p.get(1));
        cursor.delete(p.get(2));
        cursor.delete(p.get(4));
        cursor.markDelete(p.get(0));
        assertEquals(p.get(2), cursor.getMarkDeletedPosition(), "C6: over e1 and e2, not over the hole at e3");
        assertTrue(cursor.isMessageDeleted(p.get(4)));
        assertFalse(cursor.isMessageDeleted(p.get(3)));
    }

    /**
     * C7 (a spec correction): a write carries what the cursor holds when it is made, and a persist from NoLedger is
     * two adds; three parts, each on its own managed ledger. The batch sets a mark-delete covers stay in
     * batchDeletedIndexes, so in its PositionInfo, until its persist completes (4.2.4 MarkDeleteEntry's
     * alignAcknowledgeStatusAfterPersisted; 4.0.8 internalMarkDelete's callback). createNewMetadataLedger writes
     * lastMarkDeleteEntry, switches the pointer, then flushes the pending persist. The metadata-store fallback
     * (persistPositionToMetaStore) writes the ranges held when it writes.
     */
    @Test
    void aWriteCarriesWhatTheCursorHoldsWhenItIsMadeAndAPersistFromNoLedgerIsTwoAdds() throws Exception {
        aMarkDeleteWritesTheBatchSetsItCoversAndDropsThemWhenItsPersistCompletes();
        aPersistFromNoLedgerWritesLastMarkDeleteEntryThenFlushesThePersist();
        theMetadataStoreFallbackWritesTheRangesHeldWhenItWrites(); // last: it leaves an add held
    }

    private void aMarkDeleteWritesTheBatchSetsItCoversAndDropsThemWhenItsPersistCompletes() throws Exception {
        ManagedLedger ledger = newFactory().open("c7-batch-sets", config(true));
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 4);
        cursor.markDelete(p.get(0)); // the cursor's first persist opens its ledger
        for (Position batch : p.subList(1, 3)) { // index 0 of e1 and of e2 acknowledged
            cursor.delete(AckSetStateUtil.createPositionWithAckSet(batch.getLedgerId(), batch.getEntryId(),
                    ackSet(10, 1)));
        }
        long cursorLedger = cursor.getCursorLedger();
        long before = bookKeeper.getLedgerMap().get(cursorLedger).getLastAddConfirmed();
        CompletableFuture<Void> held = MockBookKeeperFaults.holdNextAdd(bookKeeper);
        CompletableFuture<Void> persist = markDelete(cursor, p.get(2));
        world.settle();
        assertEquals(0, MockBookKeeperFaults.untakenAddFaults(bookKeeper), "the mark-delete's add took the hold");
        assertEquals(p.get(2), cursor.getMarkDeletedPosition());
        assertNotNull(cursor.getDeletedBatchIndexesAsLongArray(p.get(1)), "C7: the sets stay while it is in flight");
        assertNotNull(cursor.getDeletedBatchIndexesAsLongArray(p.get(2)));
        held.complete(null);
        persist.get(10, TimeUnit.SECONDS);
        assertEquals(before + 1, bookKeeper.getLedgerMap().get(cursorLedger).getLastAddConfirmed(), "the held add");
        assertEquals(new LedgerEntry(2, 0, 2), CursorRecords.ledgerEntry(lastCursorLedgerEntry(cursorLedger)),
                "C7: mark-delete e2's entry carries the batch sets of e1 and e2, which it covers");
        assertNull(cursor.getDeletedBatchIndexesAsLongArray(p.get(1)), "its persist completed: the sets are gone");
        assertNull(cursor.getDeletedBatchIndexesAsLongArray(p.get(2)));
    }

    private void aPersistFromNoLedgerWritesLastMarkDeleteEntryThenFlushesThePersist() throws Exception {
        ManagedLedgerConfig config = config(false);
        ManagedLedger ledger = newFactory().open(LEDGER, config);
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR); // a new cursor: no properties
        List<Position> p = addEntries(ledger, 4);
        long firstLedger = cursor.getCursorLedger();

        ManagedCursorImpl restarted = recover(config); // a broker restart: the cursor has no writable ledger
        CompletableFuture<Void> firstAdd = MockBookKeeperFaults.holdNextAdd(bookKeeper);
        CompletableFuture<Void> secondAdd = MockBookKeeperFaults.holdAddAfter(bookKeeper, 1);
        CompletableFuture<Void> persist = markDelete(restarted, p.get(1), Map.of("p", 7L));
        world.settle();
        assertEquals(1, MockBookKeeperFaults.untakenAddFaults(bookKeeper), "one add in flight: the new ledger's first");
        firstAdd.complete(null);
        world.settle();
        long newLedger = cursorRecord().cursorsLedgerId();
        assertNotEquals(firstLedger, newLedger, "the first add confirmed, the record names the new ledger");
        assertEquals(0, bookKeeper.getLedgerMap().get(newLedger).getLastAddConfirmed());
        byte[] first = lastCursorLedgerEntry(newLedger);
        assertEquals(new LedgerEntry(-1, 0, 0), CursorRecords.ledgerEntry(first), "C7: lastMarkDeleteEntry first");
        assertEquals(Map.of(), CursorRecords.ledgerEntryProperties(first), "C7: without the persist's property p");
        assertEquals(0, MockBookKeeperFaults.untakenAddFaults(bookKeeper), "C7: a second add, the flush, in flight");
        assertFalse(persist.isDone(), "C7: the persist waits for its own add");
        secondAdd.complete(null);
        persist.get(10, TimeUnit.SECONDS);
        assertEquals(1, bookKeeper.getLedgerMap().get(newLedger).getLastAddConfirmed());
        byte[] second = lastCursorLedgerEntry(newLedger);
        assertEquals(new LedgerEntry(1, 0, 0), CursorRecords.ledgerEntry(second));
        assertEquals(Map.of("p", 7L), CursorRecords.ledgerEntryProperties(second), "C7: the flush carries p = 7");
    }

    private void theMetadataStoreFallbackWritesTheRangesHeldWhenItWrites() throws Exception {
        String name = "c7-fallback";
        ManagedLedger ledger = newFactory().open(name, config(false));
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 8);
        cursor.markDelete(p.get(0));
        CompletableFuture<Void> held3 = MockBookKeeperFaults.holdNextAdd(bookKeeper);
        CompletableFuture<Void> ack3 = delete(cursor, p.get(3));
        world.settle();
        MockBookKeeperFaults.holdNextAdd(bookKeeper); // never released
        CompletableFuture<Void> ack5 = delete(cursor, p.get(5));
        world.settle();
        assertEquals(0, MockBookKeeperFaults.untakenAddFaults(bookKeeper), "both acks' adds are in flight");
        held3.completeExceptionally(new BKException.BKBookieHandleNotAvailableException());
        ack3.get(10, TimeUnit.SECONDS); // acknowledged through the fallback
        byte[] record = cursorRecordBytes(name);
        assertEquals(new StoreRecord(-1, 0), CursorRecords.metadataRecord(record), "the fallback wrote the record");
        assertEquals(List.of(3L, 5L), CursorRecords.metadataRangeEnds(record),
                "C7: the ranges held when the fallback writes, e5 (acknowledged after e3's persist was asked) too");
        assertFalse(ack5.isDone(), "e5's own persist is still in flight");
    }

    /**
     * P1's mechanism, on the release's own PositionInfo parser (the one a walking-back recovery would call on
     * a torn first chunk): every prefix of a real cursor-ledger entry that ends on a top-level field boundary
     * after fields 1 and 2 parses as a well-formed state with the same mark-delete position and fewer ranges;
     * a prefix cut inside a field does not parse. No release writes chunks, so no release meets such a prefix.
     */
    @Test
    void aPrefixEndingOnAFieldBoundaryParsesAsAStateWithFewerRanges() throws Exception {
        ManagedLedger ledger = newFactory().open(LEDGER, config(false));
        ManagedCursorImpl cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        List<Position> p = addEntries(ledger, 8);
        cursor.markDelete(p.get(0));
        cursor.delete(p.get(3));
        cursor.delete(p.get(5)); // the entry: fields 1, 2, then two field-3 ranges
        byte[] whole = lastCursorLedgerEntry(cursor.getCursorLedger());

        List<Integer> boundaries = topLevelFieldEnds(whole);
        assertEquals(4, boundaries.size(), "ledgerId, entryId, two ranges");
        for (int field = 1; field < boundaries.size(); field++) {
            int cut = boundaries.get(field);
            LedgerEntry prefix = CursorRecords.ledgerEntry(java.util.Arrays.copyOf(whole, cut));
            assertEquals(new LedgerEntry(0, field - 1, 0), prefix, "the prefix of " + cut + " bytes");
        }
        int inside = boundaries.get(2) + 1; // inside the second range
        boolean parsed;
        try {
            CursorRecords.ledgerEntry(java.util.Arrays.copyOf(whole, inside));
            parsed = true;
        } catch (Exception e) {
            parsed = false;
        }
        assertFalse(parsed, "a cut inside a field is not a state");
    }
}
