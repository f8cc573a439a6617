import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Observations as differences ({@code "observe": "delta"}, conformance/protocol/README.md).
 *
 * <p>Diffs two full observations, so the cache only ever produces full ones: remember what was last
 * sent (full or delta), and send entries added or changed, positions removed, copies opened or
 * changed, copies closed, and the size and counters in full. {@link #reset} on {@code configure}:
 * the first delta is against the empty cache. Generic over the observation maps; copy it as it is.
 */
final class Deltas {
    private Map<List<Object>, Object> entries = new HashMap<>();
    private Map<Object, Object> copies = new HashMap<>();

    /** A fresh cache: the next delta is against the empty observation. */
    void reset() {
        entries = new HashMap<>();
        copies = new HashMap<>();
    }

    /** A full observation was sent; later deltas are against it. */
    Map<String, Object> sentFull(Map<String, Object> observation) {
        entries = entriesOf(observation);
        copies = copiesOf(observation);
        return observation;
    }

    /** The delta from the last observation sent to {@code observation}, which becomes the new base. */
    Map<String, Object> delta(Map<String, Object> observation) {
        Map<List<Object>, Object> after = entriesOf(observation);
        Map<Object, Object> copiesAfter = copiesOf(observation);
        List<Object> changed = new ArrayList<>();
        for (Map.Entry<List<Object>, Object> row : after.entrySet()) {
            if (!row.getValue().equals(entries.get(row.getKey()))) {
                changed.add(row.getValue());
            }
        }
        List<Object> removed = new ArrayList<>();
        for (List<Object> position : entries.keySet()) {
            if (!after.containsKey(position)) {
                removed.add(position);
            }
        }
        List<Object> copyRows = new ArrayList<>();
        for (Map.Entry<Object, Object> copy : copiesAfter.entrySet()) {
            if (!copies.containsKey(copy.getKey()) || !Objects.equals(copies.get(copy.getKey()), copy.getValue())) {
                copyRows.add(Arrays.asList(copy.getKey(), copy.getValue()));
            }
        }
        List<Object> closed = new ArrayList<>();
        for (Object copy : copies.keySet()) {
            if (!copiesAfter.containsKey(copy)) {
                closed.add(copy);
            }
        }
        entries = after;
        copies = copiesAfter;
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put("entries", changed);
        delta.put("removed", removed);
        delta.put("size", observation.get("size"));
        delta.put("counters", observation.get("counters"));
        delta.put("copies", copyRows);
        delta.put("closed", closed);
        return delta;
    }

    @SuppressWarnings("unchecked")
    private static Map<List<Object>, Object> entriesOf(Map<String, Object> observation) {
        Map<List<Object>, Object> byPosition = new LinkedHashMap<>();
        for (Object row : (List<Object>) observation.get("entries")) {
            Map<String, Object> entry = (Map<String, Object>) row;
            byPosition.put(List.of(entry.get("ledger"), entry.get("entry")), entry);
        }
        return byPosition;
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> copiesOf(Map<String, Object> observation) {
        Map<Object, Object> byId = new LinkedHashMap<>();
        for (Object pair : (List<Object>) observation.get("copies")) {
            List<Object> copy = (List<Object>) pair;
            byId.put(copy.get(0), copy.get(1));
        }
        return byId;
    }
}
