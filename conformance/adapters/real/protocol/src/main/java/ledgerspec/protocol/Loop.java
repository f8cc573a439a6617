package ledgerspec.protocol;

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
 * {@code seq}, in one unbuffered write. Logs go to stderr; {@code System.out} is pointed at stderr
 * first, so a stray print (or a logger writing to the console) can never corrupt the reply stream. Any
 * exception while serving a request, inside the target or the code it drives, becomes an
 * {@code errored} reply with its message and stack trace, and the loop goes on. {@code stop} replies and
 * exits 0; so does the end of stdin.
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
        // Replies are ASCII (Json.write escapes the rest), so they go out as bytes, with no writer
        // turning each line into chars and back.
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Loop loop = new Loop(target);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> reply = new LinkedHashMap<>();
            boolean stop = loop.serve(line, reply);
            // One write of the whole line (a reply split in two wakes the runner twice); the stream
            // is unbuffered, so the line is on the pipe when the call returns.
            out.write((Json.write(reply) + "\n").getBytes(StandardCharsets.US_ASCII));
            if (stop) {
                break;
            }
        }
        System.err.println(loop.name + ": exiting");
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
        } catch (Exception | StackOverflowError | LinkageError error) {
            reply.remove("result");
            Map<String, Object> errored = new LinkedHashMap<>();
            errored.put("message", describe(error));
            StringWriter trace = new StringWriter();
            error.printStackTrace(new PrintWriter(trace));
            errored.put("traceback", trace.toString());
            reply.put("errored", errored);
            System.err.println(name + ": errored: " + describe(error));
            return false;
        }
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
            target.configure(CacheConfig.fromJson(object(request.get("config"), "config")));
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
            ops.add(Op.check(object(op, where), where));
        }
        List<Object> results = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            try {
                results.add(target.perform(op));
            } catch (RuntimeException error) {
                String message = describe(error);
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

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String where) {
        if (!(value instanceof Map)) {
            throw new BadRequest(where + " must be a JSON object, got " + CacheConfig.describe(value));
        }
        return (Map<String, Object>) value;
    }

    /** Our own errors speak for themselves; anything else keeps its class name. */
    private static String describe(Throwable error) {
        if (error instanceof BadRequest || error instanceof NotAllowed || error instanceof Json.ParseError) {
            return error.getMessage();
        }
        return error.toString();
    }
}
