package org.apache.pulsar.transaction.coordinator.impl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ledgerspec.protocol.BadRequest;
import ledgerspec.protocol.Lines;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * txlog-writer-buffered-writer-4.2.4: the real TxnLogBufferedWriter of pulsar-transaction-coordinator 4.2.4 behind ledgerspec's
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
        TxlogWriterHarness harness = new TxlogWriterHarness();
        Lines.run("txlog-writer-buffered-writer-4.2.4", harness::command); // the framing, errored replies and stop are every harness's
    }

    private Object command(Object cmd, Map<String, Object> request) {
        if ("start".equals(cmd)) {
            if (!Long.valueOf(1).equals(request.get("version"))) {
                throw new BadRequest("unsupported protocol version " + request.get("version") + "; this speaks 1");
            }
            Map<String, Object> implementation = new LinkedHashMap<>();
            implementation.put("name", "txlog-writer-buffered-writer-4.2.4");
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
            Map<String, Object> config = Lines.object(request.get("config"), "config");
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
                results.add(perform(Lines.object(ops.get(i), "ops[" + i + "]"), "ops[" + i + "]"));
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
