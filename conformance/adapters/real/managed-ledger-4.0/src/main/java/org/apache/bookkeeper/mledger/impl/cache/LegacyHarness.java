package org.apache.bookkeeper.mledger.impl.cache;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.google.common.util.concurrent.MoreExecutors;
import io.netty.buffer.ByteBuf;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Counters;
import ledgerspec.protocol.Loop;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;
import ledgerspec.protocol.VirtualClock;
import org.apache.bookkeeper.common.util.OrderedScheduler;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryMBeanImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerMBeanImpl;
import org.apache.bookkeeper.mledger.util.RangeCache;
import org.apache.commons.lang3.tuple.Pair;

/**
 * {@code cache-entry-cache-manager-4.0.8}: the entry cache of managed-ledger 4.0.8, before the central removal queue
 * (apache/pulsar PR #24363), judged against {@code legacy}.
 *
 * <p>Real: {@link RangeEntryCacheManagerImpl} with its {@code hasSpaceInCache} (the size trigger on the
 * pre-insert size, the refusal at the maximum, one scheduled eviction at a time) and
 * {@link EntryCacheDefaultEvictionPolicy}; one {@link RangeEntryCacheImpl} per ledger made by
 * {@code getEntryCache} over the generic {@link RangeCache}; their insert, read path, invalidations,
 * clear and per-cache TTL walk ({@code invalidateEntriesBeforeTimestamp}, what
 * {@code ManagedLedgerImpl.doCacheEviction} calls for each ledger with a non-empty cache); the factory's
 * {@link ManagedLedgerFactoryMBeanImpl} for the counters. Mocked: the factory and the managed ledgers. The
 * factory's scheduled executor is manual: the eviction {@code hasSpaceInCache} schedules waits for
 * {@code evict_size}; with nothing scheduled, {@code evict_size} does nothing, as in the broker.
 */
public final class LegacyHarness implements Target {
    private static final List<String> CAPABILITIES = List.of("configure", "get_range", "replay_increment",
            "observe_timestamps", "observe_copies", "evict_before", "remove_range");
    private static final Field CACHE_ENTRIES = Reflect.field(RangeEntryCacheImpl.class, "entries");
    private static final Field RANGE_ENTRIES = Reflect.field(RangeCache.class, "entries");
    private static final Class<?> WRAPPER = Reflect.nested(RangeCache.class, "EntryWrapper");
    private static final Field WRAPPER_VALUE = Reflect.field(WRAPPER, "value");
    private static final Field WRAPPER_SIZE = Reflect.field(WRAPPER, "size");
    private static final Field TIMESTAMP = Reflect.field(EntryImpl.class, "timestamp");

    private final VirtualClock clock = new VirtualClock();
    private CacheConfig config;
    private long now;
    private ManagedLedgerFactoryMBeanImpl mbean;
    private ManagedLedgerFactoryImpl factory;
    private RangeEntryCacheManagerImpl manager;
    private final ManualExecutor scheduled = new ManualExecutor();
    private final TreeMap<Long, EntryCache> caches = new TreeMap<>();
    private final Copies<EntryImpl> copies = new Copies<>();
    private final Storage storage = new Storage();
    private final Payloads payloads = new Payloads();
    private final Counters counters = new Counters();
    private final Removals removals = new Removals();

    public static void main(String[] args) throws IOException {
        Loop.run(new LegacyHarness());
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("cache-entry-cache-manager-4.0.8", "managed-ledger 4.0.8", List.of("legacy"), CAPABILITIES,
                "https://github.com/apache/pulsar/tree/v4.0.8/managed-ledger");
    }

