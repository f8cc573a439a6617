package org.apache.bookkeeper.mledger.impl;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import ledgerspec.protocol.Json;

/**
 * The cursor-state protocol's loop (conformance/protocol/cursor-state.md): one JSON request per line in, one reply
 * out in one write, echoing {@code seq}; any exception becomes an {@code errored} reply with its stack trace.
 * {@code System.out} is pointed at stderr first, so nothing the real code prints can corrupt the replies.
 */
final class CursorLoop {

    private CursorLoop() {
    }

    static void serve(CursorHarness harness) throws Exception {
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("seq", null);
            boolean stop = false;
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> request = (Map<String, Object>) Json.parse(line);
                reply.put("seq", request.get("seq"));
                stop = "stop".equals(request.get("cmd"));
                reply.put("result", harness.handle(request));
            } catch (Exception | Error error) {
                reply.remove("result");
                StringWriter trace = new StringWriter();
                error.printStackTrace(new PrintWriter(trace));
                reply.put("errored", Map.of("message", error.toString(), "traceback", trace.toString()));
                stop = false;
            }
            out.write((Json.write(reply) + "\n").getBytes(StandardCharsets.US_ASCII));
            if (stop) {
                break;
            }
        }
        harness.teardown();
        System.exit(0);
    }
}
