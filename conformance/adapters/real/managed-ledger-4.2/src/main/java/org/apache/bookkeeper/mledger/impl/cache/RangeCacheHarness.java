package org.apache.bookkeeper.mledger.impl.cache;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Counters;
import ledgerspec.protocol.Loop;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.ReferenceCountedEntry;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.commons.lang3.tuple.Pair;

/**
 * {@code cache-range-cache-4.2.4}: one {@link RangeCacheRemovalQueue} and a {@link RangeCache} per ledger, of
 * managed-ledger 4.2.4, judged against {@code pulsar-master}.
 *
 * <p>The queue and the caches are the real classes; this harness is the thin manager around them that
 * the broker's {@code RangeEntryCacheManagerImpl} would be: it sums the caches' sizes, decides the size
 * pass as {@code doEvictToWatermarkWhenOverThreshold} does ({@code size > (long)(max * trigger)}, then
 * {@code evictLeastAccessedEntries(size - (long)(max * watermark))}), passes {@code now - ttl} to
 * {@code evictLEntriesBeforeTimestamp}, and counts inserts, hits, misses and removals from what the
 * real calls return. Everything it reports is read from the real objects after each operation.
 */
public final class RangeCacheHarness extends MasterTarget {
    private static final List<String> CAPABILITIES = capabilities();

    private static List<String> capabilities() {
        List<String> claimed = new ArrayList<>(List.of("configure", "get_range", "replay_increment",
                "observe_counts", "observe_timestamps", "observe_copies"));
        claimed.addAll(REMOVALS);
        claimed.addAll(QUEUE_OBSERVATIONS);
        return List.copyOf(claimed);
    }

    private RangeCacheRemovalQueue queue;
    private final TreeMap<Long, RangeCache> ledgers = new TreeMap<>();
    private Counters counters = new Counters();
    private boolean disabled;

    public static void main(String[] args) throws IOException {
        Loop.run(new RangeCacheHarness());
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("cache-range-cache-4.2.4", "managed-ledger 4.2.4", PROFILES, CAPABILITIES, HOMEPAGE);
    }

    @Override
    public void configure(CacheConfig config) {
        if (queue != null) {
            for (RangeCache cache : ledgers.values()) {
                cache.clear();
            }
        }
        reset(config);
        ledgers.clear();
        counters = new Counters();
        // RangeEntryCacheManagerImpl gives EntryCacheDisabled when the size is 0 at creation
        disabled = config.maxSize == 0;
        queue = new RangeCacheRemovalQueue((int) config.maxRequeue, config.extendTtl);
    }

    private RangeCache cacheOf(long ledger) {
        return ledgers.computeIfAbsent(ledger, id -> new RangeCache(queue, "ledger-" + id));
    }

    @Override
    public Object perform(Op op) {
        tick(op.now());
        switch (op.kind()) {
            case "configure" -> reconfigure(op.changes());
            case "insert" -> {
                return insert(op.num("ledger"), op.num("entry"), op.num("size"), op.num("expected_reads", 0));
            }
            case "get" -> {
                return read(op.num("ledger"), op.num("entry"));
            }
            case "get_range" -> {
                return readRange(op.num("ledger"), op.num("first"), op.num("last"));
            }
            case "release" -> copies.release(op.num("copy"));
            case "replay_increment" -> replayIncrement(op.num("copy"));
            case "invalidate_before" -> counters.removedInvalidate += removed(cacheOf(op.num("ledger"))
                    .removeRange(PositionFactory.create(-1, 0), position(op.num("ledger"), op.num("entry")), false));
            case "invalidate_ledger" -> counters.removedInvalidate += removed(cacheOf(op.num("ledger"))
                    .removeRange(position(op.num("ledger"), 0), position(op.num("ledger") + 1, 0), false));
            case "clear" -> {
                for (RangeCache cache : ledgers.values()) {
                    counters.removedClear += removed(cache.clear());
                }
            }
            case "evict_timestamp" -> {
                counters.removedTtl += removed(queue.evictLEntriesBeforeTimestamp(clock.stamp(now() - config.ttl)));
                stampRequeued(ledgers.values());
            }
            case "evict_size" -> evictSize();
            case "evict_bytes" -> {
                Pair<Integer, Long> freed = refusedUnlessPositive(() -> queue.evictLeastAccessedEntries(
                        op.num("bytes")));
                counters.removedSize += freed.getLeft();
                stampRequeued(ledgers.values());
                return freed(freed);
            }
            case "evict_before" -> {
                Pair<Integer, Long> freed = queue.evictLEntriesBeforeTimestamp(clock.stamp(op.num("cutoff")));
                counters.removedTtl += freed.getLeft();
                stampRequeued(ledgers.values());
                return freed(freed);
            }
            case "remove_range" -> {
                long ledger = op.num("ledger");
                if (op.num("first") > op.num("last")) {
                    throw new NotAllowed("remove_range needs first <= last, got " + op.num("first") + " > "
                            + op.num("last"));
                }
                Pair<Integer, Long> freed = cacheOf(ledger).removeRange(position(ledger, op.num("first")),
                        position(ledger, op.num("last")), op.bool("inclusive"));
                counters.removedInvalidate += freed.getLeft();
                return freed(freed);
            }
            default -> throw new NotAllowed(op.kind() + " is not supported by cache-range-cache-4.2.4");
        }
        return null;
    }

