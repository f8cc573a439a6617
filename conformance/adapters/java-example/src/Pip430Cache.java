import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Counters;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Observation;

/**
 * The broker entry cache as the PIP-430 text states it: profile {@code pip430} of spec/cache/SPEC.md §5.1.
 *
 * <p>One broker-wide FIFO removal queue with a stash beside it; two TTLs ({@code ttl} for entries that
 * may go by their read count, {@code ttl_max} for protected ones); a final EVICTED state set by
 * {@code markEvicted} on forced removal; a duplicate insert merges its expected reads into the cached
 * entry. Every entry has a read-count handler unless created without one. Time is only ever the
 * {@code now} of an operation.
 *
 * <p>Structures: per ledger a {@code TreeMap} from entry id to wrapper (lookups, ranges, invalidation);
 * an {@code ArrayDeque} queue and an {@code ArrayList} stash of wrappers. A forced removal unmaps the
 * wrapper and leaves it queued or stashed as a tombstone ({@link Wrapper#where} = GONE), dropped when a
 * pass reaches it, or by a compaction when tombstones outnumber live wrappers. Stash followed by queue is
 * always insertion order, hence timestamp order.
 *
 * <p>Every operation checks its preconditions before it changes anything (the clock included), and
 * throws {@link NotAllowed} when one does not hold: the spec's "not allowed". The cursors and the
 * storage are the managed-ledger layer's ({@link ManagedLedgers}), which tells this cache what to do.
 */
final class Pip430Cache {
    private static final int COMPACT_AT = 1024;

    private CacheConfig config;
    /** {@code EntryCacheDisabled}: decided when the cache is created ({@code max_size == 0}), never later. */
    private final boolean disabled;
    private long now;

    private final TreeMap<Long, TreeMap<Long, Wrapper>> ledgers = new TreeMap<>();
    private long size;
    private ArrayDeque<Wrapper> queue = new ArrayDeque<>();
    private int queueTombstones;
    private ArrayList<Wrapper> stash = new ArrayList<>();
    private int stashTombstones;

    /** Open dispatched copies by id (ids only grow, so insertion order is id order). */
    private final LinkedHashMap<Long, Handler> copies = new LinkedHashMap<>();
    private long nextCopy;

    private final Counters counters = new Counters();
    /** {@code recordCacheEviction()}: size eviction runs that had bytes to free. */
    private long evictions;
    /** {@code getCacheHitsBytesTotal}: the accounted size of every hit. */
    private long hitBytes;

    Pip430Cache(CacheConfig config) {
        this.config = config;
        this.disabled = config.maxSize == 0;
    }

