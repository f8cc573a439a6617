package org.apache.bookkeeper.bookie.storage.ldb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
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
import org.apache.bookkeeper.util.collections.ConcurrentLongLongPairHashMap;
import org.apache.bookkeeper.util.collections.ConcurrentLongLongPairHashMap.LongPair;

/**
 * {@code cache-bookkeeper-read-cache-4.17.3}: {@link ReadCache} of bookkeeper-server 4.17.3, judged against
 * {@code segmented}.
 *
 * <p>{@code max_size} and {@code segment_size_max} go to {@code new ReadCache(allocator, maxCacheSize,
 * maxSegmentSize)}; an insert is {@code put(ledger, entry, buffer)} of {@code size} bytes that carry their
 * own position, so every {@code get} checks that it got the bytes of the entry it asked for (a read of
 * another entry's bytes is reported as an error, never as a hit). What the observation shows is read
 * from the real object: the entries each segment's index maps (the newest segment wins), their lengths,
 * and {@code size()}. The counters are the harness's: puts that cached, hits and misses of {@code get},
 * and the entries of the index each rotation cleared. Per-ledger invalidation, clear and the eviction
 * passes do nothing: {@code ReadCache} has none of them.
 */
public final class ReadCacheHarness implements Target {
    private static final List<String> CAPABILITIES = List.of("configure", "get_range", "replay_increment",
            "observe_copies");
    private static final Field INDEXES = field("cacheIndexes");
    private static final Field CURRENT = field("currentSegmentIdx");

    private ReadCache cache;
    private long now;
    private final Map<Long, Boolean> copies = new LinkedHashMap<>();
    private long nextCopy;
    private Counters counters = new Counters();

    public static void main(String[] args) throws IOException {
        Loop.run(new ReadCacheHarness());
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("cache-bookkeeper-read-cache-4.17.3", "bookkeeper-server 4.17.3", List.of("segmented"),
                CAPABILITIES, "https://github.com/apache/bookkeeper/tree/release-4.17.3/bookkeeper-server");
    }

    @Override
    public void configure(CacheConfig config) {
        if (cache != null) {
            cache.close();
        }
        if (config.segmentSizeMax > Integer.MAX_VALUE) {
            throw new NotAllowed("ReadCache takes an int maxSegmentSize; got segment_size_max " + config.segmentSizeMax);
        }
        cache = new ReadCache(UnpooledByteBufAllocator.DEFAULT, config.maxSize, (int) config.segmentSizeMax);
        now = 0;
        copies.clear();
        nextCopy = 0;
        counters = new Counters();
    }

    @Override
    public Object perform(Op op) {
        if (op.now() < now) {
            throw new NotAllowed("now must not go back: got " + op.now() + ", last accepted " + now);
        }
        now = op.now();
        switch (op.kind()) {
            case "configure" -> {
                if (op.changes().get("max_size") != null) {
                    throw new NotAllowed("configure: a ReadCache cannot be resized");
                }
            }
            case "insert" -> {
                return insert(op.num("ledger"), op.num("entry"), op.num("size"));
            }
            case "get" -> {
                return read(op.num("ledger"), op.num("entry"));
            }
            case "get_range" -> {
                if (op.num("first") > op.num("last")) {
                    throw new NotAllowed("get_range needs first <= last");
                }
                List<Long> result = new java.util.ArrayList<>();
                for (long entry = op.num("first"); entry <= op.num("last"); entry++) {
                    result.add(read(op.num("ledger"), entry));
                }
                return result;
            }
            case "release" -> copies.remove(open(op.num("copy")));
            case "replay_increment" -> open(op.num("copy"));
            case "invalidate_before", "invalidate_ledger", "clear", "evict_timestamp", "evict_size" -> {
                // ReadCache has no per-ledger removal and no eviction pass: rotation is its only eviction
            }
            default -> throw new NotAllowed(op.kind() + " is not supported by cache-bookkeeper-read-cache-4.17.3");
        }
        return null;
    }

