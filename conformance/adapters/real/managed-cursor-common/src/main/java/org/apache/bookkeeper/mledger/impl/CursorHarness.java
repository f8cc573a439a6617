package org.apache.bookkeeper.mledger.impl;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import ledgerspec.protocol.Json;
import ledgerspec.protocol.Lines;
import ledgerspec.world.World;
import org.apache.bookkeeper.client.BKException;
import org.apache.bookkeeper.client.HoldingBookKeeper;
import org.apache.bookkeeper.client.LedgerHandle;
import org.apache.bookkeeper.common.util.OrderedExecutor;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.MetadataStoreException;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.apache.pulsar.metadata.impl.FaultInjectionMetadataStore;

/**
 * The released ManagedCursorImpl behind the cursor-state process protocol v1 (conformance/protocol/cursor-state.md).
 *
 * <p>Real ManagedLedgerFactoryImpl, ManagedLedgerImpl and ManagedCursorImpl over {@link HoldingBookKeeper} (Pulsar's
 * PulsarMockBookKeeper, every cursor-ledger add held until the runner confirms or fails it) and pulsar-metadata's
 * in-memory store behind a FaultInjectionMetadataStore per broker. A crash abandons the broker (its factory and
 * store wrapper) and recovery is a second factory on the same bookies and store, as Pulsar's ManagedCursorTest does.
 * The spec's ledgers 1 and 2 are the managed ledger's first two ledgers, of 67 entries each (the spec acks six
 * entries from 0, 30 or 60, its search's FIRST_ENTRIES; the last keeps every run inside its ledger, as the spec's
 * ranges are). Acks and mark-deletes change the
 * cursor only: a mark-delete rate limiter whose one permit is spent defers their persist (asyncDelete and
 * asyncMarkDelete end there when it refuses), and {@code persist} is the persist they would make,
 * internalAsyncMarkDelete(markDeletePosition, {p: value}). Compiled against managed-ledger 4.0.8 and 4.2.4.
 */
public final class CursorHarness {
    private static final String LEDGER = "cursor-state";
    private static final String CURSOR = "c";
    private static final String CURSOR_PATH = "/managed-ledgers/" + LEDGER + "/" + CURSOR;
    private static final int ENTRIES_PER_LEDGER = 67;
    private static final int FRAME_TOO_LARGE = BKException.Code.WriteException;

    private final String release;
    private World world;
    private OrderedExecutor executor;
    private HoldingBookKeeper bookKeeper;
    private MetadataStoreExtended base;
    private CountingStore store;
    private final List<ManagedLedgerFactoryImpl> factories = new ArrayList<>();
    private ManagedLedgerConfig config;
    private ManagedLedgerImpl ledger;
    private ManagedCursorImpl cursor;
    private final long[] ledgerIds = new long[3];
    private long maxEntrySize;
    private int batchSize;
    private int persists;
    private final List<List<Object>> completions = new ArrayList<>();

    private CursorHarness(String release) {
        this.release = release;
    }

    public static void main(String[] args) throws Exception {
        CursorHarness harness = new CursorHarness(args.length > 0 ? args[0] : "unknown"); // the loop: every harness's
        Lines.run("cursor-state-managed-cursor-" + harness.release, (cmd, request) -> harness.handle(request), harness::teardown);
    }

    Object handle(Map<String, Object> request) throws Exception {
        Object cmd = request.get("cmd");
        if ("start".equals(cmd)) {
            Map<String, Object> implementation = new LinkedHashMap<>();
            implementation.put("name", "cursor-state-managed-cursor-" + release);
            implementation.put("version", release);
            implementation.put("language", "java");
            implementation.put("system", "cursor-state");
            implementation.put("profiles", List.of("pulsar-master"));
            // not rollover (periodicRollover's write completes no callback the protocol can number), not zlib
            // (no release compresses the cursor ledger's entries)
            implementation.put("capabilities", List.of("ack_index", "fail_add", "fail_meta", "unreadable"));
            return Map.of("version", 1L, "implementation", implementation);
        }
        if ("configure".equals(cmd)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> c = (Map<String, Object>) request.get("config");
            configure(c);
            return Map.of();
        }
        if ("apply".equals(cmd)) {
            List<Object> results = new ArrayList<>();
            for (Object op : (List<?>) request.get("ops")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> o = (Map<String, Object>) op;
                results.add(apply(o));
            }
            return Map.of("results", results);
        }
        if ("stop".equals(cmd)) {
            return Map.of();
        }
        throw new IllegalArgumentException("unknown command " + cmd);
    }

    private static long number(Map<String, Object> map, String key) {
        Object value = map.get(key);
        if (!(value instanceof Long)) {
            throw new IllegalArgumentException(key + " must be an integer, got " + value);
        }
        return (Long) value;
    }

