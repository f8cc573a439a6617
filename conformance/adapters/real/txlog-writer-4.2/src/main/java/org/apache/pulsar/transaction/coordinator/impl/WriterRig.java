package org.apache.pulsar.transaction.coordinator.impl;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.prometheus.client.CollectorRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * The real TxnLogBufferedWriter (pulsar-transaction-coordinator 4.2.4) in virtual time: a Mockito ManagedLedger
 * that keeps every asyncAddEntry until the test completes or fails it, a Netty Timer whose timeouts fire only
 * when the test advances the clock, a same-thread Executor, and records that are byte arrays of a given size
 * (every byte is the record's number, so an entry's body reads back as its records).
 *
 * <p>Events are written in the spec's terms (ledgerspec spec/txlog_writer/_model.py) twice: as text for the JUnit cases
 * ({@code write e[records] batched} or {@code plain}, {@code done r e size/index} (a TxnBatchedPositionImpl) or
 * {@code done r e plain}, and {@code failed r}), and as the protocol's events for {@link TxlogWriterHarness}
 * ({@code ["write", entry, [records], batched, trigger]}, {@code ["done", record, entry, size, index]},
 * {@code ["failed", record]}). An entry's records are those the writer handed to the serializer for it, checked
 * against the entry's bytes; its trigger is the flush-trigger counter of the real metrics that went up with it.
 */
final class WriterRig {

    static final String PREFIX = "ledgerspec_txlog";

    /** One record: its number and serialized size. */
    record Rec(int id, int size) { }

    /** An asyncAddEntry, with the records it holds; {@code finished} once the managed ledger answered it. */
    static final class Add {
        final int entry;
        final byte[] data;
        final AddEntryCallback callback;
        final Object ctx;
        boolean finished;

        Add(int entry, byte[] data, AddEntryCallback callback, Object ctx) {
            this.entry = entry;
            this.data = data;
            this.callback = callback;
            this.ctx = ctx;
        }

        int entry() {
            return entry;
        }

        byte[] data() {
            return data;
        }
    }

    /** The flush triggers, in the order of the spec's TRIGGERS (ledgerspec spec/txlog_writer/_model.py). */
    static final List<String> TRIGGERS = List.of("max_records", "max_size", "max_delay", "large_data");

    final ManagedLedger ledger = mock(ManagedLedger.class);
    final ManualTimer timer;
    final CollectorRegistry registry = new CollectorRegistry();
    final TxnLogBufferedWriterMetricsStats metrics =
            new TxnLogBufferedWriterMetricsStats(PREFIX, new String[]{"broker"}, new String[]{"b"}, registry);
    final List<String> events = new ArrayList<>();
    /** The same events as the protocol sends them. */
    final List<Object> wire = new ArrayList<>();
    private final double[] triggersSeen = new double[TRIGGERS.size()];
    final List<Add> adds = new ArrayList<>();
    final List<ManagedLedgerException> failures = new ArrayList<>();
    final Serializer serializer = new Serializer();
    final TxnLogBufferedWriter<Rec> writer;
    private int nextRecord = 1;

    WriterRig(int maxRecords, int maxSize, int maxDelay, boolean batchEnabled) {
        this(maxRecords, maxSize, maxDelay, batchEnabled, Runnable::run, new ManualTimer());
    }

    /** A writer on the given write thread and timer (two writers may share them, as on a broker). */
    WriterRig(int maxRecords, int maxSize, int maxDelay, boolean batchEnabled, Executor executor, ManualTimer timer) {
        this.timer = timer;
        when(ledger.getName()).thenReturn("txlog");
        doAnswer(call -> {
            ByteBuf buf = call.getArgument(0);
            byte[] data = ByteBufUtil.getBytes(buf);
            Add add = new Add(adds.size(), data, call.getArgument(1), call.getArgument(2));
            adds.add(add);
            boolean batched = isBatched(data);
            List<Integer> ids = batched ? serializer.lastBatch : List.of(serializer.lastSingle);
            if (!Arrays.equals(data, serializer.bytes(ids, batched))) {
                throw new IllegalStateException("entry e" + add.entry() + " is not the serialized records " + ids);
            }
            events.add("write e" + add.entry() + ids + (batched ? " batched" : " plain"));
            wire.add(Arrays.asList("write", (long) add.entry(), longs(ids), batched, batched ? trigger() : null));
            return null;
        }).when(ledger).asyncAddEntry(any(ByteBuf.class), any(AddEntryCallback.class), any());
        writer = new TxnLogBufferedWriter<>(ledger, executor, timer, serializer, maxRecords, maxSize,
                maxDelay, batchEnabled, metrics);
    }