    private static Position position(long ledger, long entry) {
        return PositionFactory.create(ledger, entry);
    }

    private static long removed(Pair<Integer, Long> entriesAndBytes) {
        return entriesAndBytes.getLeft();
    }

    private void reconfigure(Map<String, Object> changes) {
        config = config.with(changes, false);
        if (changes.get("max_requeue") != null) {
            queue.setMaxRequeueCountWhenHasExpectedReads((int) config.maxRequeue);
        }
        if (changes.get("extend_ttl") != null) {
            queue.setExtendTTLOfRecentlyAccessed(config.extendTtl);
        }
    }

    /** {@code RangeEntryCacheImpl.insert} of {@code OpAddEntry}'s entry, without copying the payload. */
    private boolean insert(long ledger, long entry, long size, long expectedReads) {
        EntryImpl tailing = tailingEntry(ledger, entry, size, expectedReads);
        try {
            if (disabled) {
                return false;
            }
            Position position = tailing.getPosition();
            ReferenceCountedEntry value = EntryImpl.createWithRetainedDuplicate(position, tailing.getDataBuffer(),
                    tailing.getReadCountHandler(), null);
            RangeCache cache = cacheOf(ledger);
            if (cache.put(position, value, tailing.getLength())) {
                counters.inserted++;
                stampInserted(cache, position);
                return true;
            }
            value.release();
            return false;
        } finally {
            tailing.release();
        }
    }

    private Long read(long ledger, long entry) {
        ReferenceCountedEntry cached = cacheOf(ledger).get(position(ledger, entry));
        if (cached == null) {
            counters.misses++;
            return null;
        }
        counters.hits++;
        return dispatch(cached);
    }

    private List<Long> readRange(long ledger, long first, long last) {
        if (first > last) {
            throw new NotAllowed("get_range needs first <= last, got " + first + " > " + last);
        }
        Collection<ReferenceCountedEntry> hits = cacheOf(ledger).getRange(position(ledger, first),
                position(ledger, last));
        List<Long> copies = new ArrayList<>();
        for (long entry = first; entry <= last; entry++) {
            copies.add(null);
        }
        for (ReferenceCountedEntry hit : hits) {
            copies.set((int) (hit.getEntryId() - first), dispatch(hit));
        }
        counters.hits += hits.size();
        counters.misses += copies.size() - hits.size();
        return copies;
    }

    /** {@code doEvictToWatermarkWhenOverThreshold}: above the trigger, evict down to the watermark. */
    private void evictSize() {
        long size = size();
        if (size > config.triggerSize()) {
            long sizeToEvict = size - config.watermarkSize();
            if (sizeToEvict > 0) {
                counters.removedSize += removed(queue.evictLeastAccessedEntries(sizeToEvict));
                stampRequeued(ledgers.values());
            }
        }
    }

    private long size() {
        long size = 0;
        for (RangeCache cache : ledgers.values()) {
            size += cache.getSize();
        }
        return size;
    }

    @Override
    public Map<String, Object> observe() {
        Observation observation = new Observation();
        for (RangeCache cache : ledgers.values()) {
            observeEntries(cache, observation);
        }
        observeCopies(observation);
        observeQueue(queue, ledgers.values(), observation);
        return observation.build(size(), counters);
    }
}
