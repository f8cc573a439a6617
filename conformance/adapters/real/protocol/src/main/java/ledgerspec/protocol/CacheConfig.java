package ledgerspec.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cache configuration of spec/cache/_config.py: the same fields, defaults and ranges.
 *
 * <p>Sizes are bytes and times nanoseconds of the logical clock. {@code watermark} and {@code trigger}
 * keep the JSON number they arrived as: a {@code Long} (0 or 1) multiplies exactly, a {@code Double}
 * as Java's {@code (long)(maxSize * fraction)}, which is what the spec's {@code int(max_size * f)}
 * computes for a float {@code f}. Immutable: a run-time change makes a new value.
 */
public final class CacheConfig {
    public static final long MIB = 1024L * 1024L;
    public static final long NANOS_PER_MILLI = 1_000_000L;

    public final long maxSize;
    public final Number watermark;
    public final Number trigger;
    public final long ttl;
    public final long ttlMax;
    public final long maxRequeue;
    public final boolean extendTtl;
    /** {@code cacheEvictionByExpectedReadCount} of the managed-ledger layer (capability managed_ledger). */
    public final boolean trackReads;
    public final long segmentSizeMax;

    private CacheConfig(long maxSize, Number watermark, Number trigger, long ttl, long ttlMax,
                        long maxRequeue, boolean extendTtl, boolean trackReads, long segmentSizeMax) {
        this.maxSize = maxSize;
        this.watermark = watermark;
        this.trigger = trigger;
        this.ttl = ttl;
        this.ttlMax = ttlMax;
        this.maxRequeue = maxRequeue;
        this.extendTtl = extendTtl;
        this.trackReads = trackReads;
        this.segmentSizeMax = segmentSizeMax;
    }

    /** The spec's defaults. */
    public static CacheConfig defaults() {
        return new CacheConfig(128 * MIB, 0.9, 0.98, 1000 * NANOS_PER_MILLI, 5000 * NANOS_PER_MILLI, 5, true,
                true, 1024 * MIB);
    }

    /** {@code (long)(maxSize * trigger)}: size eviction runs only above it. */
    public long triggerSize() {
        return fractionOf(maxSize, trigger);
    }

    /** {@code (long)(maxSize * watermark)}: size eviction frees down to it. */
    public long watermarkSize() {
        return fractionOf(maxSize, watermark);
    }

    private static long fractionOf(long max, Number fraction) {
        if (fraction instanceof Long) {
            return max * fraction.longValue(); // validated: 0 or 1, exact as Python's int product
        }
        return (long) (max * fraction.doubleValue());
    }

    /** The configuration of the {@code configure} command: defaults overridden by the given fields. */
    public static CacheConfig fromJson(Map<String, Object> fields) {
        return defaults().with(fields, true);
    }

    /**
     * A copy with some fields changed. {@code initial} allows every field (the {@code configure}
     * command); otherwise only the run-time fields of the {@code configure} operation. A null value
     * leaves the field as it is. Every problem is reported at once.
     */
    public CacheConfig with(Map<String, Object> changes, boolean initial) {
        long maxSize = this.maxSize;
        Number watermark = this.watermark;
        Number trigger = this.trigger;
        long ttl = this.ttl;
        long ttlMax = this.ttlMax;
        long maxRequeue = this.maxRequeue;
        boolean extendTtl = this.extendTtl;
        boolean trackReads = this.trackReads;
        long segmentSizeMax = this.segmentSizeMax;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Object> change : changes.entrySet()) {
            String name = change.getKey();
            Object value = change.getValue();
            if (value == null && !initial) {
                continue;
            }
            switch (name) {
                case "max_size":
                    maxSize = integer(problems, name, value, 0, maxSize);
                    break;
                case "ttl":
                    ttl = integer(problems, name, value, 0, ttl);
                    break;
                case "ttl_max":
                    ttlMax = integer(problems, name, value, 0, ttlMax);
                    break;
                case "max_requeue":
                    maxRequeue = integer(problems, name, value, 0, maxRequeue);
                    break;
                case "watermark":
                    watermark = fraction(problems, name, value, watermark);
                    break;
                case "extend_ttl":
                    if (value instanceof Boolean) {
                        extendTtl = (Boolean) value;
                    } else {
                        problems.add("expected a bool for extend_ttl, got " + describe(value));
                    }
                    break;
                case "track_reads":
                    if (value instanceof Boolean) {
                        trackReads = (Boolean) value;
                    } else {
                        problems.add("expected a bool for track_reads, got " + describe(value));
                    }
                    break;
                case "trigger":
                case "segment_size_max":
                    if (initial) {
                        if (name.equals("trigger")) {
                            trigger = fraction(problems, name, value, trigger);
                        } else {
                            segmentSizeMax = integer(problems, name, value, 1, segmentSizeMax);
                        }
                        break;
                    }
                    problems.add(name + " cannot be changed at run time");
                    break;
                default:
                    problems.add("unknown field " + name + "; known: max_size, watermark, trigger, ttl, ttl_max, "
                            + "max_requeue, extend_ttl, track_reads, segment_size_max");
            }
        }
        if (!problems.isEmpty()) {
            throw new NotAllowed("invalid configuration: " + String.join("; ", problems));
        }
        return new CacheConfig(maxSize, watermark, trigger, ttl, ttlMax, maxRequeue, extendTtl, trackReads,
                segmentSizeMax);
    }

    private static long integer(List<String> problems, String name, Object value, long low, long current) {
        if (value instanceof Long && (Long) value >= low) {
            return (Long) value;
        }
        problems.add("expected an int >= " + low + " for " + name + ", got " + describe(value));
        return current;
    }

    private static Number fraction(List<String> problems, String name, Object value, Number current) {
        if (value instanceof Long && ((Long) value == 0 || (Long) value == 1)) {
            return (Long) value;
        }
        if (value instanceof Double && (Double) value >= 0 && (Double) value <= 1) {
            return (Double) value;
        }
        problems.add("expected a number in [0, 1] for " + name + ", got " + describe(value));
        return current;
    }

    public static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        return Json.write(value) + " (" + value.getClass().getSimpleName() + ")";
    }

    @Override
    public String toString() {
        return "CacheConfig(max_size=" + maxSize + ", watermark=" + watermark + ", trigger=" + trigger + ", ttl="
                + ttl + ", ttl_max=" + ttlMax + ", max_requeue=" + maxRequeue + ", extend_ttl=" + extendTtl
                + ", track_reads=" + trackReads + ", segment_size_max=" + segmentSizeMax + ")";
    }
}