    private void configure(Map<String, Object> c) throws Exception {
        teardown();
        if (!"none".equals(c.get("compression"))) {
            throw new IllegalArgumentException("compression " + c.get("compression") + ": no release compresses the cursor ledger");
        }
        maxEntrySize = number(c, "max_entry_size");
        batchSize = (int) number(c, "batch_size");
        config = new ManagedLedgerConfig();
        config.setMaxEntriesPerLedger(ENTRIES_PER_LEDGER);
        config.setRetentionTime(-1, TimeUnit.MINUTES);
        config.setRetentionSizeInMB(-1);
        config.setMaxUnackedRangesToPersist((int) number(c, "max_ranges"));
        config.setPersistIndividualAckAsLongArray(Boolean.TRUE.equals(c.get("long_array")));
        config.setUnackedRangesOpenCacheSetEnabled(true);
        config.setDeletionAtBatchIndexLevelEnabled(true);
        config.setThrottleMarkDelete(1e-6); // one permit, spent below: acks and mark-deletes do not persist
        world = new World();
        executor = OrderedExecutor.newBuilder().numThreads(1).name("mock-bookkeeper").build();
        world.captureOrdered(executor);
        bookKeeper = new HoldingBookKeeper(executor);
        world.capture(bookKeeper);
        base = MetadataStoreExtended.create("memory:" + UUID.randomUUID(), MetadataStoreConfig.builder().build());
        world.capture(base);
        ledger = (ManagedLedgerImpl) newFactory().open(LEDGER, config);
        cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        spendPermit();
        for (int i = 0; i < 2 * ENTRIES_PER_LEDGER; i++) {
            ledger.addEntry(("entry-" + i).getBytes(StandardCharsets.UTF_8));
        }
        int i = 1;
        for (Long id : ledger.getLedgersInfo().keySet()) {
            if (i < 3) {
                ledgerIds[i++] = id;
            }
        }
        if (i < 3 || ledger.getLedgersInfo().get(ledgerIds[1]) == null) {
            throw new IllegalStateException("the managed ledger did not roll over to a second ledger");
        }
        bookKeeper.hold();
        persists = 0;
        completions.clear();
        settle();
    }

    private ManagedLedgerFactoryImpl newFactory() throws Exception {
        store = new CountingStore(base); // one per broker: a dead broker's failures stay with it
        world.capture(store);
        ManagedLedgerFactoryConfig factoryConfig = new ManagedLedgerFactoryConfig();
        factoryConfig.setCursorPositionFlushSeconds(1_000_000); // no background flush of the deferred persists
        ManagedLedgerFactoryImpl factory = new ManagedLedgerFactoryImpl(store, bookKeeper, factoryConfig);
        // the broker's scheduler (its managed ledgers' executors and its metadata callbacks) and cache eviction
        if (world.captureWith(factory, "store", "entryCacheManager") == 0) {
            throw new IllegalStateException("the managed-ledger factory has no executor the harness can capture");
        }
        factories.add(factory);
        return factory;
    }

    private void spendPermit() throws Exception {
        Field field = ManagedCursorImpl.class.getDeclaredField("markDeleteLimiter");
        field.setAccessible(true);
        com.google.common.util.concurrent.RateLimiter limiter = (com.google.common.util.concurrent.RateLimiter) field.get(cursor);
        if (limiter == null || !limiter.tryAcquire() || limiter.tryAcquire()) {
            throw new IllegalStateException("the mark-delete rate limiter did not defer persists");
        }
    }

    void teardown() {
        for (ManagedLedgerFactoryImpl factory : factories) {
            try {
                factory.shutdownAsync();
            } catch (Exception | Error ignored) { // a crashed broker's factory may hold a fenced ledger
            }
        }
        factories.clear();
        try {
            if (bookKeeper != null) {
                bookKeeper.shutdown();
            }
            if (base != null) {
                base.close();
            }
        } catch (Exception ignored) {
            // the next example gets fresh ones
        }
        if (executor != null) {
            executor.shutdownNow();
        }
        if (world != null) {
            world.end();
        }
        world = null;
        bookKeeper = null;
        base = null;
        executor = null;
    }

    private Position real(Map<String, Object> op) {
        long l = number(op, "ledger");
        if (l < 1 || l > 2) {
            throw new IllegalArgumentException("ledger " + l + ": this harness has ledgers 1 and 2");
        }
        long e = number(op, "entry");
        if (e < 0 || e >= ENTRIES_PER_LEDGER - 1) {
            throw new IllegalArgumentException("entry " + e + ": this harness has entries 0-" + (ENTRIES_PER_LEDGER - 2));
        }
        return PositionFactory.create(ledgerIds[(int) l], e);
    }

