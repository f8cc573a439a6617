package org.apache.bookkeeper.mledger.impl.cache;

import org.apache.commons.lang3.tuple.Pair;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.google.common.util.concurrent.MoreExecutors;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Counters;
import ledgerspec.protocol.Loop;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;
import org.apache.bookkeeper.client.api.ReadHandle;
import org.apache.bookkeeper.common.util.OrderedScheduler;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.ActiveManagedCursorContainerImpl;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerFactoryMBeanImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerMBeanImpl;

/**
 * {@code cache-entry-cache-manager-4.2.4}: the entry cache manager level of managed-ledger 4.2.4, judged
 * against {@code pulsar-master}.
 *
 * <p>Real: {@link RangeEntryCacheManagerImpl} (size trigger on insert, eviction down to the watermark,
 * its one {@link RangeCacheRemovalQueue}), one {@link RangeEntryCacheImpl} per ledger made by
 * {@code getEntryCache} ({@code EntryCacheDisabled} when the size is 0), their insert, read path
 * (hits become dispatch copies; a miss is read through {@code PendingReadsManager} from a stub
 * {@link ReadHandle}), invalidations and clear, the factory's {@link ManagedLedgerFactoryMBeanImpl}
 * (the counters), and {@link ActiveManagedCursorContainerImpl} for the cursors. Mocked (Mockito): the
 * factory and the managed ledgers, which only hand the cache its configuration, executors and MBeans.
 * The eviction executor is manual: what {@code triggerEvictionWhenNeeded} submits on insert waits for
 * {@code evict_size}, as the protocol wants. A TTL pass is the eviction handler's
 * {@code invalidateEntriesBeforeTimestampNanos(now - ttl)}, what {@code doCacheEviction} runs before
 * its size pass.
 */
public final class EntryCacheManagerHarness extends MasterTarget {
    private static final List<String> CAPABILITIES = capabilities();

    private final ManagedLedgerFactoryImpl factory;
    private final Storage storage = new Storage();
    private final OrderedScheduler scheduler = mock(OrderedScheduler.class);
    private ManagedLedgerFactoryMBeanImpl mbean;
    private RangeEntryCacheManagerImpl manager;
    private final ManualExecutor evictionExecutor = new ManualExecutor();
    private final TreeMap<Long, EntryCache> caches = new TreeMap<>();
    private final Map<Long, ManagedLedgerImpl> ledgers = new HashMap<>();
    private final Map<Long, ActiveManagedCursorContainerImpl> cursors = new HashMap<>();
    private final Map<String, ManagedCursor> cursorStubs = new HashMap<>();
    private final Counters counters = new Counters();
    private final Removals removals = new Removals();

    private static List<String> capabilities() {
        List<String> claimed = new ArrayList<>(List.of("cursors", "configure", "get_range", "replay_increment",
                "observe_counts", "observe_timestamps", "observe_copies"));
        claimed.addAll(REMOVALS);
        claimed.addAll(QUEUE_OBSERVATIONS);
        return List.copyOf(claimed);
    }

    public static void main(String[] args) throws IOException {
        Loop.run(new EntryCacheManagerHarness());
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("cache-entry-cache-manager-4.2.4", "managed-ledger 4.2.4", PROFILES, CAPABILITIES,
                HOMEPAGE);
    }

    /**
     * The mocks live as long as the process: a fresh manager per {@code configure} over one factory mock
     * (its configuration object and MBean replaced), one mocked managed ledger and one stub ledger handle
     * per ledger id. Making Mockito mocks of these large classes costs far more than a step.
     */
    public EntryCacheManagerHarness() {
        factory = mock(ManagedLedgerFactoryImpl.class);
        ScheduledExecutorService executor = evictionExecutor.as(ScheduledExecutorService.class); // not in when()
        when(factory.getCacheEvictionExecutor()).thenReturn(executor);
    }

    @Override
    public void configure(CacheConfig config) {
        if (manager != null) {
            manager.clear();
        }
        requireShippedTrigger(config);
        reset(config);
        caches.clear();
        cursors.clear();
        evictionExecutor.clear();
        counters.removedSize = counters.removedTtl = counters.removedInvalidate = counters.removedClear = 0;
        ManagedLedgerFactoryConfig factoryConfig = factoryConfig(config);
        when(factory.getConfig()).thenReturn(factoryConfig);
        try {
            mbean = new ManagedLedgerFactoryMBeanImpl(factory);
        } catch (Exception error) {
            throw new IllegalStateException(error);
        }
        when(factory.getMbean()).thenReturn(mbean);
        manager = new RangeEntryCacheManagerImpl(factory, scheduler, OpenTelemetry.noop());
        when(factory.getEntryCacheManager()).thenReturn(manager);
        removals.reset();
    }