    /** asyncAddData of the next record, {@code size} bytes; its callback appends to {@link #events}. */
    int add(int size) {
        int id = nextRecord++;
        writer.asyncAddData(new Rec(id, size), new TxnLogBufferedWriter.AddDataCallback() {
            @Override
            public void addComplete(Position position, Object context) {
                String where = "e" + position.getEntryId();
                events.add("done " + id + " " + where + (position instanceof TxnBatchedPositionImpl batched
                        ? " " + batched.getBatchSize() + "/" + batched.getBatchIndex() : " plain"));
                boolean batched = position instanceof TxnBatchedPositionImpl;
                TxnBatchedPositionImpl b = batched ? (TxnBatchedPositionImpl) position : null;
                wire.add(Arrays.asList("done", (long) id, position.getEntryId(),
                        b == null ? null : (long) b.getBatchSize(), b == null ? null : (long) b.getBatchIndex()));
            }

            @Override
            public void addFailed(ManagedLedgerException exception, Object ctx) {
                events.add("failed " + id);
                wire.add(Arrays.asList("failed", (long) id));
                failures.add(exception);
            }
        }, id);
        return id;
    }

    /** The managed ledger confirms entry {@code entry} at position 1:entry. */
    void complete(int entry) {
        Add add = adds.get(entry);
        add.finished = true;
        add.callback.addComplete(PositionFactory.create(1, entry), Unpooled.wrappedBuffer(add.data), add.ctx);
    }

    /** The managed ledger fails entry {@code entry}. */
    void fail(int entry, ManagedLedgerException e) {
        Add add = adds.get(entry);
        add.finished = true;
        add.callback.addFailed(e, add.ctx);
    }

    /** The oldest entry the managed ledger has not answered yet, or -1: a managed ledger completes adds in order. */
    int oldestOutstanding() {
        for (Add add : adds) {
            if (!add.finished) {
                return add.entry;
            }
        }
        return -1;
    }

    /** The trigger whose real counter went up since the last batched entry (null unless exactly one did). */
    private String trigger() {
        String found = null;
        int raised = 0;
        for (int i = 0; i < TRIGGERS.size(); i++) {
            double now = counter(TRIGGERS.get(i));
            if (now != triggersSeen[i]) {
                raised++;
                found = TRIGGERS.get(i);
                triggersSeen[i] = now;
            }
        }
        return raised == 1 ? found : null;
    }

    private static List<Long> longs(List<Integer> ids) {
        List<Long> out = new ArrayList<>();
        ids.forEach(id -> out.add((long) id));
        return out;
    }

    /** The events since the last call. */
    List<String> drain() {
        List<String> out = List.copyOf(events);
        events.clear();
        return out;
    }

    /** A counter of the real metrics, by trigger suffix (max_records, max_size, max_delay, large_data). */
    double counter(String trigger) {
        Double v = registry.getSampleValue(PREFIX + "_bufferedwriter_flush_trigger_" + trigger + "_total",
                new String[]{"broker"}, new String[]{"b"});
        return v == null ? 0 : v;
    }

    /** A histogram's sum (records, size_bytes, oldest_record_delay_seconds). */
    double sum(String histogram) {
        Double v = registry.getSampleValue(PREFIX + "_bufferedwriter_batch_" + histogram + "_sum",
                new String[]{"broker"}, new String[]{"b"});
        return v == null ? 0 : v;
    }

