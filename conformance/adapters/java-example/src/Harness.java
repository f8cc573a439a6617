import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The adapter loop: ledgerspec process protocol v1 (conformance/protocol/README.md) over stdin/stdout.
 *
 * <p>One JSON request per line in, exactly one reply line out (result, skipped or errored), echoing
 * {@code seq}, in one unbuffered write. Logs go to stderr; {@code System.out} is pointed at stderr too, so a stray
 * print can never corrupt the reply stream. Any exception while serving a request becomes an
 * {@code errored} reply with its message and stack trace, and the loop goes on. {@code stop} replies
 * and exits 0; so does the end of stdin.
 */
public final class Harness {
    private static final List<String> CAPABILITIES = List.of("cursors", "configure", "get_range",
            "replay_increment", "observe_counts", "observe_timestamps", "observe_copies");

    /** A malformed request: the runner sent something this adapter cannot act on. */
    static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }

        BadRequest(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private Pip430Cache cache;
    private final Deltas deltas = new Deltas();

    public static void main(String[] args) throws IOException {
        // Replies are ASCII (Json.write escapes the rest), so they go out as bytes, with no writer
        // turning each line into chars and back.
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Harness harness = new Harness();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> reply = new LinkedHashMap<>();
            boolean stop = harness.serve(line, reply);
            // One write of the whole line (a reply split in two wakes the runner twice); the stream
            // is unbuffered, so the line is on the pipe when the call returns.
            out.write((Json.write(reply) + "\n").getBytes(StandardCharsets.US_ASCII));
            if (stop) {
                break;
            }
        }
        System.err.println("java-example-pip430: exiting");
        System.exit(0);
    }

    /** Fill the reply to one request line; true if the process should exit after sending it. */
    boolean serve(String line, Map<String, Object> reply) {
        reply.put("seq", null);
        try {
            Object parsed = Json.parse(line);
            if (!(parsed instanceof Map)) {
                throw new BadRequest("a request must be a JSON object, got " + line);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> request = (Map<String, Object>) parsed;
            Object seq = request.get("seq");
            if (!(seq instanceof Long || seq instanceof String)) {
                throw new BadRequest("a request needs a seq (integer or string), got " + CacheConfig.describe(seq));
            }
            reply.put("seq", seq);
            Object cmd = request.get("cmd");
            reply.put("result", command(cmd, request));
            return "stop".equals(cmd);
        } catch (Exception | StackOverflowError error) {
            reply.remove("result");
            Map<String, Object> errored = new LinkedHashMap<>();
            errored.put("message", describe(error));
            StringWriter trace = new StringWriter();
            error.printStackTrace(new PrintWriter(trace));
            errored.put("traceback", trace.toString());
            reply.put("errored", errored);
            System.err.println("java-example-pip430: errored: " + describe(error));
            return false;
        }
    }

    private Object command(Object cmd, Map<String, Object> request) {
        if ("start".equals(cmd)) {
            if (!Long.valueOf(1).equals(request.get("version"))) {
                throw new BadRequest("unsupported protocol version " + CacheConfig.describe(request.get("version"))
                        + "; this adapter speaks version 1");
            }
            Map<String, Object> implementation = new LinkedHashMap<>();
            implementation.put("name", "java-example-pip430");
            implementation.put("version", "0.1.0");
            implementation.put("language", "java");
            implementation.put("profiles", List.of("pip430"));
            implementation.put("capabilities", CAPABILITIES);
            implementation.put("observation_deltas", Boolean.TRUE);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("version", 1L);
            result.put("implementation", implementation);
            return result;
        }
        if ("configure".equals(cmd)) {
            cache = new Pip430Cache(CacheConfig.fromJson(object(request.get("config"), "config")));
            deltas.reset();
            return Map.of();
        }
        if ("apply".equals(cmd)) {
            return apply(request);
        }
        if ("observe".equals(cmd)) {
            return deltas.sentFull(requireCache().observe());
        }
        if ("stop".equals(cmd)) {
            cache = null;
            return Map.of();
        }
        throw new BadRequest("unknown command " + CacheConfig.describe(cmd)
                + "; known: start, configure, apply, observe, stop");
    }

    private Pip430Cache requireCache() {
        if (cache == null) {
            throw new BadRequest("no cache: send configure first");
        }
        return cache;
    }

    private Map<String, Object> apply(Map<String, Object> request) {
        Pip430Cache target = requireCache();
        if (!(request.get("ops") instanceof List) || ((List<?>) request.get("ops")).isEmpty()) {
            throw new BadRequest("apply needs a non-empty list of ops");
        }
        Object observe = request.getOrDefault("observe", Boolean.FALSE);
        if (!(observe instanceof Boolean) && !"delta".equals(observe)) {
            throw new BadRequest("observe must be a boolean or \"delta\", got " + CacheConfig.describe(observe));
        }
        // check every operation before applying any, so a malformed batch changes nothing
        List<Map<String, Object>> ops = new ArrayList<>();
        for (Object op : (List<?>) request.get("ops")) {
            ops.add(Ops.check(object(op, "ops[" + ops.size() + "]"), "ops[" + ops.size() + "]"));
        }
        List<Object> results = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Map<String, Object> op = ops.get(i);
            try {
                results.add(Ops.perform(target, op));
            } catch (RuntimeException error) {
                String message = describe(error);
                String kind = (String) op.get("op");
                String prefix = "ops[" + i + "]: " + (message.startsWith(kind + ":") ? "" : kind + ": ");
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

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String where) {
        if (!(value instanceof Map)) {
            throw new BadRequest(where + " must be a JSON object, got " + CacheConfig.describe(value));
        }
        return (Map<String, Object>) value;
    }

    /** Our own errors speak for themselves; anything else keeps its class name. */
    private static String describe(Throwable error) {
        if (error instanceof BadRequest || error instanceof Pip430Cache.PreconditionFailed
                || error instanceof Json.ParseError) {
            return error.getMessage();
        }
        return error.toString();
    }
}
