package org.apache.bookkeeper.mledger.impl.cache;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Counters;
import ledgerspec.protocol.Loop;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;
import ledgerspec.world.World;
import org.apache.bookkeeper.client.LayerBookKeeper;
import org.apache.bookkeeper.common.util.OrderedExecutor;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedCursorImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryMBeanImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;
import org.apache.commons.lang3.tuple.Pair;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;

/**
 * {@code cache-managed-ledger-4.2.4}: the managed-ledger layer of managed-ledger 4.2.4, judged against
 * {@code pulsar-master} with the capability {@code managed_ledger}.
 *
 * <p>Real: {@link ManagedLedgerFactoryImpl} (its {@link RangeEntryCacheManagerImpl} and MBean), one
 * {@link ManagedLedgerImpl} per model ledger opened through it (its {@code OpAddEntry}, active-cursor
 * container, {@code invalidateEntriesUpToSlowestReaderPosition}, close), {@link ManagedCursorImpl} for the
 * cursors, over Pulsar's {@code PulsarMockBookKeeper} and pulsar-metadata's {@code memory:} store. The
 * factory's cache-eviction executor is replaced by a manual one (its periodic {@code doCacheEviction}
 * never fires): what an insert's size trigger submits waits for {@code evict_size}. Every other executor (the
 * mock bookie's, the metadata store's, the factory's scheduler that runs each managed ledger) is one counted
 * thread, {@link World}, and after every step it runs until nothing is left (see {@link #settle()}), so the
 * invalidation a cursor move submits is the step's, in one order whatever the machine's load.
 */
public final class ManagedLedgerHarness extends MasterTarget {
    private static final List<String> CAPABILITIES = capabilities();
    private static final Field EVICTION_EXECUTOR = Reflect.field(ManagedLedgerFactoryImpl.class,
            "cacheEvictionExecutor");
    private static final Field ML_CACHE = Reflect.field(ManagedLedgerImpl.class, "entryCache");

    private static final boolean SET_CONFIG = "1".equals(System.getenv("LEDGERSPEC_ML_SETCONFIG"));

    private OrderedExecutor bookieExecutor;
    private World world;
    private LayerBookKeeper bookKeeper;
    private MetadataStoreExtended store;
    private ManagedLedgerFactoryImpl factory;
    private ManagedLedgerFactoryMBeanImpl mbean;
    private RangeEntryCacheManagerImpl manager;
    private final ManualExecutor evictionExecutor = new ManualExecutor();
    private final ScheduledExecutorService manualEviction = evictionExecutor.as(ScheduledExecutorService.class);
    private final TreeMap<Long, LayerLedger> ledgers = new TreeMap<>();
    private final LayerReads reads = new LayerReads(this);
    private final Counters counters = new Counters();
    private final Removals removals = new Removals();
    private boolean trackReads;

    private static List<String> capabilities() {
        List<String> claimed = new ArrayList<>(List.of("managed_ledger", "cursors", "configure", "get_range",
                "replay_increment", "observe_counts", "observe_timestamps", "observe_copies", "observe_evictions",
                "observe_hit_bytes"));
        claimed.addAll(REMOVALS);
        claimed.addAll(QUEUE_OBSERVATIONS);
        return List.copyOf(claimed);
    }

    public static void main(String[] args) throws IOException {
        ManagedLedgerHarness harness = new ManagedLedgerHarness();
        try {
            Loop.run(harness);
        } finally {
            harness.teardown();
        }
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("cache-managed-ledger-4.2.4", "managed-ledger 4.2.4", PROFILES, CAPABILITIES, HOMEPAGE);
    }