    /** An entry with the 0E 01 00 01 prefix (magic 0x0E01, version 1). */
    static boolean isBatched(byte[] data) {
        return data.length >= 4 && data[0] == 0x0E && data[1] == 0x01 && data[2] == 0 && data[3] == 1;
    }

    /** Records as {@code size} bytes each holding the record's number; a batch is their concatenation. */
    static final class Serializer implements TxnLogBufferedWriter.DataSerializer<Rec> {
        /** How many of the next batch serializations throw (a transient serializer fault). */
        int failBatches;
        /** The records of the last batch serialized, and the last record serialized alone. */
        List<Integer> lastBatch = List.of();
        int lastSingle;
        private final java.util.Map<Integer, Integer> sizes = new java.util.HashMap<>();

        @Override
        public int getSerializedSize(Rec data) {
            return data.size();
        }

        @Override
        public ByteBuf serialize(Rec data) {
            lastSingle = data.id();
            return Unpooled.wrappedBuffer(bytes(data));
        }

        private byte[] bytes(Rec data) {
            sizes.put(data.id(), data.size());
            byte[] bytes = new byte[data.size()];
            Arrays.fill(bytes, (byte) data.id());
            return bytes;
        }

        /** What an entry of these records holds: the prefix if batched, then each record's bytes. */
        byte[] bytes(List<Integer> ids, boolean batched) {
            ByteBuf out = Unpooled.buffer();
            if (batched) {
                out.writeBytes(new byte[]{0x0E, 0x01, 0, 1});
            }
            ids.forEach(id -> out.writeBytes(bytes(new Rec(id, sizes.get(id)))));
            return ByteBufUtil.getBytes(out);
        }

        @Override
        public ByteBuf serialize(ArrayList<Rec> dataArray) {
            if (failBatches > 0) {
                failBatches--;
                throw new IllegalStateException("serializer fault");
            }
            ByteBuf out = Unpooled.buffer();
            List<Integer> ids = new ArrayList<>();
            dataArray.forEach(r -> {
                out.writeBytes(bytes(r));
                ids.add(r.id());
            });
            lastBatch = ids;
            return out;
        }
    }

    /** A write thread the test runs by hand: tasks queue until {@link #runAll}. */
    static final class QueueExecutor implements Executor {
        final java.util.ArrayDeque<Runnable> queue = new java.util.ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            queue.add(task);
        }

        void runAll() {
            while (!queue.isEmpty()) {
                queue.poll().run();
            }
        }
    }

    /** A Netty Timer in virtual milliseconds: timeouts fire, in deadline order, only inside {@link #advance}. */
    static final class ManualTimer implements Timer {
        long now;
        final List<ManualTimeout> pending = new ArrayList<>();
        final List<Long> armedAt = new ArrayList<>();

        @Override
        public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
            ManualTimeout t = new ManualTimeout(this, task, now + unit.toMillis(delay));
            pending.add(t);
            armedAt.add(t.deadline);
            return t;
        }

        /** Move the clock by {@code by} ms, running every timeout due meanwhile at its deadline. */
        void advance(long by) {
            long end = now + by;
            while (true) {
                ManualTimeout next = null;
                for (ManualTimeout t : pending) {
                    if (!t.cancelled && t.deadline <= end && (next == null || t.deadline < next.deadline)) {
                        next = t;
                    }
                }
                if (next == null) {
                    break;
                }
                pending.remove(next);
                now = next.deadline;
                next.expired = true;
                try {
                    next.task.run(next);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            now = end;
        }

        long live() {
            return pending.stream().filter(t -> !t.cancelled).count();
        }

        @Override
        public Set<Timeout> stop() {
            return Set.of();
        }
    }

    static final class ManualTimeout implements Timeout {
        final ManualTimer timer;
        final TimerTask task;
        final long deadline;
        boolean cancelled;
        boolean expired;

        ManualTimeout(ManualTimer timer, TimerTask task, long deadline) {
            this.timer = timer;
            this.task = task;
            this.deadline = deadline;
        }

        @Override
        public Timer timer() {
            return timer;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return expired;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean cancel() {
            if (expired || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }
    }
}
