package org.apache.pulsar.transaction.coordinator.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.junit.jupiter.api.Test;

/**
 * ledgerspec's txlog-writer spec (profile pulsar-master, spec/txlog_writer/_model.py and tests/unit/test_txlog.py) on
 * the real TxnLogBufferedWriter of pulsar-transaction-coordinator 4.2.4. Each case asserts what the real code
 * does; ledgerspec's conformance/txlog_writer/_real.py says, per case, what the profile predicts and where they differ.
 * Configuration as the spec's hand-traced scenarios: 3 records, 50 bytes, 5 ms.
 */
class TxnLogWriterSpecTest {

    private static WriterRig rig() {
        return new WriterRig(3, 50, 5, true);
    }

    @Test
    void aLargeRecordFlushesTheBatchFirstThenGoesAloneWithAPlainPosition() {
        WriterRig w = rig();
        w.add(10);
        w.add(10);
        w.timer.advance(3);
        w.add(60);
        assertEquals(List.of("write e0[1, 2] batched", "write e1[3] plain"), w.drain());
        w.add(5);
        w.timer.advance(7); // the sweep armed at creation fires at 5, then at 10 on an empty batch
        assertEquals(List.of("write e2[4] batched"), w.drain());
        assertEquals(List.of(5L, 10L, 15L), w.timer.armedAt);
        w.complete(0);
        assertEquals(List.of("done 1 e0 2/0", "done 2 e0 2/1"), w.drain());
        w.complete(1);
        assertEquals(List.of("done 3 e1 plain"), w.drain());
        w.fail(2, new ManagedLedgerException("bookie down"));
        assertEquals(List.of("failed 4"), w.drain());
        assertEquals(1, w.counter("large_data"));
        assertEquals(1, w.counter("max_delay"));
        assertEquals(3, w.sum("records")); // the large record itself is never observed
        assertEquals(25, w.sum("size_bytes"));
    }

    @Test
    void aRecordOfExactlyMaxSizeIsLargeAndAnEmptyBatchRecordsNoMetric() {
        WriterRig w = rig();
        w.add(50);
        assertEquals(List.of("write e0[1] plain"), w.drain());
        assertEquals(0, w.counter("large_data"));
        assertEquals(0, w.sum("records"));
    }

    @Test
    void theCountTriggerWinsWhenBothThresholdsAreReached() {
        WriterRig w = rig();
        w.add(10);
        w.timer.advance(1);
        w.add(15);
        w.timer.advance(1);
        w.add(30);
        assertEquals(List.of("write e0[1, 2, 3] batched"), w.drain());
        assertEquals(1, w.counter("max_records"));
        assertEquals(0, w.counter("max_size"));
        assertEquals(3, w.sum("records"));
        assertEquals(55, w.sum("size_bytes"));
        // the delay histogram reads System.currentTimeMillis(), not the timer: 2 virtual ms show as ~0
        assertTrue(w.sum("oldest_record_delay_seconds") < 1.0);
    }

    @Test
    void theSizeTriggerFlushesBelowTheRecordCount() {
        WriterRig w = rig();
        w.add(30);
        w.add(25);
        assertEquals(List.of("write e0[1, 2] batched"), w.drain());
        assertEquals(1, w.counter("max_size"));
        assertEquals(55, w.sum("size_bytes"));
    }

    @Test
    void theTimerIsASweepReArmedAfterEveryFiringNotAPerBatchDeadline() {
        WriterRig w = rig();
        w.timer.advance(4);
        w.add(1); // at t=4: the sweep at t=5 takes it after 1 ms, not 5
        w.timer.advance(1);
        assertEquals(List.of("write e0[1] batched"), w.drain());
        w.timer.advance(20); // empty sweeps at 10, 15, 20, 25: each re-arms
        assertEquals(List.of(5L, 10L, 15L, 20L, 25L, 30L), w.timer.armedAt);
        w.add(1);
        w.add(1);
        w.add(1); // a count flush at t=25 does not reset the sweep
        w.add(1);
        w.timer.advance(5);
        assertEquals(List.of("write e1[2, 3, 4] batched", "write e2[5] batched"), w.drain());
        assertEquals(1, w.timer.live());
        w.complete(0);
        assertEquals(List.of("done 1 e0 1/0"), w.drain()); // a batch of one is still batched
        assertEquals(2, w.counter("max_delay"));
    }