    @Override
    public void configure(CacheConfig config) {
        requireShippedTrigger(config);
        teardown();
        reset(config);
        trackReads = config.trackReads;
        evictionExecutor.clear();
        reads.reset();
        counters.removedSize = counters.removedTtl = counters.removedInvalidate = counters.removedClear = 0;
        ManagedLedgerFactoryConfig factoryConfig = factoryConfig(config);
        factoryConfig.setCacheEvictionIntervalMs(TimeUnit.DAYS.toMillis(1)); // replaced below before it could fire
        factoryConfig.setCursorPositionFlushSeconds(1_000_000);
        factoryConfig.setNumManagedLedgerSchedulerThreads(1);
        try {
            world = new World();
            bookieExecutor = OrderedExecutor.newBuilder().numThreads(1).name("mock-bookkeeper").build();
            world.captureOrdered(bookieExecutor);
            bookKeeper = new LayerBookKeeper(bookieExecutor);
            world.capture(bookKeeper);
            store = MetadataStoreExtended.create("memory:" + UUID.randomUUID(), MetadataStoreConfig.builder().build());
            world.capture(store);
            factory = new ManagedLedgerFactoryImpl(store, bookKeeper, factoryConfig);
            if (!world.captureOrdered(factory.getScheduledExecutor())) {
                throw new IllegalStateException("the factory's scheduler was captured already");
            }
        } catch (Exception error) {
            throw new IllegalStateException("building the managed-ledger factory", error);
        }
        ScheduledExecutorService real = Reflect.get(EVICTION_EXECUTOR, factory);
        real.shutdownNow(); // drops the periodic doCacheEviction; evictions run when the protocol says
        try {
            EVICTION_EXECUTOR.set(factory, manualEviction);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
        mbean = factory.getMbean();
        manager = (RangeEntryCacheManagerImpl) factory.getEntryCacheManager();
        removals.reset();
    }

    /** Close what the last configuration built (the next one gets fresh bookies, store and factory). */
    void teardown() {
        copies.reset();
        ledgers.clear();
        try {
            if (factory != null) {
                factory.shutdown();
            }
            if (bookKeeper != null) {
                bookKeeper.shutdown();
            }
            if (store != null) {
                store.close();
            }
        } catch (Exception ignored) {
            // the next configuration builds new ones
        }
        if (bookieExecutor != null) {
            bookieExecutor.shutdownNow();
        }
        if (world != null) {
            world.end();
        }
        world = null;
        factory = null;
        bookKeeper = null;
        store = null;
        bookieExecutor = null;
    }

    private ManagedLedgerConfig ledgerConfig() {
        ManagedLedgerConfig mlConfig = new ManagedLedgerConfig();
        mlConfig.setCacheEvictionByExpectedReadCount(trackReads);
        mlConfig.setMaxEntriesPerLedger(1_000_000);
        mlConfig.setMaxSizePerLedgerMb(1 << 20); // no rollover by size (pulsar-defaults' entries are 40 MiB)
        mlConfig.setMaximumRolloverTime(365, TimeUnit.DAYS);
        mlConfig.setRetentionTime(-1, TimeUnit.MINUTES);
        mlConfig.setRetentionSizeInMB(-1);
        return mlConfig;
    }

    /**
     * The model ledger's managed ledger, opened through the factory if it is not open: a reopening starts a
     * new BookKeeper ledger, whose entries continue the model's numbering. The cursors a reopening recovers
     * from the store come back active (ManagedLedgerImpl.initializeCursors calls setActive); the model's
     * close made them go, so they are deactivated while the new cache is still empty.
     */
    private LayerLedger open(long id) {
        LayerLedger ledger = ledgers.computeIfAbsent(id, LayerLedger::new);
        if (ledger.ml != null) {
            return ledger;
        }
        try {
            ledger.ml = (ManagedLedgerImpl) factory.open("ledger-" + id, ledgerConfig());
        } catch (Exception error) {
            throw new IllegalStateException("opening managed ledger " + id, error);
        }
        ledger.segments.add(new long[] {ledger.appended, ledger.ml.getLedgersInfo().lastKey()});
        ledger.cursors.clear();
        for (ManagedCursor cursor : ledger.ml.getCursors()) {
            ledger.cursors.put(cursor.getName(), (ManagedCursorImpl) cursor);
            cursor.setInactive();
        }
        settle();
        return ledger;
    }

    EntryCache cacheOf(long id) {
        return Reflect.get(ML_CACHE, open(id).ml);
    }

    @Override
    public Object perform(Op op) {
        tick(op.now());
        String kind = op.kind();
        long id = kind.equals("release") || kind.equals("replay_increment") ? -1 : op.num("ledger", -1);
        Object result = switch (kind) {
            case "configure" -> reconfigure(op.changes());
            case "insert" -> insert(id, op.num("entry"), op.num("size"), op.num("expected_reads", 0));
            case "get" -> reads.read(open(id), op.num("entry"), op.num("entry")).get(0);
            case "get_range" -> {
                if (op.num("first") > op.num("last")) {
                    throw new NotAllowed("get_range needs first <= last");
                }
                yield reads.read(open(id), op.num("first"), op.num("last"));
            }
            case "release" -> {
                copies.release(op.num("copy"));
                yield null;
            }
            case "replay_increment" -> {
                replayIncrement(op.num("copy"));
                yield null;
            }
            case "invalidate_before" -> {
                cacheOf(id).invalidateEntries(open(id).position(op.num("entry")));
                yield null;
            }
            case "invalidate_ledger" -> {
                EntryCache cache = cacheOf(id);
                for (long[] segment : open(id).segments) {
                    cache.invalidateAllEntries(segment[1]);
                }
                yield null;
            }
            case "clear" -> {
                manager.clear();
                yield null;
            }
            case "evict_timestamp" -> {
                handler().invalidateEntriesBeforeTimestampNanos(clock.stamp(now() - config.ttl));
                yield null;
            }
            case "evict_size" -> {
                if (evictionExecutor.isEmpty()) {
                    evictionExecutor.add(() -> Reflect.call(EVICT_TO_WATERMARK, manager));
                }
                evictionExecutor.runAll("cache-managed-ledger-4.2.4");
                yield null;
            }
            case "evict_bytes" -> freed(refusedUnlessPositive(() -> handler().evictEntries(op.num("bytes"))));
            case "evict_before" -> {
                Pair<Integer, Long> freed = removalQueue().evictLEntriesBeforeTimestamp(clock.stamp(op.num("cutoff")));
                manager.entriesRemoved(freed.getRight(), freed.getLeft());
                yield freed(freed);
            }
            case "remove_range" -> removeRange(id, op.num("first"), op.num("last"), op.bool("inclusive"));
            case "cursor_add", "cursor_remove", "cursor_seek", "cursor_count" -> LayerCursors.cursor(this, op);
            case "append" -> append(id, op.num("entry"), op.num("size"));
            case "cursor_read" -> LayerCursors.read(this, open(id), op.str("cursor"), op.num("last"));
            case "ledger_close" -> {
                close(id);
                yield null;
            }
            default -> throw new NotAllowed(kind + " is not supported by cache-managed-ledger-4.2.4");
        };
        settle();
        stampRequeued(rangeCaches());
        removals.count(kind, mbean.getCacheEvictedEntriesCount(), counters);
        return result;
    }

    LayerLedger ledger(long id) {
        return open(id);
    }

    Copies<EntryImpl> copyBook() {
        return copies;
    }

    /** Whether the model position is cached now (a wrapper in the ledger's real RangeCache). */
    boolean cached(LayerLedger ledger, long entry) {
        EntryCache cache = Reflect.get(ML_CACHE, ledger.ml);
        return cache instanceof RangeEntryCacheImpl && wrappers(rangeCache(cache)).containsKey(ledger.position(entry));
    }

    /** The model entries of the ledger that are cached now. */
    Set<Long> cachedEntries(LayerLedger ledger) {
        Set<Long> found = new HashSet<>();
        EntryCache cache = Reflect.get(ML_CACHE, ledger.ml);
        if (cache instanceof RangeEntryCacheImpl) {
            for (Position position : wrappers(rangeCache(cache)).keySet()) {
                found.add(ledger.entry(position));
            }
        }
        return found;
    }

    private Object reconfigure(Map<String, Object> changes) {
        config = config.with(changes, false);
        Sizes.update(manager, changes, config);
        if (changes.get("max_requeue") != null) {
            manager.updateCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes((int) config.maxRequeue);
        }
        if (changes.get("extend_ttl") != null) {
            manager.updateCacheEvictionExtendTTLOfRecentlyAccessed(config.extendTtl);
        }
        if (changes.get("track_reads") != null && config.trackReads != trackReads) {
            // Managed ledgers opened from now on are constructed with the new flag. An open one keeps the flag
            // it was opened with: ManagedLedgerImpl's constructor picks the active-cursor container by it
            // (ActiveManagedCursorContainerImpl or ManagedCursorContainerImpl), and the other container's
            // methods throw UnsupportedOperationException (cursorUpdated; getNumberOfCursorsAtSamePositionOrBefore).
            // LEDGERSPEC_ML_SETCONFIG=1 hands open ledgers the flag with ManagedLedgerImpl.setConfig instead, to
            // show those exceptions (README.md, "cache-managed-ledger-4.2.4").
            trackReads = config.trackReads;
            if (SET_CONFIG) {
                for (LayerLedger ledger : ledgers.values()) {
                    if (ledger.ml != null) {
                        ledger.ml.setConfig(ledgerConfig());
                    }
                }
            }
        }
        return null;
    }

    /**
     * {@code ManagedLedgerImpl.addEntry} of {@code size} bytes: the add goes through the mock bookie and
     * {@code OpAddEntry}, which inserts into the cache iff {@code shouldCacheAddedEntry()}. The result is
     * whether the position is cached after the add and was not before (the insert's own boolean is dropped
     * by OpAddEntry).
     */
    private Object append(long id, long entry, long size) {
        LayerLedger ledger = open(id);
        if (size <= 0 || size > Integer.MAX_VALUE || entry < 0 || (ledger.appended > 0 && entry != ledger.appended)) {
            throw new NotAllowed("append needs size > 0 and the ledger's next entry " + ledger.appended + ", got entry "
                    + entry + " size " + size);
        }
        if (entry != ledger.appended) {
            // the model's first append may be at any entry: the managed ledger's first entry 0 is that entry
            if (ledger.segments.size() != 1 || !cachedEntries(ledger).isEmpty()) {
                throw new IllegalStateException("cache-managed-ledger-4.2.4: a first append at entry " + entry
                        + " after the ledger was reopened or with entries of it cached");
            }
            Map<String, Long> at = new TreeMap<>();
            ledger.cursors.forEach((name, cursor) -> at.put(name, ledger.entry(cursor.getReadPosition())));
            ledger.segments.get(0)[0] = entry;
            ledger.appended = entry;
            // the cursors keep their model positions: a seek each, which nothing observes (the ledger's cache is
            // empty, so invalidateEntriesUpToSlowestReaderPosition returns at once)
            at.forEach((name, model) -> ledger.cursors.get(name).seek(ledger.position(model), true));
            settle();
        }
        boolean before = cached(ledger, entry);
        Position added;
        try {
            added = ledger.ml.addEntry(new byte[(int) size]);
        } catch (Exception error) {
            throw new IllegalStateException("addEntry on ledger " + id, error);
        }
        ledger.appended = entry + 1;
        settle();
        if (ledger.entry(added) < 0 && added.getEntryId() == 0) { // the managed ledger rolled over to a new ledger
            ledger.segments.add(new long[] {entry, added.getLedgerId()});
        }
        if (ledger.entry(added) != entry) {
            throw new IllegalStateException("addEntry wrote " + added + ", not model entry " + entry);
        }
        return !before && cached(ledger, entry);
    }

    /** {@code ManagedLedgerImpl.close()}: its cursors close and the factory removes its cache from the manager. */
    private void close(long id) {
        LayerLedger ledger = ledgers.get(id);
        if (ledger == null || ledger.ml == null) {
            return;
        }
        try {
            ledger.ml.close();
        } catch (Exception error) {
            throw new IllegalStateException("closing managed ledger " + id, error);
        }
        ledger.ml = null;
        ledger.cursors.clear();
    }

    /** {@code OpAddEntry}'s tailing entry with its count, inserted into the ledger's cache, then released. */
    private boolean insert(long id, long entry, long size, long expectedReads) {
        Position at = open(id).position(entry);
        EntryImpl tailing = tailingEntry(at.getLedgerId(), at.getEntryId(), size, expectedReads);
        try {
            return cacheOf(id).insert(tailing);
        } finally {
            tailing.release();
        }
    }

    private List<Long> removeRange(long id, long first, long last, boolean inclusive) {
        if (first > last) {
            throw new NotAllowed("remove_range needs first <= last, got " + first + " > " + last);
        }
        EntryCache cache = cacheOf(id);
        if (!(cache instanceof RangeEntryCacheImpl)) {
            return List.of(0L, 0L);
        }
        LayerLedger ledger = open(id);
        Pair<Integer, Long> freed = rangeCache(cache).removeRange(ledger.position(first), ledger.position(last),
                inclusive);
        manager.entriesRemoved(freed.getRight(), freed.getLeft());
        return freed(freed);
    }

    private RangeEntryCacheManagerEvictionHandler handler() {
        return Reflect.get(EVICTION_HANDLER, manager);
    }

    private RangeCacheRemovalQueue removalQueue() {
        return Reflect.get(HANDLER_QUEUE, handler());
    }

    private List<RangeCache> rangeCaches() {
        List<RangeCache> found = new ArrayList<>();
        for (LayerLedger ledger : ledgers.values()) {
            if (ledger.ml != null && Reflect.get(ML_CACHE, ledger.ml) instanceof RangeEntryCacheImpl cache) {
                found.add(rangeCache(cache));
            }
        }
        return found;
    }

    /** Run what the step set going (bookie, metadata store, managed ledgers) until nothing is left: {@link World}. */
    void settle() {
        world.settle();
    }

    /** The future's value once everything has run; not done by then is the harness's error. */
    <T> T await(CompletableFuture<T> future, String what) {
        return world.await(future, what);
    }

    /**
     * Entries of every open managed ledger's {@code RangeEntryCacheImpl} (its {@code RangeCache} wrappers),
     * at their model positions; size, hits, misses and inserts from the real manager and factory MBean.
     */
    @Override
    public Map<String, Object> observe() {
        Observation observation = new Observation();
        for (LayerLedger ledger : ledgers.values()) {
            if (ledger.ml == null || !(Reflect.get(ML_CACHE, ledger.ml) instanceof RangeEntryCacheImpl cache)) {
                continue;
            }
            for (Map.Entry<Position, RangeCacheEntryWrapper> mapped : wrappers(rangeCache(cache)).entrySet()) {
                RangeCacheEntryWrapper wrapper = mapped.getValue();
                org.apache.bookkeeper.mledger.ReferenceCountedEntry value = wrapper.value;
                Long count = value == null || value.getReadCountHandler() == null
                        ? null : (long) value.getReadCountHandler().getExpectedReadCount();
                observation.entry(ledger.id, ledger.entry(mapped.getKey()), wrapper.size, count,
                        clock.logical(wrapper.timestampNanos), (long) wrapper.requeueCount, wrapper.accessed);
            }
        }
        observeCopies(observation);
        observeQueue(removalQueue(), rangeCaches(), observation);
        counters.inserted = mbean.getCacheInsertedEntriesCount();
        counters.hits = mbean.getCacheHitsTotal();
        counters.misses = mbean.getCacheMissesTotal() + reads.unreadableMisses();
        counters.evictions = mbean.getNumberOfCacheEvictionsTotal(); // recordCacheEviction(): a run with bytes to free
        counters.hitBytes = mbean.getCacheHitsBytesTotal();
        return observation.build(manager.getSize(), counters);
    }
}
