import java.io.IOException;
import java.util.List;
import java.util.Map;
import ledgerspec.protocol.CacheConfig;
import ledgerspec.protocol.Loop;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Op;
import ledgerspec.protocol.Target;

/**
 * The example's adapter: process protocol v1 (the shared {@link Loop}) in front of a {@link Pip430Cache}
 * and the {@link ManagedLedgers} that drive it.
 *
 * <p>The loop reads requests, checks each operation as the spec's {@code op_from_dict} does, answers
 * deltas and turns exceptions into {@code errored} replies; this class only names the implementation
 * and maps each operation onto the cache or, for the cursors and the managed ledgers, onto the layer.
 */
public final class Harness implements Target {
    private static final List<String> CAPABILITIES = List.of("cursors", "configure", "get_range",
            "replay_increment", "observe_counts", "observe_timestamps", "observe_copies", "evict_bytes",
            "remove_range", "observe_evictions", "observe_hit_bytes", "observe_non_evictable_size",
            "managed_ledger", "switch_track_reads");

    private Pip430Cache cache;
    private ManagedLedgers ledgers;

    public static void main(String[] args) throws IOException {
        Loop.run(new Harness());
    }

    @Override
    public Map<String, Object> implementation() {
        return Target.describe("java-example-pip430", "0.1.0", List.of("pip430"), CAPABILITIES, null);
    }

    @Override
    public void configure(CacheConfig config) {
        cache = new Pip430Cache(config);
        ledgers = new ManagedLedgers(cache);
    }

    @Override
    public Map<String, Object> observe() {
        return cache.observe();
    }

    @Override
    public Object perform(Op op) {
        long now = op.now();
        return switch (op.kind()) {
            case "configure" -> none(() -> cache.configure(now, op.changes()));
            case "insert" -> cache.insert(now, op.num("ledger"), op.num("entry"), op.num("size"),
                    op.isNull("expected_reads") ? null : op.num("expected_reads", 0));
            case "get" -> cache.get(now, op.num("ledger"), op.num("entry"));
            case "get_range" -> cache.getRange(now, op.num("ledger"), op.num("first"), op.num("last"));
            case "release" -> none(() -> cache.release(now, op.num("copy")));
            case "replay_increment" -> cache.replayIncrement(now, op.num("copy"));
            case "invalidate_before" -> none(() -> cache.invalidateBefore(now, op.num("ledger"), op.num("entry")));
            case "invalidate_ledger" -> none(() -> cache.invalidateLedger(now, op.num("ledger")));
            case "clear" -> none(() -> cache.clear(now));
            case "evict_timestamp" -> none(() -> cache.evictTimestamp(now));
            case "evict_size" -> none(() -> cache.evictSize(now));
            case "evict_bytes" -> cache.evictBytes(now, op.num("bytes"));
            case "remove_range" -> cache.removeRange(now, op.num("ledger"), op.num("first"), op.num("last"),
                    op.bool("inclusive"));
            case "cursor_add" -> none(() -> ledgers.cursorAdd(now, op.num("ledger"), op.str("cursor"), op.num("entry")));
            case "cursor_remove" -> none(() -> ledgers.cursorRemove(now, op.num("ledger"), op.str("cursor")));
            case "cursor_seek" -> none(() -> ledgers.cursorSeek(now, op.num("ledger"), op.str("cursor"),
                    op.num("entry")));
            case "cursor_count" -> ledgers.cursorCount(now, op.num("ledger"), op.str("cursor"));
            case "append" -> ledgers.append(now, op.num("ledger"), op.num("entry"), op.num("size"));
            case "cursor_read" -> ledgers.cursorRead(now, op.num("ledger"), op.str("cursor"), op.num("last"));
            case "ledger_close" -> none(() -> ledgers.ledgerClose(now, op.num("ledger")));
            default -> throw new NotAllowed("unknown operation " + op.kind());
        };
    }

    private static Object none(Runnable operation) {
        operation.run();
        return null;
    }
}