    @Test
    void closeFailsWhatIsBufferedAndEveryLaterRecordButWrittenEntriesComplete() {
        WriterRig w = rig();
        for (int i = 0; i < 4; i++) {
            w.add(10);
        }
        assertEquals(List.of("write e0[1, 2, 3] batched"), w.drain());
        CompletableFuture<Void> closed = w.writer.close();
        assertTrue(closed.isDone());
        assertEquals(List.of("failed 4"), w.drain());
        assertInstanceOf(ManagedLedgerException.ManagedLedgerFencedException.class, w.failures.get(0));
        w.add(1);
        assertEquals(List.of("failed 5"), w.drain());
        assertEquals(0, w.timer.live()); // the sweep is cancelled and never armed again
        w.timer.advance(50);
        assertEquals(List.of(5L), w.timer.armedAt);
        w.complete(0);
        assertEquals(List.of("done 1 e0 3/0", "done 2 e0 3/1", "done 3 e0 3/2"), w.drain());
        assertTrue(w.writer.close().isDone()); // a second close is a no-op
        assertEquals(List.of(), w.drain());
    }

    @Test
    void aFailedWriteFailsEveryRecordInItWithTheSameExceptionAndNoneOther() {
        WriterRig w = rig();
        for (int i = 0; i < 6; i++) {
            w.add(10);
        }
        assertEquals(List.of("write e0[1, 2, 3] batched", "write e1[4, 5, 6] batched"), w.drain());
        ManagedLedgerException boom = new ManagedLedgerException("bookie down");
        w.fail(0, boom);
        w.complete(1);
        assertEquals(List.of("failed 1", "failed 2", "failed 3", "done 4 e1 3/0", "done 5 e1 3/1",
                "done 6 e1 3/2"), w.drain());
        assertEquals(3, w.failures.size());
        w.failures.forEach(f -> assertSame(boom, f));
    }

    @Test
    void callbacksFollowTheLedgersCompletionOrderTheWriterDoesNotReorder() {
        WriterRig w = rig();
        for (int i = 0; i < 6; i++) {
            w.add(10);
        }
        w.drain();
        w.complete(1);
        w.complete(0);
        assertEquals(List.of("done 4 e1 3/0", "done 5 e1 3/1", "done 6 e1 3/2", "done 1 e0 3/0", "done 2 e0 3/1",
                "done 3 e0 3/2"), w.drain());
    }

    @Test
    void batchingOffWritesEveryRecordAloneArmsNoTimerAndRecordsNoMetric() {
        for (WriterRig w : List.of(new WriterRig(3, 50, 5, false), new WriterRig(1, 50, 5, true))) {
            w.add(1);
            w.add(100);
            w.timer.advance(20);
            assertEquals(List.of("write e0[1] plain", "write e1[2] plain"), w.drain());
            assertEquals(List.of(), w.timer.armedAt);
            w.complete(0);
            assertEquals(List.of("done 1 e0 plain"), w.drain());
            w.writer.close();
            w.add(1);
            assertEquals(List.of("failed 3"), w.drain());
            w.complete(1); // close does not fail what was written
            assertEquals(List.of("done 2 e1 plain"), w.drain());
            for (String t : List.of("max_records", "max_size", "max_delay", "large_data")) {
                assertEquals(0, w.counter(t));
            }
        }
    }

    @Test
    void aBatchedEntryIsThePrefixThenTheSerializedRecords() {
        WriterRig w = rig();
        w.add(2);
        w.add(3);
        w.add(1);
        byte[] data = w.adds.get(0).data();
        assertEquals("0e010001" + "0101" + "020202" + "03", io.netty.buffer.ByteBufUtil.hexDump(data));
    }