    private List<Long> spec(Position position) {
        for (int l = 1; l < 3; l++) {
            if (ledgerIds[l] == position.getLedgerId()) {
                return List.of((long) l, position.getEntryId());
            }
        }
        throw new IllegalStateException("position " + position + " is in no ledger the spec knows");
    }

    private Object apply(Map<String, Object> op) throws Exception {
        String kind = String.valueOf(op.get("op"));
        int before = completions.size();
        Object result = switch (kind) {
            case "ack" -> {
                cursor.delete(real(op));
                yield null;
            }
            case "ack_index" -> {
                Position p = real(op);
                BitSet unacked = new BitSet();
                unacked.set(0, batchSize);
                unacked.clear((int) number(op, "index"));
                cursor.delete(AckSetStateUtil.createPositionWithAckSet(p.getLedgerId(), p.getEntryId(),
                        unacked.toLongArray()));
                yield null;
            }
            case "mark_delete" -> {
                Position p = real(op);
                if (p.compareTo(cursor.getMarkDeletedPosition()) > 0) { // at or before it: a no-op in the spec
                    cursor.markDelete(p);
                }
                yield null;
            }
            case "persist" -> persist(number(op, "value"));
            case "confirm" -> {
                confirm();
                yield completed(before);
            }
            case "fail_add" -> {
                failAdds(BKException.Code.BookieHandleNotAvailableException);
                yield completed(before);
            }
            case "fail_meta" -> {
                store.failConditional(new MetadataStoreException("injected"), (operation, path) ->
                        operation == FaultInjectionMetadataStore.OperationType.PUT && path.equals(CURSOR_PATH));
                yield null;
            }
            case "crash" -> {
                crash(number(op, "keep"));
                yield null;
            }
            case "unreadable" -> {
                unreadable();
                yield null;
            }
            case "recover" -> recover();
            default -> throw new IllegalArgumentException("unsupported operation " + kind);
        };
        settle();
        if (TRACE) {
            trace(kind, result);
        }
        if (!"confirm".equals(kind) && !"fail_add".equals(kind) && completions.size() != before) {
            throw new IllegalStateException(kind + " completed callbacks " + completions.subList(before, completions.size()));
        }
        return result;
    }

    /** With LEDGERSPEC_TRACE set, each step's effect on stderr: for a person reading a counterexample. */
    private static final boolean TRACE = System.getenv("LEDGERSPEC_TRACE") != null;

    private void trace(String kind, Object result) {
        StringBuilder held = new StringBuilder();
        synchronized (bookKeeper) {
            for (HoldingBookKeeper.Add add : bookKeeper.held) {
                held.append(' ').append(add.handle().getId()).append(':').append(add.data().length).append('B');
            }
        }
        String record;
        try {
            record = String.valueOf(CursorRecord.cursorsLedgerId(world.await(base.get(CURSOR_PATH), "the cursor's record").orElseThrow().getValue()));
        } catch (Exception e) {
            record = e.toString();
        }
        System.err.println("trace: " + kind + " -> " + Json.write(result) + "; cursor " + (cursor == null ? "-" : cursor.getState()
                + " ledger " + cursor.getCursorLedger()) + "; held [" + held + " ]; record names " + record
                + "; completions " + Json.write(completions));
    }

    private List<Object> completed(int before) {
        settle();
        return new ArrayList<>(completions.subList(before, completions.size()));
    }

    private Object persist(long value) throws Exception {
        long n = ++persists;
        AsyncCallbacks.MarkDeleteCallback callback = new AsyncCallbacks.MarkDeleteCallback() {
            @Override
            public void markDeleteComplete(Object ctx) {
                record(n, true);
            }

            @Override
            public void markDeleteFailed(ManagedLedgerException exception, Object ctx) {
                record(n, false);
            }
        };
        Map<String, Long> properties = Map.of("p", value);
        Position position = cursor.getMarkDeletedPosition();
        for (Method method : ManagedCursorImpl.class.getDeclaredMethods()) {
            if (method.getName().equals("internalAsyncMarkDelete")) { // 4.2.4 adds a Runnable
                method.setAccessible(true);
                Object[] args = method.getParameterCount() == 4
                        ? new Object[] {position, properties, callback, null}
                        : new Object[] {position, properties, callback, null, null};
                method.invoke(cursor, args);
                return n;
            }
        }
        throw new IllegalStateException("no internalAsyncMarkDelete in this release");
    }

    private void record(long n, boolean ok) {
        synchronized (completions) {
            completions.add(List.of(n, ok));
        }
    }

