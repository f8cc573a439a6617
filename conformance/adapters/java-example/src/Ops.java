import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operations of spec/cache/_ops.py on the wire: checking an operation object as the spec's
 * {@code op_from_dict} does (known kind, known fields, required fields, JSON types), and performing a
 * checked one on a {@link Pip430Cache}, with its result encoded as the protocol wants it.
 */
final class Ops {
    private Ops() {}

    /**
     * Fields of each operation besides {@code op} and {@code now} (spec/cache/_ops.py), as name:type.
     * Types: int, num (int or float), bool, str. Suffix {@code ?}: optional and may be null;
     * {@code =}: optional (has a default) but not null; none: required.
     */
    private static final Map<String, List<String>> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put("configure", List.of("max_size:int?", "watermark:num?", "ttl:int?", "ttl_max:int?",
                "max_requeue:int?", "extend_ttl:bool?"));
        OPERATIONS.put("insert", List.of("ledger:int", "entry:int", "size:int", "expected_reads:int="));
        OPERATIONS.put("get", List.of("ledger:int", "entry:int"));
        OPERATIONS.put("get_range", List.of("ledger:int", "first:int", "last:int"));
        OPERATIONS.put("release", List.of("copy:int"));
        OPERATIONS.put("replay_increment", List.of("copy:int"));
        OPERATIONS.put("invalidate_before", List.of("ledger:int", "entry:int"));
        OPERATIONS.put("invalidate_ledger", List.of("ledger:int"));
        OPERATIONS.put("clear", List.of());
        OPERATIONS.put("evict_timestamp", List.of());
        OPERATIONS.put("evict_size", List.of());
        OPERATIONS.put("cursor_add", List.of("ledger:int", "cursor:str", "entry:int"));
        OPERATIONS.put("cursor_remove", List.of("ledger:int", "cursor:str"));
        OPERATIONS.put("cursor_seek", List.of("ledger:int", "cursor:str", "entry:int"));
        OPERATIONS.put("cursor_count", List.of("ledger:int", "cursor:str"));
    }

    /** Check an operation's kind, fields and field types, as spec/cache/_ops.py op_from_dict does. */
    static Map<String, Object> check(Map<String, Object> op, String where) {
        Object kind = op.get("op");
        List<String> fields = OPERATIONS.get(kind instanceof String ? (String) kind : "");
        if (fields == null) {
            throw new Harness.BadRequest(where + ": unknown operation " + CacheConfig.describe(kind) + "; known: "
                    + String.join(", ", OPERATIONS.keySet()));
        }
        List<String> all = new ArrayList<>(fields);
        all.add("now:int");
        for (String name : op.keySet()) {
            if (!name.equals("op") && all.stream().noneMatch(f -> f.startsWith(name + ":"))) {
                throw new Harness.BadRequest(where + ": " + kind + " has no field " + name);
            }
        }
        for (String field : all) {
            String name = field.substring(0, field.indexOf(':'));
            String type = field.substring(field.indexOf(':') + 1);
            boolean nullable = type.endsWith("?");
            boolean optional = nullable || type.endsWith("=");
            type = optional ? type.substring(0, type.length() - 1) : type;
            if (!op.containsKey(name)) {
                if (!optional) {
                    throw new Harness.BadRequest(where + ": " + kind + " needs field " + name);
                }
                continue;
            }
            Object value = op.get(name);
            boolean ok = (value == null && nullable)
                    || (type.equals("int") && value instanceof Long)
                    || (type.equals("num") && (value instanceof Long || value instanceof Double))
                    || (type.equals("bool") && value instanceof Boolean)
                    || (type.equals("str") && value instanceof String);
            if (!ok) {
                throw new Harness.BadRequest(where + ": field " + name + " of " + kind + ": expected " + type
                        + (nullable ? " or null" : "") + ", got " + CacheConfig.describe(value));
            }
        }
        return op;
    }

    /** Perform one checked operation; its result as the protocol encodes it (null for none). */
    static Object perform(Pip430Cache cache, Map<String, Object> op) {
        long now = (Long) op.get("now");
        String cursor = (String) op.get("cursor");
        return switch ((String) op.get("op")) {
            case "configure" -> none(() -> cache.configure(now, changes(op)));
            case "insert" -> cache.insert(now, num(op, "ledger"), num(op, "entry"), num(op, "size"),
                    op.containsKey("expected_reads") ? num(op, "expected_reads") : 0);
            case "get" -> cache.get(now, num(op, "ledger"), num(op, "entry"));
            case "get_range" -> cache.getRange(now, num(op, "ledger"), num(op, "first"), num(op, "last"));
            case "release" -> none(() -> cache.release(now, num(op, "copy")));
            case "replay_increment" -> cache.replayIncrement(now, num(op, "copy"));
            case "invalidate_before" ->
                    none(() -> cache.invalidateBefore(now, num(op, "ledger"), num(op, "entry")));
            case "invalidate_ledger" -> none(() -> cache.invalidateLedger(now, num(op, "ledger")));
            case "clear" -> none(() -> cache.clear(now));
            case "evict_timestamp" -> none(() -> cache.evictTimestamp(now));
            case "evict_size" -> none(() -> cache.evictSize(now));
            case "cursor_add" -> none(() -> cache.cursorAdd(now, num(op, "ledger"), cursor, num(op, "entry")));
            case "cursor_remove" -> none(() -> cache.cursorRemove(now, num(op, "ledger"), cursor));
            case "cursor_seek" ->
                    none(() -> cache.cursorSeek(now, num(op, "ledger"), cursor, num(op, "entry")));
            case "cursor_count" -> cache.cursorCount(now, num(op, "ledger"), cursor);
            default -> throw new IllegalStateException("unreachable: " + op.get("op"));
        };
    }

    private static Object none(Runnable operation) {
        operation.run();
        return null;
    }

    /** The fields a configure operation sets (null ones are left as they are by the cache). */
    private static Map<String, Object> changes(Map<String, Object> op) {
        Map<String, Object> changes = new LinkedHashMap<>(op);
        changes.remove("op");
        changes.remove("now");
        return changes;
    }

    private static long num(Map<String, Object> op, String name) {
        return (Long) op.get(name);
    }
}
