import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The active cursors of every ledger, for {@code getNumberOfCursorsAtSamePositionOrBefore}.
 *
 * <p>Per ledger a sorted multiset of read positions (position to number of cursors there), plus the
 * position of each (ledger, name). The count of a cursor is the number of active cursors of its ledger
 * at a position at or before its own, itself included; 0 for a cursor that is not active.
 *
 * <p>Complexity: add, remove, seek O(log d); count O(d') where d' is the number of distinct positions
 * at or before the cursor; active O(d); slowest O(log d); removing a ledger's cursors O(all cursors) (a broker has few subscriptions per topic, so no order-statistics tree).
 */
final class Cursors {
    private record Key(long ledger, String name) {}

    private final Map<Key, Long> positions = new HashMap<>();
    private final Map<Long, TreeMap<Long, Integer>> byLedger = new HashMap<>();

    boolean isActive(long ledger, String name) {
        return positions.containsKey(new Key(ledger, name));
    }

    void add(long ledger, String name, long entry) {
        positions.put(new Key(ledger, name), entry);
        byLedger.computeIfAbsent(ledger, l -> new TreeMap<>()).merge(entry, 1, Integer::sum);
    }

    void remove(long ledger, String name) {
        Long position = positions.remove(new Key(ledger, name));
        TreeMap<Long, Integer> sorted = byLedger.get(ledger);
        if (sorted.merge(position, -1, Integer::sum) == 0) {
            sorted.remove(position);
        }
        if (sorted.isEmpty()) {
            byLedger.remove(ledger);
        }
    }

    void seek(long ledger, String name, long entry) {
        remove(ledger, name);
        add(ledger, name, entry);
    }

    /** The read position of an active cursor, or null. */
    Long position(long ledger, String name) {
        return positions.get(new Key(ledger, name));
    }

    /** The number of active cursors of the ledger. */
    int active(long ledger) {
        TreeMap<Long, Integer> sorted = byLedger.get(ledger);
        int count = 0;
        for (int n : sorted == null ? List.<Integer>of() : sorted.values()) {
            count += n;
        }
        return count;
    }

    /** The position of the slowest active cursor of the ledger, or null when it has none. */
    Long slowest(long ledger) {
        TreeMap<Long, Integer> sorted = byLedger.get(ledger);
        return sorted == null ? null : sorted.firstKey();
    }

    /** Every cursor of the ledger goes (the ledger closed). */
    void removeLedger(long ledger) {
        positions.keySet().removeIf(key -> key.ledger() == ledger);
        byLedger.remove(ledger);
    }

    int countAtOrBefore(long ledger, String name) {
        Long position = positions.get(new Key(ledger, name));
        if (position == null) {
            return 0;
        }
        int count = 0;
        for (int n : byLedger.get(ledger).headMap(position, true).values()) {
            count += n;
        }
        return count;
    }
}
