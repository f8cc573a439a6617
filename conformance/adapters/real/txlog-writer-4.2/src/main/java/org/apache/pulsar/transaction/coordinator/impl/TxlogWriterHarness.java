package org.apache.pulsar.transaction.coordinator.impl;

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
import java.util.Set;
import ledgerspec.protocol.BadRequest;
import ledgerspec.protocol.Json;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * real-txlog-4.2.4: the real TxnLogBufferedWriter of pulsar-transaction-coordinator 4.2.4 behind ledgerspec's
 * process protocol v1 for the txlog-writer system (conformance/protocol/txlog-writer.md).
 *
 * <p>Each {@code configure} builds a new {@link WriterRig}: the real writer over a Mockito ManagedLedger whose adds
 * wait for the runner's {@code complete} or {@code fail} (the oldest first, as a managed ledger answers them), a
 * manual Netty Timer that fires only inside {@code tick} (virtual milliseconds), a same-thread write executor and
 * the real metrics on a registry of its own. One JSON request per line in, one reply line out; logs go to stderr;
 * an exception, in the rig or in the real code, becomes an {@code errored} reply with its stack trace.
 */
public final class TxlogWriterHarness {
    private static final Set<String> CONFIG = Set.of("batch_enabled", "max_records", "max_size", "max_delay");
    private WriterRig rig;

    public static void main(String[] args) throws IOException {
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err); // a stray print can never corrupt the reply stream
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        TxlogWriterHarness harness = new TxlogWriterHarness();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> reply = new LinkedHashMap<>();
            boolean stop = harness.serve(line, reply);
            out.write((Json.write(reply) + "\n").getBytes(StandardCharsets.US_ASCII));
            if (stop) {
                break;
            }
        }
        System.exit(0);
    }

    /** Fill the reply to one request line; true if the process should exit after sending it. */
    boolean serve(String line, Map<String, Object> reply) {
        reply.put("seq", null);
        try {
            Map<String, Object> request = object(Json.parse(line), "a request");
            Object seq = request.get("seq");
            if (!(seq instanceof Long || seq instanceof String)) {
                throw new BadRequest("a request needs a seq (integer or string), got " + seq);
            }
            reply.put("seq", seq);
            Object cmd = request.get("cmd");
            reply.put("result", command(cmd, request));
            return "stop".equals(cmd);
        } catch (Exception | StackOverflowError | LinkageError error) {
            reply.remove("result");
            Map<String, Object> errored = new LinkedHashMap<>();
            errored.put("message", error instanceof BadRequest ? error.getMessage() : error.toString());
            StringWriter trace = new StringWriter();
            error.printStackTrace(new PrintWriter(trace));
            errored.put("traceback", trace.toString());
            reply.put("errored", errored);
            System.err.println("real-txlog-4.2.4: errored: " + error);
            return false;
        }
    }

    private Object command(Object cmd, Map<String, Object> request) {
        if ("start".equals(cmd)) {
            if (!Long.valueOf(1).equals(request.get("version"))) {
                throw new BadRequest("unsupported protocol version " + request.get("version") + "; this speaks 1");
            }
            Map<String, Object> implementation = new LinkedHashMap<>();
            implementation.put("name", "real-txlog-4.2.4");
            implementation.put("version", "4.2.4");
            implementation.put("language", "java");
            implementation.put("system", "txlog-writer");
            implementation.put("profiles", List.of("pulsar-master"));
            implementation.put("capabilities", List.of()); // not metrics_delay: the delay is wall-clock time
            implementation.put("homepage", "https://github.com/apache/pulsar");
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("version", 1L);
            result.put("implementation", implementation);
            return result;
        }
        if ("configure".equals(cmd)) {
            Map<String, Object> config = object(request.get("config"), "config");
            if (!config.keySet().equals(CONFIG)) {
                throw new BadRequest("config: want exactly the fields " + CONFIG + ", got " + config.keySet());
            }
            rig = new WriterRig(positive(config, "max_records"), positive(config, "max_size"),
                    positive(config, "max_delay"), bool(config, "batch_enabled"));
            return Map.of();
        }
        if ("apply".equals(cmd)) {
            if (rig == null) {
                throw new BadRequest("no writer: send configure first");
            }
            if (!(request.get("ops") instanceof List<?> ops) || ops.isEmpty()) {
                throw new BadRequest("apply needs a non-empty list of ops");
            }
            List<Object> results = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) {
                results.add(perform(object(ops.get(i), "ops[" + i + "]"), "ops[" + i + "]"));
            }
            return Map.of("results", results);
        }
        if ("stop".equals(cmd)) {
            return Map.of();
        }
        throw new BadRequest("unknown command " + cmd + "; known: start, configure, apply, stop");
    }

    /** One operation on the real writer: the events it caused, or the real metrics. */
    private Object perform(Map<String, Object> op, String where) {
        Object kind = op.get("op");
        rig.wire.clear();
        if ("add".equals(kind)) {
            rig.add(positive(op, "size"));
        } else if ("tick".equals(kind)) {
            rig.timer.advance(op.containsKey("by") ? positive(op, "by") : 1);
        } else if ("complete".equals(kind) || "fail".equals(kind)) {
            int entry = rig.oldestOutstanding();
            if (entry >= 0 && "complete".equals(kind)) {
                rig.complete(entry);
            } else if (entry >= 0) {
                rig.fail(entry, new ManagedLedgerException("ledgerspec: the managed ledger failed this add"));
            }
        } else if ("close".equals(kind)) {
            rig.writer.close().join(); // the write executor runs on this thread: done when close() returns
        } else if ("metrics".equals(kind)) {
            Map<String, Object> metrics = new LinkedHashMap<>();
            for (String trigger : WriterRig.TRIGGERS) {
                metrics.put(trigger, Math.round(rig.counter(trigger)));
            }
            metrics.put("records", Math.round(rig.sum("records")));
            metrics.put("bytes", Math.round(rig.sum("size_bytes")));
            metrics.put("delay", null); // System.currentTimeMillis() at flush minus at add: not virtual time
            return metrics;
        } else {
            throw new BadRequest(where + ": unknown operation " + kind
                    + "; known: add, tick, complete, fail, close, metrics");
        }
        List<Object> events = new ArrayList<>(rig.wire);
        rig.wire.clear();
        return events;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String where) {
        if (!(value instanceof Map)) {
            throw new BadRequest(where + " must be a JSON object, got " + value);
        }
        return (Map<String, Object>) value;
    }

    private static int positive(Map<String, Object> map, String key) {
        Object value = map.get(key);
        if (!(value instanceof Long n) || n <= 0 || n > Integer.MAX_VALUE) {
            throw new BadRequest(key + ": want an integer > 0, got " + value);
        }
        return (int) (long) n;
    }

    private static boolean bool(Map<String, Object> map, String key) {
        if (!(map.get(key) instanceof Boolean b)) {
            throw new BadRequest(key + ": want true or false, got " + map.get(key));
        }
        return b;
    }
}