    private long open(long copy) {
        if (!copies.containsKey(copy)) {
            throw new NotAllowed("copy " + copy + " is not an open copy");
        }
        return copy;
    }

    /** {@code put}: cached iff the current segment's index now maps the position to a new place. */
    private boolean insert(long ledger, long entry, long size) {
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new NotAllowed("insert needs 0 < size < 2^31, got size " + size);
        }
        List<ConcurrentLongLongPairHashMap> indexes = indexes();
        long[] before = new long[indexes.size()];
        for (int i = 0; i < before.length; i++) {
            before[i] = indexes.get(i).size();
        }
        int current = current();
        LongPair was = indexes.get(current).get(ledger, entry);
        ByteBuf payload = payload(ledger, entry, (int) size);
        cache.put(ledger, entry, payload);
        payload.release();
        int after = current();
        if (after != current) {
            counters.removedSize += before[after];
        }
        LongPair now = indexes.get(after).get(ledger, entry);
        boolean cached = now != null && (after != current || was == null || was.first != now.first);
        if (cached) {
            counters.inserted++;
        }
        return cached;
    }

    /** {@code get}: a hit must be the bytes of the entry asked for. */
    private Long read(long ledger, long entry) {
        ByteBuf got = cache.get(ledger, entry);
        if (got == null) {
            counters.misses++;
            return null;
        }
        try {
            ByteBuf expected = payload(ledger, entry, got.readableBytes());
            boolean same = expected.equals(got);
            expected.release();
            if (!same) {
                throw new IllegalStateException("ReadCache.get(" + ledger + ", " + entry + ") returned "
                        + got.readableBytes() + " bytes that are not that entry's");
            }
        } finally {
            got.release();
        }
        counters.hits++;
        copies.put(nextCopy, Boolean.TRUE);
        return nextCopy++;
    }

    /** {@code size} bytes whose first ones spell the position (whatever fits of two longs), then zeros. */
    private static ByteBuf payload(long ledger, long entry, int size) {
        ByteBuf position = Unpooled.buffer(16).writeLong(ledger).writeLong(entry);
        ByteBuf payload = Unpooled.buffer(size, size);
        payload.writeBytes(position, 0, Math.min(16, size));
        payload.writeZero(size - payload.readableBytes());
        position.release();
        return payload;
    }

    @Override
    public Map<String, Object> observe() {
        List<ConcurrentLongLongPairHashMap> indexes = indexes();
        int count = indexes.size();
        TreeMap<List<Long>, Long> visible = new TreeMap<>((a, b) -> a.get(0).equals(b.get(0))
                ? Long.compare(a.get(1), b.get(1)) : Long.compare(a.get(0), b.get(0)));
        for (int i = 0; i < count; i++) { // newest segment first, as get() probes them
            ConcurrentLongLongPairHashMap index = indexes.get((current() + count - i) % count);
            index.forEach((ledger, entry, offset, length) -> visible.putIfAbsent(List.of(ledger, entry), length));
        }
        Observation observation = new Observation();
        for (Map.Entry<List<Long>, Long> entry : visible.entrySet()) {
            observation.entry(entry.getKey().get(0), entry.getKey().get(1), entry.getValue(), null, null);
        }
        for (Long copy : copies.keySet()) {
            observation.copy(copy, null);
        }
        return observation.build(cache.size(), counters);
    }

    @SuppressWarnings("unchecked")
    private List<ConcurrentLongLongPairHashMap> indexes() {
        return (List<ConcurrentLongLongPairHashMap>) get(INDEXES);
    }

    private int current() {
        return (Integer) get(CURRENT);
    }


    private Object get(Field field) {
        try {
            return field.get(cache);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
    }

    private static Field field(String name) {
        try {
            Field field = ReadCache.class.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException error) {
            throw new ExceptionInInitializerError(error);
        }
    }
}