    @Override
    public void configure(CacheConfig config) {
        if (manager != null) {
            manager.clear();
        }
        if (config.trigger.doubleValue() != 0.98) {
            throw new NotAllowed("RangeEntryCacheManagerImpl hard-codes the trigger at 0.98 "
                    + "(evictionTriggerThresholdPercent); got trigger " + config.trigger);
        }
        this.config = config;
        now = 0;
        copies.reset();
        caches.clear();
        scheduled.clear();
        counters.removedSize = counters.removedTtl = counters.removedInvalidate = counters.removedClear = 0;
        removals.reset();
        ManagedLedgerFactoryConfig factoryConfig = new ManagedLedgerFactoryConfig();
        factoryConfig.setMaxCacheSize(config.maxSize);
        factoryConfig.setCacheEvictionWatermark(config.watermark.doubleValue());
        factory = mock(ManagedLedgerFactoryImpl.class);
        when(factory.getConfig()).thenReturn(factoryConfig);
        try {
            mbean = new ManagedLedgerFactoryMBeanImpl(factory);
        } catch (Exception error) {
            throw new IllegalStateException(error);
        }
        when(factory.getMbean()).thenReturn(mbean);
        OrderedScheduler executor = scheduled.as(OrderedScheduler.class); // not inside when(): Mockito
        when(factory.getScheduledExecutor()).thenReturn(executor);
        manager = new RangeEntryCacheManagerImpl(factory, mock(OrderedScheduler.class), OpenTelemetry.noop());
        when(factory.getEntryCacheManager()).thenReturn(manager);
    }

    private EntryCache cacheOf(long ledger) {
        return caches.computeIfAbsent(ledger, id -> {
            ManagedLedgerImpl ml = mock(ManagedLedgerImpl.class);
            when(ml.getName()).thenReturn("ledger-" + id);
            when(ml.getConfig()).thenReturn(new ManagedLedgerConfig());
            when(ml.getFactory()).thenReturn(factory);
            when(ml.getExecutor()).thenReturn(MoreExecutors.newDirectExecutorService());
            when(ml.getMbean()).thenReturn(mock(ManagedLedgerMBeanImpl.class));
            return manager.getEntryCache(ml);
        });
    }

    @Override
    public Object perform(Op op) {
        if (op.now() < now) {
            throw new NotAllowed("now must not go back: got " + op.now() + ", last accepted " + now);
        }
        clock.stamp(op.now());
        now = op.now();
        Object result = null;
        switch (op.kind()) {
            case "configure" -> reconfigure(op.changes());
            case "insert" -> result = insert(op.num("ledger"), op.num("entry"), op.num("size"));
            case "get" -> result = read(op.num("ledger"), op.num("entry"), op.num("entry")).get(0);
            case "get_range" -> {
                if (op.num("first") > op.num("last")) {
                    throw new NotAllowed("get_range needs first <= last");
                }
                result = read(op.num("ledger"), op.num("first"), op.num("last"));
            }
            case "release" -> copies.release(op.num("copy"));
            case "replay_increment" -> copies.get(op.num("copy")); // 4.0.8 entries carry no read count
            case "invalidate_before" -> cacheOf(op.num("ledger")).invalidateEntries(
                    PositionFactory.create(op.num("ledger"), op.num("entry")));
            case "invalidate_ledger" -> cacheOf(op.num("ledger")).invalidateAllEntries(op.num("ledger"));
            case "clear" -> manager.clear();
            case "evict_timestamp" -> {
                long maxTimestamp = clock.stamp(now - config.ttl);
                for (EntryCache cache : caches.values()) {
                    if (cache.getSize() > 0) { // ManagedLedgerImpl.doCacheEviction
                        cache.invalidateEntriesBeforeTimestamp(maxTimestamp);
                    }
                }
            }
            case "evict_size" -> scheduled.runAll("cache-entry-cache-manager-4.0.8");
            case "evict_before" -> result = evictBefore(clock.stamp(op.num("cutoff")));
            case "remove_range" -> result = removeRange(op.num("ledger"), op.num("first"), op.num("last"),
                    op.bool("inclusive"));
            default -> throw new NotAllowed(op.kind() + " is not supported by cache-entry-cache-manager-4.0.8");
        }
        removals.count(op.kind(), mbean.getCacheEvictedEntriesCount(), counters);
        return result;
    }