    private ManagedLedgerImpl ledger(long id) {
        return ledgers.computeIfAbsent(id, key -> {
            ManagedLedgerImpl ml = mock(ManagedLedgerImpl.class);
            ManagedLedgerConfig mlConfig = new ManagedLedgerConfig();
            mlConfig.setCacheEvictionByExpectedReadCount(true);
            when(ml.getName()).thenReturn("ledger-" + key);
            when(ml.getConfig()).thenReturn(mlConfig);
            when(ml.getFactory()).thenReturn(factory);
            when(ml.getExecutor()).thenReturn(MoreExecutors.newDirectExecutorService());
            when(ml.getMbean()).thenReturn(mock(ManagedLedgerMBeanImpl.class));
            return ml;
        });
    }

    private EntryCache cacheOf(long ledger) {
        return caches.computeIfAbsent(ledger, id -> manager.getEntryCache(ledger(id)));
    }

    @Override
    public Object perform(Op op) {
        tick(op.now());
        long ledger = op.kind().equals("release") || op.kind().equals("replay_increment") ? -1 : op.num("ledger", -1);
        Object result = null;
        switch (op.kind()) {
            case "configure" -> reconfigure(op.changes());
            case "insert" -> result = insert(ledger, op.num("entry"), op.num("size"), op.num("expected_reads", 0));
            case "get" -> result = read(ledger, op.num("entry"), op.num("entry")).get(0);
            case "get_range" -> {
                if (op.num("first") > op.num("last")) {
                    throw new NotAllowed("get_range needs first <= last");
                }
                result = read(ledger, op.num("first"), op.num("last"));
            }
            case "release" -> copies.release(op.num("copy"));
            case "replay_increment" -> replayIncrement(op.num("copy"));
            case "invalidate_before" -> cacheOf(ledger).invalidateEntries(PositionFactory.create(ledger,
                    op.num("entry")));
            case "invalidate_ledger" -> cacheOf(ledger).invalidateAllEntries(ledger);
            case "clear" -> manager.clear();
            case "evict_timestamp" -> {
                handler().invalidateEntriesBeforeTimestampNanos(clock.stamp(now() - config.ttl));
                stampRequeued(rangeCaches());
            }
            case "evict_size" -> {
                evictToWatermark();
                stampRequeued(rangeCaches());
            }
            case "evict_bytes" -> {
                // the handler's evictEntries(sizeToFree): the queue's pass, then manager.entriesRemoved
                Pair<Integer, Long> freed = refusedUnlessPositive(() -> handler().evictEntries(op.num("bytes")));
                stampRequeued(rangeCaches());
                result = freed(freed);
            }
            case "evict_before" -> {
                // invalidateEntriesBeforeTimestampNanos(cutoff) returns nothing: its two calls, keeping the pair
                Pair<Integer, Long> freed = removalQueue().evictLEntriesBeforeTimestamp(clock.stamp(op.num("cutoff")));
                manager.entriesRemoved(freed.getRight(), freed.getLeft());
                stampRequeued(rangeCaches());
                result = freed(freed);
            }
            case "remove_range" -> result = removeRange(ledger, op.num("first"), op.num("last"), op.bool("inclusive"));
            case "cursor_add", "cursor_remove", "cursor_seek", "cursor_count" -> result = cursor(op, ledger);
            default -> throw new NotAllowed(op.kind() + " is not supported by cache-entry-cache-manager-4.2.4");
        }
        removals.count(op.kind(), mbean.getCacheEvictedEntriesCount(), counters);
        return result;
    }

    private RangeEntryCacheManagerEvictionHandler handler() {
        return Reflect.get(EVICTION_HANDLER, manager);
    }

    private RangeCacheRemovalQueue removalQueue() {
        return Reflect.get(HANDLER_QUEUE, handler());
    }

    /**
     * {@code RangeCache.removeRange(first, last, lastInclusive)} of the ledger's cache, then what
     * {@code RangeEntryCacheImpl.removeRangeAndNotify} does after its own (always exclusive) call:
     * {@code manager.entriesRemoved(size, count)}. {@code EntryCacheDisabled} caches nothing: (0, 0).
     */
    private List<Long> removeRange(long ledger, long first, long last, boolean inclusive) {
        if (first > last) {
            throw new NotAllowed("remove_range needs first <= last, got " + first + " > " + last);
        }
        EntryCache cache = cacheOf(ledger);
        if (!(cache instanceof RangeEntryCacheImpl)) {
            return List.of(0L, 0L);
        }
        Pair<Integer, Long> freed = rangeCache(cache).removeRange(PositionFactory.create(ledger, first),
                PositionFactory.create(ledger, last), inclusive);
        manager.entriesRemoved(freed.getRight(), freed.getLeft());
        return freed(freed);
    }

