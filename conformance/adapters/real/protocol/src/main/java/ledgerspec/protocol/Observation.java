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
        return observation;
    }
}
