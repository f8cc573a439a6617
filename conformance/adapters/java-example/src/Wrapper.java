/**
 * {@code RangeCacheEntryWrapper}: one cached entry's place in the removal queue or the stash of a
 * {@link Pip430Cache}. {@link #where} is {@link #GONE} once the entry left the cache: a tombstone, left
 * in the queue or stash until a pass or a compaction drops it.
 */
final class Wrapper {
    static final int QUEUED = 0;
    static final int STASHED = 1;
    static final int GONE = 2;

    final long ledger;
    final long entry;
    final long size;
    final long ts;
    final Handler handler;
    int where = QUEUED;

    Wrapper(long ledger, long entry, long size, long ts, Handler handler) {
        this.ledger = ledger;
        this.entry = entry;
        this.size = size;
        this.ts = ts;
        this.handler = handler;
    }
}
