package org.apache.bookkeeper.mledger.impl.cache;

import io.netty.buffer.ByteBuf;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;
import ledgerspec.protocol.VirtualClock;
import org.apache.bookkeeper.mledger.EntryReadCountHandler;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.ReferenceCountedEntry;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.commons.lang3.tuple.Pair;

/**
 * What both managed-ledger 4.2.4 harnesses do alike: the clock, the entries a tailing write inserts,
 * the dispatch copies a read hands out, and reading a {@link RangeCache}'s wrappers for an observation.
 *
 * <p>Each step is what the broker does around the cache, with the broker's own classes: an insert is
 * {@code OpAddEntry}'s (an {@link EntryImpl} carrying {@code EntryReadCountHandlerImpl.maybeCreate(n)},
 * with {@code decreaseReadCountOnRelease = false}, released after the insert); a hit becomes a copy made
 * by {@code EntryImpl.create(entry)}, as {@code RangeEntryCacheImpl} dispatches it (it shares the
 * handler and decrements it when released); a replay increment is what
 * {@code PersistentStickyKeyDispatcherMultipleConsumers} calls on the copy's handler.
 */
abstract class MasterTarget implements Target {
    static final List<String> PROFILES = List.of("pulsar-master");
    static final String HOMEPAGE = "https://github.com/apache/pulsar/tree/v4.2.4/managed-ledger";

    private static final Field ENTRIES = Reflect.field(RangeCache.class, "entries");
    private static final Field REMOVAL_QUEUE = Reflect.field(RangeCacheRemovalQueue.class, "removalQueue");
    /** What the removal operations claim: each returns the real {@code Pair<Integer, Long>} it freed. */
    /** {@code RangeEntryCacheImpl.entries}, the manager's eviction handler and its removal queue (private). */
    static final Field CACHE_ENTRIES = Reflect.field(RangeEntryCacheImpl.class, "entries");
    static final Field EVICTION_HANDLER = Reflect.field(RangeEntryCacheManagerImpl.class, "evictionHandler");
    static final Field HANDLER_QUEUE = Reflect.field(RangeEntryCacheManagerEvictionHandler.class,
            "rangeCacheRemovalQueue");
    /** {@code RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold} (private): a size pass. */
    static final Method EVICT_TO_WATERMARK = Reflect.method(RangeEntryCacheManagerImpl.class,
            "doEvictToWatermarkWhenOverThreshold");

    static final List<String> REMOVALS = List.of("evict_bytes", "evict_before", "remove_range");
    /** The removal queue's observations: read from the real queue and wrappers (see {@link #observeQueue}). */
    static final List<String> QUEUE_OBSERVATIONS = List.of("observe_queue_length", "observe_requeues",
            "observe_accessed", "observe_non_evictable_size");

    final VirtualClock clock = new VirtualClock();
    CacheConfig config;
    private long now;
    final Copies<EntryImpl> copies = new Copies<>();
    private final Payloads payloads = new Payloads();

    /** A fresh cache: the clock, the copies and the configuration start over. */
    void reset(CacheConfig config) {
        copies.reset();
        now = 0;
        this.config = config;
    }

    /** Accept the operation's clock: it never goes back (the spec's precondition). */
    void tick(long now) {
        if (now < this.now) {
            throw new NotAllowed("now must not go back: got " + now + ", last accepted " + this.now);
        }
        clock.stamp(now);
        this.now = now;
    }

    long now() {
        return now;
    }

    /** {@code OpAddEntry}'s temporary entry: {@code size} payload bytes, the count's handler, no decrement. */
    EntryImpl tailingEntry(long ledger, long entry, long size, long expectedReads) {
        if (expectedReads < 0 || expectedReads > Integer.MAX_VALUE) {
            throw new NotAllowed("insert needs 0 <= expected_reads < 2^31, got " + expectedReads);
        }
        ByteBuf payload = payloads.of(size);
        EntryImpl created = EntryImpl.create(ledger, entry, payload, (int) expectedReads);
        payload.release(); // EntryImpl.create retained it
        created.setDecreaseReadCountOnRelease(false);
        return created;
    }

    /** A hit: the dispatch copy (shares the handler, decrements on release); the cache's reference is released. */
    long dispatch(ReferenceCountedEntry cached) {
        EntryImpl copy = EntryImpl.create(cached);
        cached.release();
        return copies.keep(copy);
    }

    /** A Key_Shared replay through the copy: {@code incrementExpectedReadCount()} if it has a handler. */
    void replayIncrement(long copy) {
        EntryReadCountHandler handler = copies.get(copy).getReadCountHandler();
        if (handler != null) {
            handler.incrementExpectedReadCount();
        }
    }

    /** The wrappers a {@link RangeCache} maps, by position (its private map, read by reflection). */
    static ConcurrentNavigableMap<Position, RangeCacheEntryWrapper> wrappers(RangeCache cache) {
        return Reflect.get(ENTRIES, cache);
    }

    /** Stamp the wrapper just inserted at {@code position} with the operation's logical time. */
    void stampInserted(RangeCache cache, Position position) {
        RangeCacheEntryWrapper wrapper = wrappers(cache).get(position);
        wrapper.timestampNanos = clock.stamp(now);
    }

