package ledgerspec.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds an observation as the protocol encodes it (common.json#/$defs/observation): rows added in
 * position order, copies in id order, the counters of spec/cache/_observation.py.
 */
public final class Observation {
    private final List<Object> entries = new ArrayList<>();
    private final List<Object> copies = new ArrayList<>();
    private Long queueLength;
    private Long nonEvictableSize;

    /** One cached entry; {@code count} and {@code timestamp} are null where the cache has none. */
    public Observation entry(long ledger, long entry, long size, Long count, Long timestamp) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("ledger", ledger);
        row.put("entry", entry);
        row.put("size", size);
        row.put("count", count);
        row.put("timestamp", timestamp);
        entries.add(row);
        return this;
    }

    /**
     * One cached entry with its wrapper's {@code requeues} and {@code accessed} (capabilities
     * {@code observe_requeues}, {@code observe_accessed}); a null leaves the key out.
     */
    public Observation entry(long ledger, long entry, long size, Long count, Long timestamp, Long requeues,
                             Boolean accessed) {
        entry(ledger, entry, size, count, timestamp);
        @SuppressWarnings("unchecked")
        Map<String, Object> row = (Map<String, Object>) entries.get(entries.size() - 1);
        if (requeues != null) {
            row.put("requeues", requeues);
        }
        if (accessed != null) {
            row.put("accessed", accessed);
        }
        return this;
    }

    /**
     * The removal queue's {@code queue_length} (tombstones included) and {@code non_evictable_size}
     * (capabilities {@code observe_queue_length}, {@code observe_non_evictable_size}); null leaves one out.
     */
    public Observation queue(Long queueLength, Long nonEvictableSize) {
        this.queueLength = queueLength;
        this.nonEvictableSize = nonEvictableSize;
        return this;
    }

    /** One open dispatched copy with the count of the handler it shares (null without one). */
    public Observation copy(long id, Long count) {
        List<Object> pair = new ArrayList<>(2);
        pair.add(id);
        pair.add(count);
        copies.add(pair);
        return this;
    }

    /** The whole observation. */
    public Map<String, Object> build(long size, Counters counters) {
        Map<String, Object> observation = new LinkedHashMap<>();
        observation.put("entries", entries);
        observation.put("size", size);
        observation.put("counters", counters.toMap());
        observation.put("copies", copies);
        if (queueLength != null) {
            observation.put("queue_length", queueLength);
        }
        if (nonEvictableSize != null) {
            observation.put("non_evictable_size", nonEvictableSize);
        }
        return observation;
    }
}
