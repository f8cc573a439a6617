package org.apache.bookkeeper.mledger.impl.cache;

import ledgerspec.protocol.Counters;

/**
 * The factory MBean counts every removal in one {@code evictedEntryCount}; the operation that moved it
 * says which kind it was: {@code evict_size} size eviction, {@code evict_timestamp} TTL, the
 * invalidations (and the managed-ledger layer's cursor steps and close), {@code clear}; any other operation
 * counts as size eviction.
 */
final class Removals {
    private long before;

    void reset() {
        before = 0;
    }

    /** Split the change of the MBean's count since the last call into {@code counters}. */
    void count(String kind, long evicted, Counters counters) {
        long delta = evicted - before;
        before = evicted;
        switch (kind) {
            case "evict_timestamp", "evict_before" -> counters.removedTtl += delta;
            case "invalidate_before", "invalidate_ledger", "remove_range" -> counters.removedInvalidate += delta;
            // the managed-ledger layer's removals are invalidations: below the slowest cursor, or a closed ledger's
            case "cursor_add", "cursor_remove", "cursor_seek", "cursor_read", "ledger_close" ->
                    counters.removedInvalidate += delta;
            case "clear" -> counters.removedClear += delta;
            default -> counters.removedSize += delta;
        }
    }
}
