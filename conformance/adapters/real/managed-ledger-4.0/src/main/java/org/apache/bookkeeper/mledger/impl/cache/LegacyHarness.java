package org.apache.bookkeeper.mledger.impl.cache;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.google.common.util.concurrent.MoreExecutors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.atomic.AtomicReference;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Counters;
import ledgerspec.protocol.Loop;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;
import ledgerspec.protocol.VirtualClock;
import org.apache.bookkeeper.client.api.LedgerEntry;
import org.apache.bookkeeper.client.api.ReadHandle;
import org.apache.bookkeeper.client.impl.LedgerEntriesImpl;
import org.apache.bookkeeper.client.impl.LedgerEntryImpl;
import org.apache.bookkeeper.common.util.OrderedScheduler;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryMBeanImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerMBeanImpl;
import org.apache.bookkeeper.mledger.util.RangeCache;

/**
 * {@code pulsar-legacy}: the entry cache of managed-ledger 4.0.8, before the central removal queue
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
            "observe_timestamps", "observe_copies");
    private static final Field CACHE_ENTRIES = field(RangeEntryCacheImpl.class, "entries");
    private static final Field RANGE_ENTRIES = field(RangeCache.class, "entries");
    private static final Field WRAPPER_VALUE = field(wrapperClass(), "value");
    private static final Field WRAPPER_SIZE = field(wrapperClass(), "size");
    private static final Field TIMESTAMP = field(EntryImpl.class, "timestamp");
    private static final byte[] FROM_STORAGE = new byte[1];

    private final VirtualClock clock = new VirtualClock();
    private CacheConfig config;
    private long now;
    private ManagedLedgerFactoryMBeanImpl mbean;
    private ManagedLedgerFactoryImpl factory;
    private RangeEntryCacheManagerImpl manager;
    private final ArrayDeque<Runnable> scheduled = new ArrayDeque<>();
    private final TreeMap<Long, EntryCache> caches = new TreeMap<>();
    private final Map<Long, EntryImpl> copies = new LinkedHashMap<>();
    private long nextCopy;
    private final Counters counters = new Counters();
    private long evictedBefore;
    private byte[] zeros = new byte[0];

    public static void main(String[] args) throws IOException {
        Loop.run(new LegacyHarness());
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("pulsar-legacy", "managed-ledger 4.0.8", List.of("legacy"), CAPABILITIES,
                "https://github.com/apache/pulsar/tree/v4.0.8/managed-ledger");
    }

    @Override
    public void configure(CacheConfig config) {
        if (manager != null) {
            manager.clear();
        }
        for (EntryImpl copy : copies.values()) {
            copy.release();
        }
        if (config.trigger.doubleValue() != 0.98) {
            throw new NotAllowed("RangeEntryCacheManagerImpl hard-codes the trigger at 0.98 "
                    + "(evictionTriggerThresholdPercent); got trigger " + config.trigger);
        }
        this.config = config;
        now = 0;
        copies.clear();
        nextCopy = 0;
        caches.clear();
        scheduled.clear();
        counters.removedSize = counters.removedTtl = counters.removedInvalidate = counters.removedClear = 0;
        evictedBefore = 0;
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
        OrderedScheduler executor = mock(OrderedScheduler.class);
        doAnswer(call -> scheduled.add(call.getArgument(0))).when(executor).execute(any(Runnable.class));
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
            case "release" -> copies.remove(open(op.num("copy"))).release();
            case "replay_increment" -> open(op.num("copy")); // 4.0.8 entries carry no read count
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
            case "evict_size" -> runScheduled();
            default -> throw new NotAllowed(op.kind() + " is not supported by pulsar-legacy");
        }
        countRemovals(op.kind());
        return result;
    }

    /**
     * The scheduled executor runs what {@code hasSpaceInCache} scheduled. As an executor does, it keeps
     * a task's exception from its caller: 4.0.8's task computes {@code sizeToEvict} from the size captured
     * when it was scheduled and the maximum when it runs, so a maximum raised in between makes
     * {@code doEviction}'s {@code checkArgument(sizeToFree > 0)} throw; the task's {@code finally} still
     * clears {@code evictionInProgress}, and nothing is evicted. The exception goes to stderr.
     */
    private void runScheduled() {
        while (!scheduled.isEmpty()) {
            try {
                scheduled.poll().run();
            } catch (RuntimeException error) {
                System.err.println("pulsar-legacy: a scheduled eviction threw (the executor keeps it): " + error);
            }
        }
    }

    private long open(long copy) {
        if (!copies.containsKey(copy)) {
            throw new NotAllowed("copy " + copy + " is not an open copy");
        }
        return copy;
    }

    private void countRemovals(String kind) {
        long evicted = mbean.getCacheEvictedEntriesCount();
        long delta = evicted - evictedBefore;
        evictedBefore = evicted;
        switch (kind) {
            case "evict_timestamp" -> counters.removedTtl += delta;
            case "invalidate_before", "invalidate_ledger" -> counters.removedInvalidate += delta;
            case "clear" -> counters.removedClear += delta;
            default -> counters.removedSize += delta;
        }
    }

    private void reconfigure(Map<String, Object> changes) {
        config = config.with(changes, false);
        if (changes.get("max_size") != null) {
            manager.updateCacheSizeAndThreshold(config.maxSize);
        }
        if (changes.get("watermark") != null) {
            manager.updateCacheEvictionWatermark(config.watermark.doubleValue());
        }
    }

    /** {@code OpAddEntry}: {@code EntryImpl.create(ledger, entry, data)}, inserted, then released. */
    private boolean insert(long ledger, long entry, long size) {
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new NotAllowed("insert needs 0 < size < 2^31, got " + size);
        }
        if (zeros.length < size) {
            zeros = new byte[(int) size];
        }
        ByteBuf payload = Unpooled.wrappedBuffer(zeros, 0, (int) size);
        EntryImpl tailing = EntryImpl.create(ledger, entry, payload);
        payload.release();
        try {
            EntryCache cache = cacheOf(ledger);
            boolean inserted = cache.insert(tailing);
            if (inserted) {
                Object wrapper = mapped(cache).get(tailing.getPosition());
                set(TIMESTAMP, get(WRAPPER_VALUE, wrapper), clock.stamp(now));
            }
            return inserted;
        } finally {
            tailing.release();
        }
    }

    /** The public read path; hits are the cache's dispatch copies, entries read from storage are misses. */
    private List<Long> read(long ledger, long first, long last) {
        AtomicReference<List<Entry>> got = new AtomicReference<>();
        AtomicReference<ManagedLedgerException> failed = new AtomicReference<>();
        cacheOf(ledger).asyncReadEntry(storage(ledger), first, last, false, new ReadEntriesCallback() {
            @Override
            public void readEntriesComplete(List<Entry> entries, Object ctx) {
                got.set(entries);
            }

            @Override
            public void readEntriesFailed(ManagedLedgerException exception, Object ctx) {
                failed.set(exception);
            }
        }, null);
        if (failed.get() != null || got.get() == null) {
            throw new IllegalStateException("the read of " + ledger + ":" + first + ".." + last + " failed",
                    failed.get());
        }
        List<Long> result = new ArrayList<>();
        for (Entry entry : got.get()) {
            if (entry.getDataBuffer().hasArray() && entry.getDataBuffer().array() == FROM_STORAGE) {
                entry.release();
                result.add(null);
            } else {
                copies.put(nextCopy, (EntryImpl) entry);
                result.add(nextCopy++);
            }
        }
        return result;
    }

    private static ReadHandle storage(long ledger) {
        ReadHandle handle = mock(ReadHandle.class);
        when(handle.getId()).thenReturn(ledger);
        when(handle.readAsync(anyLong(), anyLong())).thenAnswer(call -> {
            long first = call.getArgument(0);
            long last = call.getArgument(1);
            List<LedgerEntry> entries = new ArrayList<>();
            for (long entry = first; entry <= last; entry++) {
                entries.add(LedgerEntryImpl.create(ledger, entry, 1, Unpooled.wrappedBuffer(FROM_STORAGE)));
            }
            return CompletableFuture.completedFuture(LedgerEntriesImpl.create(entries));
        });
        return handle;
    }

    @SuppressWarnings("unchecked")
    private static ConcurrentNavigableMap<Position, Object> mapped(EntryCache cache) {
        return (ConcurrentNavigableMap<Position, Object>) get(RANGE_ENTRIES, get(CACHE_ENTRIES, cache));
    }

    @Override
    public Map<String, Object> observe() {
        Observation observation = new Observation();
        for (EntryCache cache : caches.values()) {
            if (!(cache instanceof RangeEntryCacheImpl)) {
                continue;
            }
            for (Map.Entry<Position, Object> entry : mapped(cache).entrySet()) {
                EntryImpl value = (EntryImpl) get(WRAPPER_VALUE, entry.getValue());
                long size = (Long) get(WRAPPER_SIZE, entry.getValue());
                observation.entry(entry.getKey().getLedgerId(), entry.getKey().getEntryId(), size, null,
                        value == null ? null : clock.logical(value.getTimestamp()));
            }
        }
        for (Long copy : copies.keySet()) {
            observation.copy(copy, null);
        }
        counters.inserted = mbean.getCacheInsertedEntriesCount();
        counters.hits = mbean.getCacheHitsTotal();
        counters.misses = mbean.getCacheMissesTotal();
        return observation.build(manager.getSize(), counters);
    }

    private static Class<?> wrapperClass() {
        for (Class<?> nested : RangeCache.class.getDeclaredClasses()) {
            if (nested.getSimpleName().equals("EntryWrapper")) {
                return nested;
            }
        }
        throw new ExceptionInInitializerError("RangeCache has no EntryWrapper");
    }

    private static Field field(Class<?> owner, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException error) {
            throw new ExceptionInInitializerError(error);
        }
    }

    private static Object get(Field field, Object owner) {
        try {
            return field.get(owner);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
    }

    private static void set(Field field, Object owner, long value) {
        try {
            field.setLong(owner, value);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
    }
}
