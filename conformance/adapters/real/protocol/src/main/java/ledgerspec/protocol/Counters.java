package ledgerspec.protocol;

import java.util.LinkedHashMap;
import java.util.Map;

/** The cumulative counters of spec/cache/_observation.py, in its order. */
public final class Counters {
    public long inserted;
    public long hits;
    public long misses;
    public long removedSize;
    public long removedTtl;
    public long removedInvalidate;
    public long removedClear;
    /** Size-eviction runs with bytes to free (capability {@code observe_evictions}); null leaves it out. */
    public Long evictions;
    /** The bytes of every hit (capability {@code observe_hit_bytes}); null leaves it out. */
    public Long hitBytes;

    /** As the protocol encodes them. */
    public Map<String, Object> toMap() {
        Map<String, Object> counters = new LinkedHashMap<>();
        counters.put("inserted", inserted);
        counters.put("hits", hits);
        counters.put("misses", misses);
        counters.put("removed_size", removedSize);
        counters.put("removed_ttl", removedTtl);
        counters.put("removed_invalidate", removedInvalidate);
        counters.put("removed_clear", removedClear);
        if (evictions != null) {
            counters.put("evictions", evictions);
        }
        if (hitBytes != null) {
            counters.put("hit_bytes", hitBytes);
        }
        return counters;
    }
}