    // --- helpers ---------------------------------------------------------------------------------

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new NotAllowed(message);
        }
    }

    /** The clock does not go back: the precondition of every operation, checked before any change. */
    void checkClock(long now) {
        require(now >= this.now, "now must not go back: got " + now + ", last accepted " + this.now);
    }

    /** The clock moves to {@code now}: an operation of the managed-ledger layer that leaves the cache alone. */
    void advance(long now) {
        checkClock(now);
        this.now = now;
    }

    /** {@code cacheEvictionByExpectedReadCount} as configured now (a run-time change counts at once). */
    boolean tracksReads() {
        return config.trackReads;
    }

    private Wrapper cached(long ledger, long entry) {
        TreeMap<Long, Wrapper> entries = ledgers.get(ledger);
        return entries == null ? null : entries.get(entry);
    }

    /** Take a wrapper out of the position maps and the size; it must be mapped. */
    private void unmap(Wrapper w) {
        TreeMap<Long, Wrapper> entries = ledgers.get(w.ledger);
        entries.remove(w.entry);
        if (entries.isEmpty()) {
            ledgers.remove(w.ledger);
        }
        size -= w.size;
    }

    /** The live head of the queue, dropping the tombstones in front of it; null if none. */
    private Wrapper peekLive() {
        Wrapper head;
        while ((head = queue.peekFirst()) != null && head.where == Wrapper.GONE) {
            queue.pollFirst();
            queueTombstones--;
        }
        return head;
    }

    private void stashAdd(Wrapper w) {
        w.where = Wrapper.STASHED;
        stash.add(w);
    }

    // --- insert and reads ------------------------------------------------------------------------

    /** {@code RangeEntryCacheImpl.insert} of the PIP text: true iff a new entry was cached. */
    boolean insert(long now, long ledger, long entry, long size, Long expectedReads) {
        checkClock(now);
        require(size > 0, "insert: size must be > 0, got " + size);
        require(expectedReads == null || expectedReads >= 0,
                "insert: expected_reads must be >= 0, got " + expectedReads);
        this.now = now;
        if (disabled) {
            return false;
        }
        Wrapper previous = cached(ledger, entry);
        if (previous != null) {
            if (expectedReads != null) {
                previous.handler.increment(expectedReads); // merge; refused if EVICTED or without a handler
            }
            return false;
        }
        long total = Math.addExact(this.size, size);
        Wrapper w = new Wrapper(ledger, entry, size, now,
                expectedReads == null ? Handler.NONE : new Handler(expectedReads));
        ledgers.computeIfAbsent(ledger, l -> new TreeMap<>()).put(entry, w);
        this.size = total;
        queue.addLast(w);
        counters.inserted++;
        return true;
    }

    private Long readOne(long ledger, long entry) {
        Wrapper w = cached(ledger, entry);
        if (w == null) {
            counters.misses++;
            return null;
        }
        counters.hits++;
        hitBytes += w.size;
        return dispatch(w.handler);
    }

    /** A copy of an entry, sharing its handler: the next copy id. */
    private long dispatch(Handler handler) {
        long copy = nextCopy++;
        copies.put(copy, handler);
        return copy;
    }

    /**
     * An entry read from storage ({@code readFromStorage}): inserted with {@code expectedReads}, and if
     * cached, handed to the reader as a copy sharing its handler (the same {@code EntryImpl}: no hit,
     * the read was a miss). Returns the copy id, or null if it was not cached.
     */
    Long insertForReader(long now, long ledger, long entry, long size, long expectedReads) {
        if (!insert(now, ledger, entry, size, expectedReads)) {
            return null;
        }
        return dispatch(cached(ledger, entry).handler);
    }

    /** A hit dispatches a copy sharing the entry's handler: its id; a miss: null. */
    Long get(long now, long ledger, long entry) {
        checkClock(now);
        this.now = now;
        return readOne(ledger, entry);
    }

    /** Each position of [first, last], in order, as {@link #get}. */
    List<Long> getRange(long now, long ledger, long first, long last) {
        checkClock(now);
        require(first <= last, "get_range: first must be <= last, got first=" + first + ", last=" + last);
        this.now = now;
        List<Long> result = new ArrayList<>();
        for (long entry = first; ; entry++) {
            result.add(readOne(ledger, entry));
            if (entry == last) {
                return result;
            }
        }
    }

    private Handler openCopy(long copy, String where) {
        Handler handler = copies.get(copy);
        require(handler != null, where + ": copy " + copy + " is not an open copy");
        return handler;
    }

    /** Releasing a dispatched copy: {@code markRead()}. */
    void release(long now, long copy) {
        checkClock(now);
        Handler handler = openCopy(copy, "release");
        this.now = now;
        copies.remove(copy);
        handler.markRead();
    }

    /** {@code incrementExpectedReadCount()} through a copy: false, unchanged, once EVICTED. */
    boolean replayIncrement(long now, long copy) {
        checkClock(now);
        Handler handler = openCopy(copy, "replay_increment");
        this.now = now;
        return handler.increment(1);
    }

    // --- forced removal: markEvicted -------------------------------------------------------------

    private void forceRemove(Iterable<Wrapper> doomed, boolean clear) {
        for (Wrapper w : doomed) {
            w.handler.markEvicted();
            size -= w.size;
            if (w.where == Wrapper.QUEUED) {
                queueTombstones++;
            } else if (w.where == Wrapper.STASHED) {
                stashTombstones++;
            }
            w.where = Wrapper.GONE;
            if (clear) {
                counters.removedClear++;
            } else {
                counters.removedInvalidate++;
            }
        }
        if (queueTombstones > COMPACT_AT && queueTombstones > queue.size() / 2) {
            ArrayDeque<Wrapper> live = new ArrayDeque<>();
            for (Wrapper w : queue) {
                if (w.where != Wrapper.GONE) {
                    live.addLast(w);
                }
            }
            queue = live;
            queueTombstones = 0;
        }
        if (stashTombstones > COMPACT_AT && stashTombstones > stash.size() / 2) {
            stash.removeIf(w -> w.where == Wrapper.GONE);
            stashTombstones = 0;
        }
    }

    /** {@code invalidateEntries(pos)}: every entry of the ledger strictly before the position. */
    void invalidateBefore(long now, long ledger, long entry) {
        checkClock(now);
        this.now = now;
        TreeMap<Long, Wrapper> entries = ledgers.get(ledger);
        if (entries == null) {
            return;
        }
        Map<Long, Wrapper> doomed = entries.headMap(entry, false);
        forceRemove(new ArrayList<>(doomed.values()), false);
        doomed.clear();
        if (entries.isEmpty()) {
            ledgers.remove(ledger);
        }
    }

    /**
     * {@code RangeCache.removeRange(first, last, lastInclusive)} of one ledger: a forced removal (EVICTED).
     * Returns what it freed: [entries, bytes].
     */
    List<Long> removeRange(long now, long ledger, long first, long last, boolean inclusive) {
        checkClock(now);
        require(first <= last, "remove_range: first must be <= last, got " + first + " > " + last);
        this.now = now;
        TreeMap<Long, Wrapper> entries = ledgers.get(ledger);
        if (entries == null) {
            return List.of(0L, 0L);
        }
        Map<Long, Wrapper> doomed = entries.subMap(first, true, last, inclusive);
        List<Wrapper> gone = new ArrayList<>(doomed.values());
        forceRemove(gone, false);
        doomed.clear();
        if (entries.isEmpty()) {
            ledgers.remove(ledger);
        }
        long bytes = 0;
        for (Wrapper w : gone) {
            bytes += w.size;
        }
        return List.of((long) gone.size(), bytes);
    }

    /** {@code invalidateAllEntries(ledgerId)}: every entry of the ledger. */
    void invalidateLedger(long now, long ledger) {
        checkClock(now);
        this.now = now;
        TreeMap<Long, Wrapper> entries = ledgers.remove(ledger);
        if (entries != null) {
            forceRemove(entries.values(), false);
        }
    }

    /** {@code clear()}: every entry; every queued or stashed wrapper is then a tombstone, so drop them. */
    void clear(long now) {
        checkClock(now);
        this.now = now;
        for (TreeMap<Long, Wrapper> entries : ledgers.values()) {
            forceRemove(entries.values(), true);
        }
        ledgers.clear();
        queue.clear();
        queueTombstones = 0;
        stash.clear();
        stashTombstones = 0;
    }

    // --- eviction (normal eviction does not call markEvicted) ------------------------------------

    /**
     * One timestamp pass, {@code evictEntries(predicate, processAllEntriesInStash=true)}: the whole stash
     * is scanned (expired entries go, the rest stay), then the queue from the head: REMOVE if
     * {@code ts < now - ttl_max} or (evictable by count and {@code ts < now - ttl}); STASH if only
     * {@code ts < now - ttl}; otherwise STOP.
     */
    void evictTimestamp(long now) {
        checkClock(now);
        this.now = now;
        long threshold = now - config.ttl;
        long thresholdMax = now - config.ttlMax;
        ArrayList<Wrapper> kept = new ArrayList<>(stash.size());
        for (Wrapper w : stash) {
            if (w.where == Wrapper.GONE) {
                continue;
            }
            if (w.ts < thresholdMax || (w.handler.canEvict() && w.ts < threshold)) {
                evict(w);
                counters.removedTtl++;
            } else {
                kept.add(w);
            }
        }
        stash = kept;
        stashTombstones = 0;
        Wrapper head;
        while ((head = peekLive()) != null) {
            if (head.ts < thresholdMax || (head.handler.canEvict() && head.ts < threshold)) {
                queue.pollFirst();
                evict(head);
                counters.removedTtl++;
            } else if (head.ts < threshold) {
                queue.pollFirst();
                stashAdd(head);
            } else {
                return;
            }
        }
    }

    private void evict(Wrapper w) {
        unmap(w);
        w.where = Wrapper.GONE;
    }

    /**
     * {@code doEvictToWatermarkWhenOverThreshold} then {@code evictEntries(sizeToEvict, now - ttl_max)}:
     * only above the trigger size; frees {@code size - watermark_size}, stash first, then queue; the pass
     * ends as soon as enough is freed. An entry goes if it is evictable by count or
     * {@code ts < now - ttl_max}; otherwise it is stashed (queue) or stays stashed (stash).
     */
    void evictSize(long now) {
        checkClock(now);
        this.now = now;
        if (size <= config.triggerSize()) {
            return;
        }
        long toFree = size - config.watermarkSize();
        if (toFree > 0) {
            free(toFree, now - config.ttlMax);
            evictions++;
        }
    }

    /**
     * {@code evictLeastAccessedEntries(bytes, now - ttl_max)} called directly, whatever the size: the size
     * pass's walk with its own target; {@code bytes > 0}. Returns what it freed: [entries, bytes].
     */
    List<Long> evictBytes(long now, long bytes) {
        checkClock(now);
        require(bytes > 0, "evict_bytes: bytes must be > 0, got " + bytes);
        this.now = now;
        return free(bytes, now - config.ttlMax);
    }

    /** Stash first, then queue, until {@code toFree} bytes are gone; returns [entries, bytes] freed. */
    private List<Long> free(long toFree, long expiry) {
        long removed = 0;
        long entries = 0;
        ArrayList<Wrapper> kept = new ArrayList<>(stash.size());
        Iterator<Wrapper> stashed = stash.iterator();
        while (stashed.hasNext()) {
            Wrapper w = stashed.next();
            if (w.where == Wrapper.GONE) {
                continue;
            }
            if (removed >= toFree) {
                kept.add(w);
                stashed.forEachRemaining(rest -> {
                    if (rest.where != Wrapper.GONE) {
                        kept.add(rest);
                    }
                });
                stash = kept;
                stashTombstones = 0;
                return List.of(entries, removed);
            }
            if (w.handler.canEvict() || w.ts < expiry) {
                evict(w);
                counters.removedSize++;
                removed += w.size;
                entries++;
            } else {
                kept.add(w);
            }
        }
        stash = kept;
        stashTombstones = 0;
        Wrapper head;
        while ((head = peekLive()) != null && removed < toFree) {
            queue.pollFirst();
            if (head.handler.canEvict() || head.ts < expiry) {
                evict(head);
                counters.removedSize++;
                removed += head.size;
                entries++;
            } else {
                stashAdd(head);
            }
        }
        return List.of(entries, removed);
    }

    // --- configuration ---------------------------------------------------------------------------

    /** Run-time configuration change; a null field is left as it is. */
    void configure(long now, Map<String, Object> changes) {
        checkClock(now);
        CacheConfig changed = config.with(changes, false);
        this.now = now;
        config = changed;
    }

    // --- observation -----------------------------------------------------------------------------

    /**
     * Entries by position with count and timestamp, total size, counters (with {@code evictions} and
     * {@code hit_bytes}), open copies by id, and {@code non_evictable_size}: the bytes of the entries
     * {@code canEvict()} refuses (count &gt; 0). The PIP text leaves the stash's queue length open, so
     * none is shown.
     */
    @SuppressWarnings("unchecked")
    Map<String, Object> observe() {
        Observation observation = new Observation();
        long nonEvictable = 0;
        for (TreeMap<Long, Wrapper> ledger : ledgers.values()) {
            for (Wrapper w : ledger.values()) {
                observation.entry(w.ledger, w.entry, w.size, w.handler.shown(), w.ts);
                nonEvictable += w.handler.canEvict() ? 0 : w.size;
            }
        }
        for (Map.Entry<Long, Handler> copy : copies.entrySet()) {
            observation.copy(copy.getKey(), copy.getValue().shown());
        }
        Map<String, Object> observed = observation.queue(null, nonEvictable).build(size, counters);
        Map<String, Object> shown = (Map<String, Object>) observed.get("counters");
        shown.put("evictions", evictions);
        shown.put("hit_bytes", hitBytes);
        return observed;
    }
}
