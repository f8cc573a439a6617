/**
 * The PIP text's read-count handler of a cached entry: a live count, or the final EVICTED sentinel.
 * {@link #NONE} stands for an entry created without a handler: nothing to count, always evictable.
 * The entry and every copy dispatched from it share one handler, so a release through a copy is a
 * read of the entry (spec/cache/SPEC.md §2, "Why copies are state").
 */
final class Handler {
    /** {@code EVICTED_VALUE = Integer.MIN_VALUE / 2}. */
    static final long EVICTED = Integer.MIN_VALUE / 2;

    static final Handler NONE = new Handler(0);

    long count;

    Handler(long count) {
        this.count = count;
    }

    /** The count an observation shows: null without a handler. */
    Long shown() {
        return this == NONE ? null : count;
    }

    /** {@code incrementExpectedReadCount(n)}: refused, unchanged, once EVICTED (or without a handler). */
    boolean increment(long n) {
        if (this == NONE || count == EVICTED) {
            return false;
        }
        count = Math.addExact(count, n);
        return true;
    }

    /** {@code markRead()}: EVICTED is final; a live count drops by one, with no floor. */
    void markRead() {
        if (this != NONE && count != EVICTED) {
            count--;
        }
    }

    /** {@code markEvicted()}: unconditional. */
    void markEvicted() {
        if (this != NONE) {
            count = EVICTED;
        }
    }

    /** {@code canEvict()}: no handler, or a count of at most 0 (EVICTED is negative). */
    boolean canEvict() {
        return count <= 0;
    }
}