    /**
     * The oldest add is confirmed. The first add to a new cursor ledger is createNewMetadataLedger's write of
     * lastMarkDeleteEntry; once it is in, the cursor switches the metadata-store pointer and flushes its pending
     * persists as one more add to that ledger, which a later Confirm confirms (the spec models both adds).
     */
    private void confirm() throws Exception {
        HoldingBookKeeper.Add add = oldest();
        if (add != null) {
            confirmOne(add);
        }
    }

    private HoldingBookKeeper.Add oldest() {
        synchronized (bookKeeper) {
            return bookKeeper.held.isEmpty() ? null : bookKeeper.held.get(0);
        }
    }

    /** Confirm the oldest add; false if BookKeeper refused it as over its frame size (then every add failed). */
    private boolean confirmOne(HoldingBookKeeper.Add add) throws Exception {
        if (add.data().length > maxEntrySize) {
            failAdds(FRAME_TOO_LARGE);
            return false;
        }
        synchronized (bookKeeper) {
            bookKeeper.held.remove(0);
        }
        world.await(bookKeeper.confirm(add), "the confirmed add");
        return true;
    }

    /** The oldest add fails, and with it every held add to its ledger, in order (its handle errs). */
    private void failAdds(int rc) {
        List<HoldingBookKeeper.Add> failed = new ArrayList<>();
        synchronized (bookKeeper) {
            if (bookKeeper.held.isEmpty()) {
                return;
            }
            LedgerHandle handle = bookKeeper.held.get(0).handle();
            for (HoldingBookKeeper.Add add : bookKeeper.held) {
                if (add.handle() == handle) {
                    failed.add(add);
                }
            }
            bookKeeper.held.removeAll(failed);
        }
        for (HoldingBookKeeper.Add add : failed) {
            bookKeeper.fail(add, rc);
            settle();
        }
    }

    private void crash(long keep) throws Exception {
        List<HoldingBookKeeper.Add> adds;
        synchronized (bookKeeper) {
            adds = new ArrayList<>(bookKeeper.held);
            bookKeeper.held.clear();
        }
        for (int i = 0; i < Math.min(keep, adds.size()); i++) {
            if (adds.get(i).data().length <= maxEntrySize) {
                world.await(bookKeeper.persistSilently(adds.get(i)), "the crash's durable add");
            }
        }
        // the broker is gone: its cursor gets no callback any more, so it writes nothing; recovery is a new one
        cursor = null;
        ledger = null;
    }

    private void unreadable() throws Exception {
        byte[] record = world.await(base.get(CURSOR_PATH), "the cursor's record").orElseThrow().getValue();
        long cursorLedger = CursorRecord.cursorsLedgerId(record);
        var handle = bookKeeper.getLedgerMap().get(cursorLedger);
        if (cursorLedger >= 0 && handle != null && handle.getLastAddConfirmed() >= 0) {
            bookKeeper.makeUnreadable(cursorLedger, handle.getLastAddConfirmed());
        }
    }

    private Object recover() throws Exception {
        try {
            ledger = (ManagedLedgerImpl) newFactory().open(LEDGER, config);
            cursor = (ManagedCursorImpl) ledger.openCursor(CURSOR);
        } catch (ManagedLedgerException e) {
            System.err.println("recovery failed: " + e);
            return "failed";
        }
        spendPermit();
        Position mark = cursor.getMarkDeletedPosition();
        List<Object> acked = new ArrayList<>();
        List<Object> batch = new ArrayList<>();
        for (int l = 1; l < 3; l++) {
            for (int e = 0; e < ENTRIES_PER_LEDGER - 1; e++) {
                Position p = PositionFactory.create(ledgerIds[l], e);
                if (p.compareTo(mark) <= 0) {
                    continue;
                }
                if (cursor.isMessageDeleted(p)) {
                    acked.add(List.of((long) l, (long) e));
                    continue;
                }
                long[] bits = cursor.getDeletedBatchIndexesAsLongArray(p);
                if (bits != null) {
                    List<Long> indexes = new ArrayList<>();
                    BitSet set = BitSet.valueOf(bits);
                    for (int i = set.nextSetBit(0); i >= 0 && i < batchSize; i = set.nextSetBit(i + 1)) {
                        indexes.add((long) i);
                    }
                    batch.add(List.of(List.of((long) l, (long) e), indexes));
                }
            }
        }
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("mark_delete", spec(mark));
        state.put("acked", acked);
        state.put("batch", batch);
        state.put("properties", new java.util.TreeMap<>(cursor.getProperties()));
        return state;
    }

    /**
     * Run what the last step set going (the cursor, BookKeeper, the store, a crashed broker's callbacks) until
     * nothing is left: {@link World} runs every one of their tasks, in order, on one thread.
     */
    private void settle() {
        world.settle();
        if (store.inFlight.get() != 0) {
            throw new IllegalStateException(store.inFlight.get() + " metadata-store operations are in flight with nothing left to run");
        }
    }
}