    /**
     * {@code invalidateEntriesBeforeTimestamp(cutoff)} of every cache, which returns nothing: its two calls
     * ({@code RangeCache.evictLEntriesBeforeTimestamp}, then {@code manager.entriesRemoved}), keeping the
     * {@code Pair<Integer, Long>} the first returns, summed over the caches.
     */
    private List<Long> evictBefore(long cutoff) {
        long entries = 0;
        long bytes = 0;
        for (EntryCache cache : caches.values()) {
            if (cache instanceof RangeEntryCacheImpl) {
                RangeCache<Position, EntryImpl> range = Reflect.get(CACHE_ENTRIES, cache);
                Pair<Integer, Long> freed = range.evictLEntriesBeforeTimestamp(cutoff);
                manager.entriesRemoved(freed.getRight(), freed.getLeft());
                entries += freed.getLeft();
                bytes += freed.getRight();
            }
        }
        return List.of(entries, bytes);
    }

    /**
     * {@code RangeCache.removeRange(first, last, lastInclusive)} of the ledger's cache, then
     * {@code manager.entriesRemoved}, as {@code RangeEntryCacheImpl.invalidateEntries} does after its own
     * (always exclusive) call. {@code EntryCacheDisabled} caches nothing: (0, 0).
     */
    private List<Long> removeRange(long ledger, long first, long last, boolean inclusive) {
        if (first > last) {
            throw new NotAllowed("remove_range needs first <= last, got " + first + " > " + last);
        }
        EntryCache cache = cacheOf(ledger);
        if (!(cache instanceof RangeEntryCacheImpl)) {
            return List.of(0L, 0L);
        }
        RangeCache<Position, EntryImpl> range = Reflect.get(CACHE_ENTRIES, cache);
        Pair<Integer, Long> freed = range.removeRange(PositionFactory.create(ledger, first),
                PositionFactory.create(ledger, last), inclusive);
        manager.entriesRemoved(freed.getRight(), freed.getLeft());
        return List.of((long) freed.getLeft(), freed.getRight());
    }

    private void reconfigure(Map<String, Object> changes) {
        config = config.with(changes, false);
        Sizes.update(manager, changes, config);
    }

    /** {@code OpAddEntry}: {@code EntryImpl.create(ledger, entry, data)}, inserted, then released. */
    private boolean insert(long ledger, long entry, long size) {
        ByteBuf payload = payloads.of(size);
        EntryImpl tailing = EntryImpl.create(ledger, entry, payload);
        payload.release();
        try {
            EntryCache cache = cacheOf(ledger);
            boolean inserted = cache.insert(tailing);
            if (inserted) {
                Object wrapper = mapped(cache).get(tailing.getPosition());
                Reflect.setLong(TIMESTAMP, Reflect.get(WRAPPER_VALUE, wrapper), clock.stamp(now));
            }
            return inserted;
        } finally {
            tailing.release();
        }
    }

    /** The public read path; hits are the cache's dispatch copies, entries read from storage are misses. */
    private List<Long> read(long ledger, long first, long last) {
        return Storage.hitsAndMisses(Storage.read(ledger + ":" + first + ".." + last, callback -> cacheOf(ledger)
                .asyncReadEntry(storage.handle(ledger), first, last, false, callback, null)), copies);
    }

    private static ConcurrentNavigableMap<Position, Object> mapped(EntryCache cache) {
        return Reflect.get(RANGE_ENTRIES, Reflect.get(CACHE_ENTRIES, cache));
    }

    @Override
    public Map<String, Object> observe() {
        Observation observation = new Observation();
        for (EntryCache cache : caches.values()) {
            if (!(cache instanceof RangeEntryCacheImpl)) {
                continue;
            }
            for (Map.Entry<Position, Object> entry : mapped(cache).entrySet()) {
                EntryImpl value = Reflect.get(WRAPPER_VALUE, entry.getValue());
                long size = Reflect.<Long>get(WRAPPER_SIZE, entry.getValue());
                observation.entry(entry.getKey().getLedgerId(), entry.getKey().getEntryId(), size, null,
                        value == null ? null : clock.logical(value.getTimestamp()));
            }
        }
        for (Long copy : copies.open().keySet()) {
            observation.copy(copy, null);
        }
        counters.inserted = mbean.getCacheInsertedEntriesCount();
        counters.hits = mbean.getCacheHitsTotal();
        counters.misses = mbean.getCacheMissesTotal();
        return observation.build(manager.getSize(), counters);
    }

}