    private void reconfigure(Map<String, Object> changes) {
        config = config.with(changes, false);
        Sizes.update(manager, changes, config);
        if (changes.get("max_requeue") != null) {
            manager.updateCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes((int) config.maxRequeue);
        }
        if (changes.get("extend_ttl") != null) {
            manager.updateCacheEvictionExtendTTLOfRecentlyAccessed(config.extendTtl);
        }
    }

    /** {@code OpAddEntry}: the tailing entry with its count, inserted into the ledger's cache, then released. */
    private boolean insert(long ledger, long entry, long size, long expectedReads) {
        EntryImpl tailing = tailingEntry(ledger, entry, size, expectedReads);
        try {
            EntryCache cache = cacheOf(ledger);
            boolean inserted = cache.insert(tailing);
            if (inserted) {
                stampInserted(rangeCache(cache), tailing.getPosition());
            }
            return inserted;
        } finally {
            tailing.release();
        }
    }

    /**
     * The public read path, {@code asyncReadEntry(handle, first, last, () -> 0, ...)}: hits are the cache's
     * dispatch copies (kept under copy ids), misses are read from the stub ledger and released (null).
     * A count of 0 is what a read for a position no cursor expects gives: nothing read is cached.
     */
    private List<Long> read(long ledger, long first, long last) {
        return Storage.hitsAndMisses(Storage.read(ledger + ":" + first + ".." + last, callback -> cacheOf(ledger)
                .asyncReadEntry(storage.handle(ledger), first, last, () -> 0, callback, null)), copies);
    }

    /**
     * The executor runs what the size trigger queued, or the method itself when nothing is queued. As an
     * executor does, it keeps a task's exception from its caller (the effect, nothing evicted, stays
     * visible); the exception goes to stderr.
     */
    private void evictToWatermark() {
        if (evictionExecutor.isEmpty()) {
            evictionExecutor.add(() -> Reflect.call(EVICT_TO_WATERMARK, manager));
        }
        evictionExecutor.runAll("cache-entry-cache-manager-4.2.4");
    }

    private Object cursor(Op op, long ledger) {
        ActiveManagedCursorContainerImpl container = cursors.computeIfAbsent(ledger,
                id -> new ActiveManagedCursorContainerImpl());
        String key = ledger + "/" + op.str("cursor");
        ManagedCursor stub = cursorStubs.computeIfAbsent(key, name -> {
            ManagedCursor cursor = mock(ManagedCursor.class);
            when(cursor.getName()).thenReturn(op.str("cursor"));
            return cursor;
        });
        boolean active = container.get(op.str("cursor")) != null;
        switch (op.kind()) {
            case "cursor_add" -> {
                requireCursor(!active, op, "is already active");
                requirePosition(op);
                container.add(stub, PositionFactory.create(ledger, op.num("entry")));
            }
            case "cursor_remove" -> {
                requireCursor(active, op, "is not active");
                container.removeCursor(op.str("cursor"));
            }
            case "cursor_seek" -> {
                requireCursor(active, op, "is not active");
                requirePosition(op);
                container.updateCursor(stub, PositionFactory.create(ledger, op.num("entry")));
            }
            default -> {
                return (long) container.getNumberOfCursorsAtSamePositionOrBefore(stub);
            }
        }
        return null;
    }

    private List<RangeCache> rangeCaches() {
        List<RangeCache> found = new ArrayList<>();
        for (EntryCache cache : caches.values()) {
            if (cache instanceof RangeEntryCacheImpl) {
                found.add(rangeCache(cache));
            }
        }
        return found;
    }

    @Override
    public Map<String, Object> observe() {
        Observation observation = new Observation();
        for (RangeCache cache : rangeCaches()) {
            observeEntries(cache, observation);
        }
        observeCopies(observation);
        observeQueue(removalQueue(), rangeCaches(), observation);
        counters.inserted = mbean.getCacheInsertedEntriesCount();
        counters.hits = mbean.getCacheHitsTotal();
        counters.misses = mbean.getCacheMissesTotal();
        return observation.build(manager.getSize(), counters);
    }
}
