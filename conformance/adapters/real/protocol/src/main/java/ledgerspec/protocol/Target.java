package ledgerspec.protocol;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a cache under test gives the {@link Loop}: its identity, a fresh cache per {@code configure},
 * one operation at a time, and a full observation (the loop turns it into deltas).
 */
public interface Target {
    /**
     * The {@code implementation} object of the {@code start} reply: name, version, language, profiles
     * and capabilities (conformance/protocol/v1/start.json); the loop adds {@code observation_deltas}.
     */
    Map<String, Object> implementation();

    /** Discard any cache and build a fresh, empty one with this configuration. */
    void configure(CacheConfig config);

    /** Perform one checked operation; its result as the protocol encodes it (null for none). */
    Object perform(Op op);

    /**
     * Entries in position order ({@code ledger, entry, size, count, timestamp}), {@code size},
     * {@code counters} and {@code copies} by id: build it with {@link Observation}.
     */
    Map<String, Object> observe();

    /** An {@link #implementation()} object, its fields in the schema's order. */
    static Map<String, Object> describe(String name, String version, List<String> profiles,
                                        List<String> capabilities, String homepage) {
        Map<String, Object> implementation = new LinkedHashMap<>();
        implementation.put("name", name);
        implementation.put("version", version);
        implementation.put("language", "java");
        implementation.put("profiles", profiles);
        implementation.put("capabilities", capabilities);
        if (homepage != null) {
            implementation.put("homepage", homepage);
        }
        return implementation;
    }
}