    @Test
    void aBatchedPositionEqualsItsPlainPositionAndAcksOnlyItsIndex() {
        TxnBatchedPositionImpl batched = new TxnBatchedPositionImpl(1, 7, 3, 1);
        assertEquals(PositionFactory.create(1, 7), batched);
        assertEquals(0, batched.compareTo(PositionFactory.create(1, 7)));
        assertEquals(PositionFactory.create(1, 7).hashCode(), batched.hashCode());
        batched.setAckSetByIndex();
        assertEquals(List.of(0b101L), java.util.Arrays.stream(batched.getAckSet()).boxed().toList());
    }

    @Test
    void aBatchWhoseSerializationFailsStaysBufferedAndTheNextFlushWritesItOverMaxRecords() {
        WriterRig w = rig();
        w.serializer.failBatches = 1;
        w.add(10);
        w.add(10);
        w.add(10); // the count flush: serialize(dataArray) throws inside doFlush, before anything is cleared
        assertEquals(List.of(), w.drain());
        w.add(10); // 4 >= 3: the count trigger again, and this time the batch is written
        assertEquals(List.of("write e0[1, 2, 3, 4] batched"), w.drain());
        assertEquals(2, w.counter("max_records")); // the failed flush was counted as well
        assertEquals(7, w.sum("records")); // 3 + 4 observed for one entry of 4
        w.complete(0);
        assertEquals(List.of("done 1 e0 4/0", "done 2 e0 4/1", "done 3 e0 4/2", "done 4 e0 4/3"), w.drain());
    }

    @Test
    void aTimerFlushQueuedBehindCloseFailsAnotherWritersRecordThroughTheRecycledContext() throws Throwable {
        onANewThread(() -> closeRaceOnOneWriteThread(true));
    }

    @Test
    void aCloseThatRunsBeforeTheSweepFiresLeavesTheOtherWriterAlone() throws Throwable {
        onANewThread(() -> closeRaceOnOneWriteThread(false));
    }

    /** Netty's Recycler pools per thread, and a new thread's pool starts empty: the reuse is deterministic. */
    private static void onANewThread(Runnable body) throws Throwable {
        Throwable[] thrown = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        });
        t.start();
        t.join();
        if (thrown[0] != null) {
            throw thrown[0];
        }
    }

    /**
     * Writers a and b on one write thread and one timer (a broker's writers can share both); a closes with a
     * record buffered while b fills a batch. With {@code race}, a's sweep fires before a's close task has run.
     */
    private static void closeRaceOnOneWriteThread(boolean race) {
        WriterRig.QueueExecutor thread = new WriterRig.QueueExecutor();
        WriterRig.ManualTimer timer = new WriterRig.ManualTimer();
        WriterRig a = new WriterRig(3, 50, 5, true, thread, timer); // sweeps at 5, 10, ...
        timer.advance(2);
        WriterRig b = new WriterRig(3, 50, 5, true, thread, timer); // sweeps at 7, 12, ...
        a.add(10);
        thread.runAll();
        a.writer.close(); // queued on the write thread
        if (!race) {
            thread.runAll();
        }
        b.add(10);
        b.add(10);
        b.add(10); // a count flush: b takes a new flush context from the thread's Recycler
        b.add(10); // buffered in that context
        timer.advance(3); // a's sweep fires at 5 (with race: before close has run, so its flush queues behind it)
        thread.runAll();
        assertEquals(List.of("failed 1"), a.drain());
        if (race) {
            // b is open, yet its buffered record 4 fails with a's close exception and is never written: close
            // recycled a's FlushContext but a still points at it; b's flush took it from the Recycler; a's late
            // sweep (trigFlushByTimingTask) found it non-empty and doFlush, seeing CLOSED, failed and recycled it
            assertEquals(List.of("write e0[1, 2, 3] batched", "failed 4"), b.drain());
            assertEquals("Transaction log buffered write has closed", b.failures.get(0).getCause().getMessage());
            timer.advance(10);
            thread.runAll();
            assertEquals(1, b.adds.size());
            assertEquals(List.of(), b.drain());
        } else {
            // close cancelled a's sweep before it was due: b's own sweep at 7 writes record 4
            assertEquals(List.of("write e0[1, 2, 3] batched"), b.drain());
            timer.advance(2);
            thread.runAll();
            assertEquals(List.of("write e1[4] batched"), b.drain());
            assertEquals(List.of(), b.failures);
        }
    }
}
