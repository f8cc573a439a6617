package ledgerspec.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One operation of spec/cache/_ops.py off the wire, checked as the spec's {@code op_from_dict} checks
 * it (known kind, known fields, required fields, JSON types) before any is performed.
 */
public final class Op {
    /**
     * Fields of each operation besides {@code op} and {@code now}, as name:type. Types: int, num (int
     * or float), bool, str. Suffix {@code ?}: optional and may be null; {@code =}: optional (has a
     * default) but not null; none: required.
     */
    private static final Map<String, List<String>> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put("configure", List.of("max_size:int?", "watermark:num?", "ttl:int?", "ttl_max:int?",
                "max_requeue:int?", "extend_ttl:bool?", "track_reads:bool?"));
        OPERATIONS.put("insert", List.of("ledger:int", "entry:int", "size:int", "expected_reads:int?"));
        OPERATIONS.put("get", List.of("ledger:int", "entry:int"));
        OPERATIONS.put("get_range", List.of("ledger:int", "first:int", "last:int"));
        OPERATIONS.put("release", List.of("copy:int"));
        OPERATIONS.put("replay_increment", List.of("copy:int"));
        OPERATIONS.put("invalidate_before", List.of("ledger:int", "entry:int"));
        OPERATIONS.put("invalidate_ledger", List.of("ledger:int"));
        OPERATIONS.put("clear", List.of());
        OPERATIONS.put("evict_timestamp", List.of());
        OPERATIONS.put("evict_size", List.of());
        OPERATIONS.put("evict_bytes", List.of("bytes:int"));
        OPERATIONS.put("evict_before", List.of("cutoff:int"));
        OPERATIONS.put("remove_range", List.of("ledger:int", "first:int", "last:int", "inclusive:bool"));
        OPERATIONS.put("cursor_add", List.of("ledger:int", "cursor:str", "entry:int"));
        OPERATIONS.put("cursor_remove", List.of("ledger:int", "cursor:str"));
        OPERATIONS.put("cursor_seek", List.of("ledger:int", "cursor:str", "entry:int"));
        OPERATIONS.put("cursor_count", List.of("ledger:int", "cursor:str"));
        OPERATIONS.put("append", List.of("ledger:int", "entry:int", "size:int"));
        OPERATIONS.put("cursor_read", List.of("ledger:int", "cursor:str", "last:int"));
        OPERATIONS.put("ledger_close", List.of("ledger:int"));
    }

    private final Map<String, Object> fields;

    private Op(Map<String, Object> fields) {
        this.fields = fields;
    }

    /** Check an operation's kind, fields and field types; {@code where} names it in errors. */
    public static Op check(Map<String, Object> op, String where) {
        Object kind = op.get("op");
        List<String> known = OPERATIONS.get(kind instanceof String ? (String) kind : "");
        if (known == null) {
            throw new BadRequest(where + ": unknown operation " + CacheConfig.describe(kind) + "; known: "
                    + String.join(", ", OPERATIONS.keySet()));
        }
        List<String> all = new ArrayList<>(known);
        all.add("now:int");
        for (String name : op.keySet()) {
            if (!name.equals("op") && all.stream().noneMatch(f -> f.startsWith(name + ":"))) {
                throw new BadRequest(where + ": " + kind + " has no field " + name);
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
                    throw new BadRequest(where + ": " + kind + " needs field " + name);
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
                throw new BadRequest(where + ": field " + name + " of " + kind + ": expected " + type
                        + (nullable ? " or null" : "") + ", got " + CacheConfig.describe(value));
            }
        }
        return new Op(op);
    }

    /** The operation's kind: {@code insert}, {@code get}, ... */
    public String kind() {
        return (String) fields.get("op");
    }

    /** The logical clock of the operation, in nanoseconds. */
    public long now() {
        return (Long) fields.get("now");
    }

    /** An integer field (checked present, unless it has a default: then use {@link #num(String, long)}). */
    public long num(String name) {
        return (Long) fields.get(name);
    }

    /** An integer field with a default. */
    public long num(String name, long otherwise) {
        Object value = fields.get(name);
        return value == null ? otherwise : (Long) value;
    }

    /** Whether a field is present and null (an insert's {@code expected_reads}: an entry without a handler). */
    public boolean isNull(String name) {
        return fields.containsKey(name) && fields.get(name) == null;
    }

    /** A boolean field. */
    public boolean bool(String name) {
        return (Boolean) fields.get(name);
    }

    /** A string field. */
    public String str(String name) {
        return (String) fields.get(name);
    }

    /** The fields a {@code configure} operation sets (null ones leave the field as it is). */
    public Map<String, Object> changes() {
        Map<String, Object> changes = new LinkedHashMap<>(fields);
        changes.remove("op");
        changes.remove("now");
        return changes;
    }
}
