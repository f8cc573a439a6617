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
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The line loop of ledgerspec process protocol v1 (conformance/protocol/README.md), shared by every harness
 * whatever its system: the cache's {@link Loop} and the other systems' harnesses only answer commands.
 *
 * <p>One JSON request per line in, exactly one reply line out (result, skipped or errored), echoing
 * {@code seq}, in one unbuffered write. Logs go to stderr; {@code System.out} is pointed at stderr
 * first, so a stray print (or a logger writing to the console) can never corrupt the reply stream. Any
 * exception while serving a request, inside the harness or the code it drives, becomes an
 * {@code errored} reply with its message and stack trace, and the loop goes on. {@code stop} replies and
 * exits 0; so does the end of stdin.
 */
public final class Lines {
    /** A harness's answer to one request: the result, or an exception that becomes an errored reply. */
    public interface Handler {
        Object command(Object cmd, Map<String, Object> request) throws Exception;
    }

    private Lines() {
    }

    /** Serve stdin with {@code handler} until {@code stop} or its end, then exit 0. */
    public static void run(String name, Handler handler) throws IOException {
        run(name, handler, () -> { });
    }

    /** {@link #run(String, Handler)}, then {@code teardown} (the real code's threads) before the exit. */
    public static void run(String name, Handler handler, Runnable teardown) throws IOException {
        // Replies are ASCII (Json.write escapes the rest), so they go out as bytes, with no writer
        // turning each line into chars and back.
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> reply = new LinkedHashMap<>();
            boolean stop = serve(name, handler, line, reply);
            // One write of the whole line (a reply split in two wakes the runner twice); the stream
            // is unbuffered, so the line is on the pipe when the call returns.
            out.write((Json.write(reply) + "\n").getBytes(StandardCharsets.US_ASCII));
            if (stop) {
                break;
            }
        }
        teardown.run();
        System.err.println(name + ": exiting");
        System.exit(0);
    }

    /** Fill the reply to one request line; true if the process should exit after sending it. */
    static boolean serve(String name, Handler handler, String line, Map<String, Object> reply) {
        reply.put("seq", null);
        try {
            Map<String, Object> request = object(Json.parse(line), "a request");
            Object seq = request.get("seq");
            if (!(seq instanceof Long || seq instanceof String)) {
                throw new BadRequest("a request needs a seq (integer or string), got " + CacheConfig.describe(seq));
            }
            reply.put("seq", seq);
            Object cmd = request.get("cmd");
            reply.put("result", handler.command(cmd, request));
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

    /** {@code value} as a JSON object, or a bad request naming {@code where}. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value, String where) {
        if (!(value instanceof Map)) {
            throw new BadRequest(where + " must be a JSON object, got " + CacheConfig.describe(value));
        }
        return (Map<String, Object>) value;
    }

    /** Our own errors speak for themselves; anything else keeps its class name. */
    public static String describe(Throwable error) {
        if (error instanceof BadRequest || error instanceof NotAllowed || error instanceof Json.ParseError) {
            return error.getMessage();
        }
        return error.toString();
    }
}
