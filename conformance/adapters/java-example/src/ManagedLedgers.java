import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import ledgerspec.protocol.Json;
import ledgerspec.protocol.NotAllowed;

/**
 * The managed-ledger layer in front of the cache (spec/cache/SPEC.md §3.2, capability
 * {@code managed_ledger}): what Pulsar's managed ledgers and their cursors tell the cache.
 *
 * <p>Written from the spec and the protocol page, for apache/pulsar's {@code ManagedLedgerImpl}
 * ({@code shouldCacheAddedEntry}, {@code invalidateEntriesUpToSlowestReaderPosition},
 * {@code deactivateCursor}), {@code OpAddEntry}, {@code RangeEntryCacheImpl.readFromStorage} and
 * {@code ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore} (PR #24623):
 *
 * <ul>
 *   <li>an append is stored, and cached only while the ledger has an active cursor, expecting one read
 *       per active cursor when {@code track_reads} ({@code cacheEvictionByExpectedReadCount}) is on,
 *       and with no read-count handler when it is off;
 *   <li>a cursor read takes hits from the cache and the rest from storage, one BookKeeper ledger at a
 *       time (a reopen after a close starts one); what storage returns is cached iff the reader's count
 *       (evaluated once per part, before the cursor moves past it; 0 with tracking off) is positive,
 *       and the reader's copy shares the cached entry's handler; then the cursor is at
 *       {@code last + 1};
 *   <li>with tracking off, a move of the slowest cursor, or any cursor leaving, invalidates the
 *       ledger's cache strictly before the slowest active cursor, or all of it when none is left;
 *   <li>a close removes the ledger's cache (forced: EVICTED) and its cursors; storage stays.
 * </ul>
 *
 * <p>The mode is read at each operation, so a run-time {@code configure} of {@code track_reads} counts
 * from the next one. Every operation checks all its preconditions (clock included) before it changes
 * anything. Storage per ledger: the first appended entry id and the sizes in order (appends are
 * contiguous), so a range check is O(1).
 */
final class ManagedLedgers {
    /**
     * A ledger's storage: entries {@code first .. first + sizes.size() - 1}, each with its size, and the
     * first entry of each BookKeeper ledger a reopen started.
     */
    private static final class Stored {
        final long first;
        final List<Long> sizes = new ArrayList<>();
        final List<Long> reopens = new ArrayList<>();

        Stored(long first) {
            this.first = first;
        }

        long next() {
            return first + sizes.size();
        }

        boolean has(long from, long to) {
            return from >= first && to < next();
        }

        long size(long entry) {
            return sizes.get((int) (entry - first));
        }

        /** The reopens inside {@code (from, to]}, where a read of {@code [from, to]} is cut. */
        List<Long> cuts(long from, long to) {
            List<Long> cuts = new ArrayList<>();
            for (long start : reopens) {
                if (from < start && start <= to) {
                    cuts.add(start);
                }
            }
            return cuts;
        }
    }

    private final Pip430Cache cache;
    private final Cursors cursors = new Cursors();
    private final Map<Long, Stored> storage = new HashMap<>();

