package ledgerspec.protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cache's adapter loop: ledgerspec process protocol v1 (conformance/protocol/README.md) over stdin/stdout,
 * the line loop of {@link Lines} answering the cache's commands for one {@link Target}.
 */
public final class Loop {
    private final Target target;
    private final String name;
    private final Deltas deltas = new Deltas();
    private boolean configured;

    private Loop(Target target) {
        this.target = target;
        this.name = String.valueOf(target.implementation().get("name"));
    }

    /** Serve stdin until {@code stop} or its end, then exit 0. */
    public static void run(Target target) throws IOException {
        Loop loop = new Loop(target);
        Lines.run(loop.name, loop::command);
    }

    private Object command(Object cmd, Map<String, Object> request) {
        if ("start".equals(cmd)) {
            if (!Long.valueOf(1).equals(request.get("version"))) {
                throw new BadRequest("unsupported protocol version " + CacheConfig.describe(request.get("version"))
                        + "; this adapter speaks version 1");
            }
            Map<String, Object> implementation = new LinkedHashMap<>(target.implementation());
            implementation.put("observation_deltas", Boolean.TRUE);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("version", 1L);
            result.put("implementation", implementation);
            return result;
        }
        if ("configure".equals(cmd)) {
            configured = false;
            target.configure(CacheConfig.fromJson(Lines.object(request.get("config"), "config")));
            configured = true;
            deltas.reset();
            return Map.of();
        }
        if ("apply".equals(cmd)) {
            return apply(request);
        }
        if ("observe".equals(cmd)) {
            requireConfigured();
            return deltas.sentFull(target.observe());
        }
        if ("stop".equals(cmd)) {
            return Map.of();
        }
        throw new BadRequest("unknown command " + CacheConfig.describe(cmd)
                + "; known: start, configure, apply, observe, stop");
    }

    private void requireConfigured() {
        if (!configured) {
            throw new BadRequest("no cache: send configure first");
        }
    }

    private Map<String, Object> apply(Map<String, Object> request) {
        requireConfigured();
        if (!(request.get("ops") instanceof List) || ((List<?>) request.get("ops")).isEmpty()) {
            throw new BadRequest("apply needs a non-empty list of ops");
        }
        Object observe = request.getOrDefault("observe", Boolean.FALSE);
        if (!(observe instanceof Boolean) && !"delta".equals(observe)) {
            throw new BadRequest("observe must be a boolean or \"delta\", got " + CacheConfig.describe(observe));
        }
        // check every operation before applying any, so a malformed batch changes nothing
        List<Op> ops = new ArrayList<>();
        for (Object op : (List<?>) request.get("ops")) {
            String where = "ops[" + ops.size() + "]";
            ops.add(Op.check(Lines.object(op, where), where));
        }
        List<Object> results = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            try {
                results.add(target.perform(op));
            } catch (RuntimeException error) {
                String message = Lines.describe(error);
                String prefix = "ops[" + i + "]: " + (message.startsWith(op.kind() + ":") ? "" : op.kind() + ": ");
                String applied = i > 0 ? " (ops[0.." + (i - 1) + "] were applied)" : "";
                throw new BadRequest(prefix + message + applied, error);
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("results", results);
        if ("delta".equals(observe)) {
            result.put("delta", deltas.delta(target.observe()));
        } else if ((Boolean) observe) {
            result.put("observation", deltas.sentFull(target.observe()));
        }
        return result;
    }
}
