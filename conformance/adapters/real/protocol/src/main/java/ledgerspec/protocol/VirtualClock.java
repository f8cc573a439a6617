package ledgerspec.protocol;

/**
 * Maps the protocol's logical time onto the nanosecond stamps real code keeps, and back.
 *
 * <p>Real code stamps with {@code System.nanoTime()}. A harness rewrites each stamp the real code
 * wrote to {@link #stamp(long)} of the operation's {@code now}, and passes cutoffs computed the same
 * way, so every comparison the real code makes is one between logical times. Stamps live far below
 * the real clock: {@code base = nanoTime() at start - 2^61}, so any stamp the real code writes later
 * (a requeue inside an eviction pass) is at least {@code 2^61} above every logical stamp. That makes
 * it (a) recognisable by {@link #isReal(long)}, to be rewritten after the operation, and (b) newer than
 * any cutoff the harness passes, exactly as "now" is newer than {@code now - ttl} for a non-negative
 * TTL. Logical times must stay below {@code 2^60} (36 years of nanoseconds).
 */
public final class VirtualClock {
    /** The largest logical time accepted. */
    public static final long LIMIT = 1L << 60;

    private final long base = System.nanoTime() - (1L << 61);

    /** The stamp of a logical time. */
    public long stamp(long logical) {
        if (logical >= LIMIT || logical <= -LIMIT) {
            throw new NotAllowed("time " + logical + " is outside the harness clock's range (|t| < 2^60)");
        }
        return base + logical;
    }

    /** The logical time of a stamp. */
    public long logical(long stamp) {
        return stamp - base;
    }

    /** True for a stamp the real clock wrote, not one of {@link #stamp(long)}. */
    public boolean isReal(long stamp) {
        return stamp - base >= LIMIT;
    }
}