    ManagedLedgers(Pip430Cache cache) {
        this.cache = cache;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new NotAllowed(message);
        }
    }

    private static String name(long ledger, String cursor) {
        return "cursor " + Json.write(cursor) + " of ledger " + ledger;
    }

    /** Tracking mode, or legacy mode (no counts; invalidation below the slowest cursor). */
    private boolean legacyMode() {
        return !cache.tracksReads();
    }

    // --- the managed ledger ----------------------------------------------------------------------

    /** {@code OpAddEntry}: store the ledger's next entry; cache it iff the ledger has an active cursor. */
    boolean append(long now, long ledger, long entry, long size) {
        cache.checkClock(now);
        require(size > 0, "append: size must be > 0, got " + size);
        Stored stored = storage.get(ledger);
        if (stored == null) {
            require(entry >= 0, "append: entry must be >= 0, got " + entry);
        } else {
            require(entry == stored.next(), "append: ledger " + ledger + " expects entry " + stored.next()
                    + " next, got " + entry);
        }
        cache.advance(now);
        storage.computeIfAbsent(ledger, l -> new Stored(entry)).sizes.add(size);
        int readers = cursors.active(ledger);
        if (readers == 0) {
            return false; // shouldCacheAddedEntry: no active cursor
        }
        return cache.insert(now, ledger, entry, size, legacyMode() ? null : (long) readers);
    }

    /**
     * A cursor reads {@code [position, last]}, one BookKeeper ledger at a time (a reopen starts one;
     * {@code OpReadEntry.checkReadCompletion}): each part's hits from the cache, the rest from storage
     * (cached iff the reader's count, taken at the part's start, is > 0), then the cursor moves past it.
     * One copy id or null per position, as a range read answers.
     */
    List<Long> cursorRead(long now, long ledger, String cursor, long last) {
        cache.checkClock(now);
        Long position = cursors.position(ledger, cursor);
        require(position != null, "cursor_read: " + name(ledger, cursor) + " is not active");
        require(position <= last, "cursor_read: " + name(ledger, cursor) + " is at " + position
                + ", after last=" + last);
        Stored stored = storage.get(ledger);
        require(stored != null && stored.has(position, last), "cursor_read: ledger " + ledger
                + " has not stored every entry of [" + position + ", " + last + "]");
        List<Long> copies = new ArrayList<>();
        long from = position;
        for (long cut : stored.cuts(position, last)) {
            copies.addAll(readPart(now, ledger, cursor, stored, from, cut - 1));
            from = cut;
        }
        copies.addAll(readPart(now, ledger, cursor, stored, from, last));
        return copies;
    }

    /** One BookKeeper ledger's part of a cursor read: hits, storage reads cached with the count, the move. */
    private List<Long> readPart(long now, long ledger, String cursor, Stored stored, long from, long to) {
        List<Long> copies = new ArrayList<>(cache.getRange(now, ledger, from, to));
        long count = cursorAnswer(ledger, cursor); // once, before the move
        if (count > 0) {
            for (int i = 0; i < copies.size(); i++) {
                if (copies.get(i) == null) {
                    long entry = from + i;
                    copies.set(i, cache.insertForReader(now, ledger, entry, stored.size(entry), count));
                }
            }
        }
        Long slowest = cursors.slowest(ledger);
        cursors.seek(ledger, cursor, to + 1);
        invalidate(now, ledger, slowest, false);
        return copies;
    }

    /**
     * {@code ManagedLedgerImpl.close}: the manager removes the ledger's cache; its cursors go. The next
     * append reopens it on a new BookKeeper ledger.
     */
    void ledgerClose(long now, long ledger) {
        Stored stored = storage.get(ledger);
        if (stored != null && !stored.sizes.isEmpty() && !stored.reopens.contains(stored.next())) {
            stored.reopens.add(stored.next());
        }
        cache.invalidateLedger(now, ledger);
        cursors.removeLedger(ledger);
    }

    // --- cursors ---------------------------------------------------------------------------------

    /** A cursor becomes active; nothing is invalidated by an arrival. */
    void cursorAdd(long now, long ledger, String cursor, long entry) {
        cache.checkClock(now);
        require(!cursors.isActive(ledger, cursor), "cursor_add: " + name(ledger, cursor) + " is already active");
        require(entry >= 0, "cursor_add: entry must be >= 0, got " + entry);
        cache.advance(now);
        cursors.add(ledger, cursor, entry);
    }

    /** A cursor is deactivated; in legacy mode the ledger is invalidated below the slowest, or cleared. */
    void cursorRemove(long now, long ledger, String cursor) {
        cache.checkClock(now);
        require(cursors.isActive(ledger, cursor), "cursor_remove: " + name(ledger, cursor) + " is not active");
        cache.advance(now);
        cursors.remove(ledger, cursor);
        invalidate(now, ledger, null, true);
    }

    /** A cursor moves; in legacy mode the ledger is invalidated below the slowest if that moved. */
    void cursorSeek(long now, long ledger, String cursor, long entry) {
        cache.checkClock(now);
        require(cursors.isActive(ledger, cursor), "cursor_seek: " + name(ledger, cursor) + " is not active");
        require(entry >= 0, "cursor_seek: entry must be >= 0, got " + entry);
        cache.advance(now);
        Long slowest = cursors.slowest(ledger);
        cursors.seek(ledger, cursor, entry);
        invalidate(now, ledger, slowest, false);
    }

    /**
     * {@code ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore()}: the count the cursor's reads use,
     * 0 for a cursor that is not active. With tracking off it is {@code isCacheReadEntry() ? 1 : 0}, and that
     * flag is off by default: 0.
     */
    long cursorCount(long now, long ledger, String cursor) {
        cache.advance(now);
        return cursorAnswer(ledger, cursor);
    }

    /** The count a cursor answers and its reads use: the container's, or 0 in legacy mode. */
    private long cursorAnswer(long ledger, String cursor) {
        return legacyMode() ? 0 : cursors.countAtOrBefore(ledger, cursor);
    }

    /**
     * {@code invalidateEntriesUpToSlowestReaderPosition}: nothing in tracking mode. In legacy mode, with
     * no active cursor left, the target is LATEST ({@code clear()} of the ledger's cache); otherwise,
     * when a cursor {@code left} or the slowest position moved from {@code before},
     * {@code invalidateEntries(slowest)}: strictly before it.
     */
    private void invalidate(long now, long ledger, Long before, boolean left) {
        if (!legacyMode()) {
            return;
        }
        Long slowest = cursors.slowest(ledger);
        if (slowest == null) {
            cache.invalidateLedger(now, ledger);
        } else if (left || !slowest.equals(before)) {
            cache.invalidateBefore(now, ledger, slowest);
        }
    }
}