    /** A requeue inside a pass stamped {@code System.nanoTime()}: make it the operation's logical time. */
    void stampRequeued(Iterable<RangeCache> caches) {
        long stamp = clock.stamp(now);
        for (RangeCache cache : caches) {
            for (RangeCacheEntryWrapper wrapper : wrappers(cache).values()) {
                if (clock.isReal(wrapper.timestampNanos)) {
                    wrapper.timestampNanos = stamp;
                }
            }
        }
    }

    /**
     * Every mapped wrapper of the cache: position, accounted {@code size}, the value's handler count
     * ({@code null} without a handler) and {@code timestampNanos} as logical time.
     */
    void observeEntries(RangeCache cache, Observation observation) {
        for (Map.Entry<Position, RangeCacheEntryWrapper> mapped : wrappers(cache).entrySet()) {
            RangeCacheEntryWrapper wrapper = mapped.getValue();
            Position key = mapped.getKey();
            ReferenceCountedEntry value = wrapper.value;
            Long count = value == null || value.getReadCountHandler() == null
                    ? null : (long) value.getReadCountHandler().getExpectedReadCount();
            observation.entry(key.getLedgerId(), key.getEntryId(), wrapper.size, count,
                    clock.logical(wrapper.timestampNanos), (long) wrapper.requeueCount, wrapper.accessed);
        }
    }

    /**
     * {@code queue_length}: the size of the queue's private jctools queue (by reflection), tombstones
     * included. {@code non_evictable_size}: the bytes of the mapped wrappers that the predicate of
     * {@code RangeCacheRemovalQueue.getNonEvictableSize()} counts ({@code getReadCountHandler() == null ||
     * hasExpectedReads()}), evaluated on the real values. The method itself is not called: its
     * {@code forEachEntry} polls every tombstone it passes and re-adds only live wrappers, so observing
     * through it would shorten the queue the next observation reports.
     */
    void observeQueue(RangeCacheRemovalQueue queue, Iterable<RangeCache> caches, Observation observation) {
        Collection<?> queued = Reflect.get(REMOVAL_QUEUE, queue);
        long nonEvictable = 0;
        for (RangeCache cache : caches) {
            for (RangeCacheEntryWrapper wrapper : wrappers(cache).values()) {
                ReferenceCountedEntry value = wrapper.value;
                if (value != null && (value.getReadCountHandler() == null || value.hasExpectedReads())) {
                    nonEvictable += wrapper.size;
                }
            }
        }
        observation.queue((long) queued.size(), nonEvictable);
    }

    /** The trigger {@code RangeEntryCacheManagerImpl} hard-codes: any other is refused, naming it. */
    static void requireShippedTrigger(CacheConfig config) {
        if (config.trigger.doubleValue() != 0.98) {
            throw new NotAllowed("RangeEntryCacheManagerImpl hard-codes the trigger at 0.98 "
                    + "(evictionTriggerThresholdPercent); got trigger " + config.trigger);
        }
    }

    /** The factory configuration of the cache settings: size, watermark, TTL and the two extensions. */
    static ManagedLedgerFactoryConfig factoryConfig(CacheConfig config) {
        ManagedLedgerFactoryConfig factoryConfig = new ManagedLedgerFactoryConfig();
        factoryConfig.setMaxCacheSize(config.maxSize);
        factoryConfig.setCacheEvictionWatermark(config.watermark.doubleValue());
        factoryConfig.setCacheEvictionTimeThresholdMillis(config.ttl / 1_000_000);
        factoryConfig.setCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes((int) config.maxRequeue);
        factoryConfig.setCacheEvictionExtendTTLOfRecentlyAccessed(config.extendTtl);
        return factoryConfig;
    }

    /** A cursor operation's precondition on the cursor, refused naming the cursor and its ledger. */
    static void requireCursor(boolean holds, Op op, String what) {
        if (!holds) {
            throw new NotAllowed(op.kind() + ": cursor " + op.str("cursor") + " of ledger " + op.num("ledger") + " "
                    + what);
        }
    }

    /** A cursor position's precondition ({@code entry >= 0}). */
    static void requirePosition(Op op) {
        if (op.num("entry") < 0) {
            throw new NotAllowed(op.kind() + ": entry must be >= 0, got " + op.num("entry"));
        }
    }

    /** {@code evictLeastAccessedEntries(bytes)}'s argument check, as the spec's precondition (bytes > 0). */
    static Pair<Integer, Long> refusedUnlessPositive(java.util.function.Supplier<Pair<Integer, Long>> call) {
        try {
            return call.get();
        } catch (IllegalArgumentException refused) { // checkArgument(sizeToFree > 0)
            throw new NotAllowed("evict_bytes: Pulsar refuses it (IllegalArgumentException): " + refused);
        }
    }

    /** A removal's {@code Pair<Integer, Long>} as the protocol's result: {@code [entries, bytes]}. */
    static List<Long> freed(Pair<Integer, Long> entriesAndBytes) {
        return List.of((long) entriesAndBytes.getLeft(), entriesAndBytes.getRight());
    }

    /** The {@link RangeCache} inside a {@code RangeEntryCacheImpl} (private field). */
    static RangeCache rangeCache(EntryCache cache) {
        return Reflect.get(CACHE_ENTRIES, cache);
    }

    /** The open copies, by id, with the count of the handler each shares. */
    void observeCopies(Observation observation) {
        for (Map.Entry<Long, EntryImpl> copy : copies.open().entrySet()) {
            EntryReadCountHandler handler = copy.getValue().getReadCountHandler();
            observation.copy(copy.getKey(), handler == null ? null : (long) handler.getExpectedReadCount());
        }
    }
}
