package ledgerspec.protocol;

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
 * changed, copies closed, and the size, counters, queue length and non-evictable size in full. {@link #reset} on {@code configure}:
 * the first delta is against the empty cache. Generic over the observation maps.
 */
public final class Deltas {
    private List<Object> entries = new ArrayList<>();
    private Map<Object, Object> copies = new HashMap<>();

    /** A fresh cache: the next delta is against the empty observation. */
    public void reset() {
        entries = new ArrayList<>();
        copies = new HashMap<>();
    }

    /** A full observation was sent; later deltas are against it. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> sentFull(Map<String, Object> observation) {
        entries = (List<Object>) observation.get("entries");
        copies = copiesOf(observation);
        return observation;
    }

    /**
     * The delta from the last observation sent to {@code observation}, which becomes the new base.
     *
     * <p>Entries are compared in one walk over the two lists, which the protocol has in position
     * order: no map per step. Were an observation out of order, a position could come out both
     * removed and changed; removals apply first, so the runner still rebuilds the right entries.
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> delta(Map<String, Object> observation) {
        List<Object> after = (List<Object>) observation.get("entries");
        List<Object> changed = new ArrayList<>();
        List<Object> removed = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < after.size() || j < entries.size()) {
            Map<String, Object> now = i < after.size() ? (Map<String, Object>) after.get(i) : null;
            Map<String, Object> was = j < entries.size() ? (Map<String, Object>) entries.get(j) : null;
            int order = now == null ? 1 : was == null ? -1 : byPosition(now, was);
            if (order < 0) { // a new position
                changed.add(now);
                i++;
            } else if (order > 0) { // a position gone
                removed.add(List.of(was.get("ledger"), was.get("entry")));
                j++;
            } else { // the same position: sent again only if the row changed
                if (!now.equals(was)) {
                    changed.add(now);
                }
                i++;
                j++;
            }
        }
        Map<Object, Object> copiesAfter = copiesOf(observation);
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
        for (String whole : List.of("queue_length", "non_evictable_size")) { // sent in full, like size
            if (observation.get(whole) != null) {
                delta.put(whole, observation.get(whole));
            }
        }
        return delta;
    }

    /** Position order of two entry rows: by ledger, then entry. */
    private static int byPosition(Map<String, Object> a, Map<String, Object> b) {
        int ledger = Long.compare(number(a, "ledger"), number(b, "ledger"));
        return ledger != 0 ? ledger : Long.compare(number(a, "entry"), number(b, "entry"));
    }

    private static long number(Map<String, Object> row, String field) {
        return ((Number) row.get(field)).longValue();
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
