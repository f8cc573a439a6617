"""The real TxnLogBufferedWriter against the txlog-writer spec: which releases, its verdict, its JUnit cases.

Two rigs of ``conformance/adapters/real/txlog-writer-4.2`` drive pulsar-transaction-coordinator 4.2.4: the
process harness ``txlog-writer-buffered-writer-4.2.4`` (``ledgerspec conform --system txlog-writer``; its declared
verdict is
PROTOCOL_VERDICT, run by conformance/txlog_writer/_real.py and in CI by tests/slow/test_real_txlog_protocol.py), and
the JUnit cases (``ledgerspec harness test``; tests/slow/test_real_txlog_writer.py), which reach what the
protocol's operations cannot. This module is the one home of what they establish; ``ledgerspec deviations
--real`` writes it into DEVIATIONS.md.
"""

from __future__ import annotations

from dataclasses import dataclass

RELEASES_CHECKED = ("2.10.0", "2.11.0", "3.0.0", "4.2.4")
"""org.apache.pulsar:pulsar-transaction-coordinator releases checked with ``javap -p``/``-c`` on 2026-11-25."""
RELEASES_RUN = ("4.2.4",)
"""The releases the JUnit cases run on (txlog-writer-4.2)."""
MODULE = "txlog-writer-4.2"
TEST_CLASS = "TxnLogWriterSpecTest"
ADAPTER = "txlog-writer-buffered-writer-4.2.4"
"""The process harness (``TxlogWriterHarness``), judged against PROFILE."""
PROFILE = "pulsar-master"


@dataclass(frozen=True)
class ProtocolVerdict:
    """What ``conform --system txlog-writer --adapter txlog-writer-buffered-writer-4.2.4`` gives, at a pinned seed."""

    settings: str
    seed: int
    verdict: str
    examples: int
    steps: int


PROTOCOL_VERDICT = ProtocolVerdict("ci", 0, "PASS", 233, 16751)
"""Every invariant held; the ``delay`` metric is not compared (the harness claims no ``metrics_delay``: O1)."""


@dataclass(frozen=True)
class TxlogCase:
    """One JUnit case: what it drives, what the pulsar-master profile predicts, and what the release does."""

    method: str
    steps: str
    expected: str
    """The profile's events (spec/txlog_writer/_model.py; tests/unit/test_txlog.py for the hand-traced ones)."""
    observed: str
    agrees: bool


# Every case: max_records 3, max_size 50 bytes, max_delay 5 ms, the timer armed at creation (t=0).
CASES: tuple[TxlogCase, ...] = (
    TxlogCase(
        "aLargeRecordFlushesTheBatchFirstThenGoesAloneWithAPlainPosition",
        "add 10, 10; t=3; add 60, 5; t=10; complete e0, e1; fail e2 (tests/unit/test_txlog.py SCENARIO)",
        "write e0 [1, 2] batched (large_data), e1 [3] plain; sweep at 5 writes e2 [4]; done 1, 2 at e0 2/0, 2/1; "
        "done 3 plain; failed 4; large_data 1, max_delay 1, records 3, bytes 25",
        "the same; the timer is armed at 5, 10, 15 (re-armed after the empty sweep at 10)",
        True,
    ),
    TxlogCase(
        "aRecordOfExactlyMaxSizeIsLargeAndAnEmptyBatchRecordsNoMetric",
        "add 50 to an empty batch",
        "write e0 [1] plain; no metric",
        "the same (`dataLength >= batchedWriteMaxSize`; `trigFlushByLargeSingleData` returns on an empty batch)",
        True,
    ),
    TxlogCase(
        "theCountTriggerWinsWhenBothThresholdsAreReached",
        "add 10; t=1; add 15; t=2; add 30",
        "write e0 [1, 2, 3] (max_records); max_records 1, max_size 0, records 3, bytes 55, delay 2",
        "the same, except the delay histogram: it observes about 0 s (wall clock), not 2 ms (finding O1)",
        True,
    ),
    TxlogCase(
        "theSizeTriggerFlushesBelowTheRecordCount",
        "add 30, 25",
        "write e0 [1, 2] (max_size); bytes 55",
        "the same",
        True,
    ),
    TxlogCase(
        "theTimerIsASweepReArmedAfterEveryFiringNotAPerBatchDeadline",
        "t=4: add 1; t=5; t=25 (four empty sweeps); add 1 x4 (a count flush); t=30",
        "sweep at 5 writes e0 [1] after 1 ms; re-armed at 10..30; e1 [2, 3, 4] (max_records); sweep at 30 "
        "writes e2 [5]; a batch of one gets TxnBatchedPositionImpl(size 1, index 0)",
        "the same: armed at 5, 10, 15, 20, 25, 30; one live timeout; the count flush does not reset the sweep",
        True,
    ),
    TxlogCase(
        "closeFailsWhatIsBufferedAndEveryLaterRecordButWrittenEntriesComplete",
        "add 10 x4; close; add 1; t=50; complete e0; close again",
        "failed 4 at close; failed 5; no sweep after close; done 1, 2, 3; the second close does nothing",
        "the same: 4 fails with ManagedLedgerFencedException, the timeout is cancelled and never armed again",
        True,
    ),
    TxlogCase(
        "aFailedWriteFailsEveryRecordInItWithTheSameExceptionAndNoneOther",
        "add 10 x6; fail e0; complete e1",
        "failed 1, 2, 3; done 4, 5, 6 at e1 3/0..3/2",
        "the same; the three failures carry the managed ledger's exception instance",
        True,
    ),
    TxlogCase(
        "callbacksFollowTheLedgersCompletionOrderTheWriterDoesNotReorder",
        "add 10 x6; complete e1, then e0",
        "not a profile step (the spec's Complete always completes the oldest entry)",
        "done 4, 5, 6 before done 1, 2, 3: callbacks follow the ledger's completion order (observation O2)",
        True,
    ),
    TxlogCase(
        "batchingOffWritesEveryRecordAloneArmsNoTimerAndRecordsNoMetric",
        "batchEnabled false, and batchEnabled true with max_records 1: add 1, 100; t=20; complete e0; close; "
        "add 1; complete e1",
        "write e0 [1], e1 [2] plain; no timer; done 1 plain; failed 3; done 2 plain; no metric",
        "the same",
        True,
    ),
    TxlogCase(
        "aBatchedEntryIsThePrefixThenTheSerializedRecords",
        "add 2, 3, 1 bytes",
        "entry bytes 0e 01 00 01 then the records' bytes",
        "the same (reference/txlog encode)",
        True,
    ),
    TxlogCase(
        "aBatchedPositionEqualsItsPlainPositionAndAcksOnlyItsIndex",
        "TxnBatchedPositionImpl(1, 7, size 3, index 1)",
        "equal to, same hash as, and compareTo 0 with position 1:7; setAckSetByIndex gives bits {0, 2}",
        "the same",
        True,
    ),
    TxlogCase(
        "aBatchWhoseSerializationFailsStaysBufferedAndTheNextFlushWritesItOverMaxRecords",
        "the batch serializer throws once; add 10 x3 (the count flush fails inside doFlush); add 10; complete e0",
        "no serializer fault in the profile; whatever it does, no entry over 3 records and one max_records "
        "count per entry written",
        "nothing written and no callback for 1-3; record 4 re-triggers the count: e0 [1, 2, 3, 4], done at "
        "4/0..4/3; max_records counted 2, records observed 3 + 4 (T2)",
        False,
    ),
    TxlogCase(
        "aTimerFlushQueuedBehindCloseFailsAnotherWritersRecordThroughTheRecycledContext",
        "writers A and B on one write thread and one timer (B created at t=2); A: add 10; A: close (queued); "
        "B: add 10 x4 (a count flush, record 4 buffered); t=5: A's sweep fires before close ran; run the thread",
        "A: failed 1; B: write e0 [1, 2, 3], record 4 written by B's sweep at 7",
        "B's record 4 fails with A's 'Transaction log buffered write has closed' and is never written (T1)",
        False,
    ),
    TxlogCase(
        "aCloseThatRunsBeforeTheSweepFiresLeavesTheOtherWriterAlone",
        "as the case above, but A's close task runs at once, before A's sweep is due (the control of T1)",
        "A: failed 1; B: write e0 [1, 2, 3]; B's sweep at 7 writes e1 [4]",
        "the same: close cancelled A's sweep, and B is untouched",
        True,
    ),
)


@dataclass(frozen=True)
class TxlogFinding:
    """A way the release differs from the profile, with why, from the code."""

    key: str
    title: str
    invariants: str
    why: str
    reproduction: str
    protocol: str
    """Why the protocol run cannot show it: what it would need that the protocol's operations lack.

    As a ``Finding`` whose ``invariant`` is None in conformance/cache/_deviations.py: declared, with the reason, and
    reproduced elsewhere (here by its JUnit case), never looked for in the search.
    """


FINDINGS: tuple[TxlogFinding, ...] = (
    TxlogFinding(
        "T1",
        "a sweep queued behind close fails another writer's buffered record",
        "breaks `TXLOG-MODEL` and `TXLOG-DELAY` for the other, open writer (the spec models one writer)",
        "`close()` runs `failureCallbackByContextAndRecycle(flushContext, ...)`, which recycles the FlushContext "
        "into Netty's per-thread Recycler, but leaves the `flushContext` field pointing at it (and `dataArray` "
        "uncleared). The next `FlushContext.newInstance()` on that thread (B's `doFlush`) takes the same object. "
        "A sweep that fired before close ran (`timingFlushTask` saw the timeout not cancelled) then runs "
        "`trigFlushByTimingTask` for A: it finds the context non-empty, and `doFlush`, seeing CLOSED, fails its "
        "callbacks with `BUFFERED_WRITER_CLOSED_EXCEPTION` and recycles it again, back in the pool while B still "
        "fills it. The window is a sweep firing between `close()` and its task running; in a broker the write "
        "thread is the managed ledger's executor thread, which other managed ledgers' writers can share, and the "
        "timer is shared (this is not reproduced on a broker here). The test runs on a new thread, whose Recycler "
        "pool starts empty, so the reuse is deterministic (Netty 4.1.136)",
        "aTimerFlushQueuedBehindCloseFailsAnotherWritersRecordThroughTheRecycledContext",
        "two writers sharing one write thread, and a write thread that runs tasks later than they are queued; the "
        "protocol drives one writer on a same-thread executor",
    ),
    TxlogFinding(
        "T2",
        "a batch whose serialization throws stays buffered, and the next flush writes it over max_records",
        "outside the profile (it has no serializer fault); the trace after it breaks `TXLOG-LIMITS` (an entry of "
        "max_records + 1 records) and `TXLOG-METRICS` (a trigger counted for a flush that wrote nothing)",
        "`trigFlushIfReachMaxRecordsOrMaxSize` records the trigger in the metrics, then `doFlush` allocates the "
        "4-byte prefix and calls `dataSerializer.serialize(dataArray)` outside any try: the exception leaves "
        "`dataArray`, `flushContext` and `bytesSize` as they were (and the prefix buffer unreleased) and ends in "
        "`asyncAddData`'s `exceptionally` (a warning). Only `getSerializedSize` and the single-record "
        "`serialize` of a large record are caught (`ManagedLedgerInterceptException`). The records wait, "
        "callbacks pending, for the next trigger; the count trigger is `>=`, so the next add flushes them with it",
        "aBatchWhoseSerializationFailsStaysBufferedAndTheNextFlushWritesItOverMaxRecords",
        "a serializer that throws; the profile has no serializer fault, so the protocol has no operation for one",
    ),
)

OBSERVED = (
    (
        "O1: the delay histogram (`_bufferedwriter_batch_oldest_record_delay_seconds`) is "
        "`System.currentTimeMillis()` at flush minus at add, not the timer's clock: in virtual time it reads about "
        "0, so the spec's `delay` counter can only be compared on a real clock. Records and bytes match exactly."
    ),
    (
        "O2: `TXLOG-ORDER` rests on the managed ledger: `BookKeeperBatchedWriteCallback` fans an entry out when the "
        "ledger completes it, in whatever order the ledger does; the spec's `Complete` completes the oldest entry, "
        "as a managed ledger completes adds."
    ),
    (
        "O3: buffered records failed by close get a new `ManagedLedgerFencedException`; adds after close get the "
        "static `BUFFERED_WRITER_CLOSED_EXCEPTION` (same message). Both are failures, as the profile says."
    ),
    (
        "O4: PIP-160 first shipped in 2.11.0 (2.10.0 has no `TxnLogBufferedWriter`). Its form differs (javap -c "
        "and the sources jar): no metrics, no `batchedWriteMaxRecords > 1` gate, the write thread from "
        "`OrderedExecutor.chooseThread`, and every add also flushes when the oldest record is `maxDelay` old by "
        "`System.currentTimeMillis()`; its sweep (`doTrigFlush(false, true)`) re-arms in a `finally`, after empty "
        "sweeps too, so no release on Maven Central has the re-arm-only-after-a-flush timer of `01768dadd`. "
        "3.0.0's bytecode equals 4.2.4's (javap -c, constant-pool indexes aside). 2.11.0 is not run."
    ),
)


def txlog_writer_section() -> str:
    """DEVIATIONS.md's "Transaction-log writer (PIP-160)" subsection of the real-code section."""
    agree = sum(case.agrees for case in CASES)
    lines = [
        "",
        "### Transaction-log writer (PIP-160)",
        "",
        (
            f"JUnit cases (`{TEST_CLASS}`, module `{MODULE}`) drive the real `TxnLogBufferedWriter` of "
            f"org.apache.pulsar:pulsar-transaction-coordinator {' and '.join(RELEASES_RUN)} with a Mockito "
            "`ManagedLedger` whose adds the test completes or fails (in order or not), a Netty `Timer` whose "
            "timeouts fire only when the test advances virtual time, a same-thread write executor (or a queue the "
            "test runs), records of given byte sizes, and the real `TxnLogBufferedWriterMetricsStats` on its own "
            "`CollectorRegistry`. Each asserts what the release does, against the `pulsar-master` profile "
            f"(max_records 3, max_size 50, max_delay 5): {agree} of {len(CASES)} agree. `javap` of releases "
            f"{', '.join(RELEASES_CHECKED)}: see O4."
        ),
        "",
        "| JUnit case | Profile (`pulsar-master`) | Real 4.2.4 | Agrees |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{c.method}` | {c.expected} | {c.observed} | {'yes' if c.agrees else '**no**'} |" for c in CASES]
    v = PROTOCOL_VERDICT
    lines += [
        "",
        (
            f"Over process protocol v1 (`ledgerspec conform --system txlog-writer --adapter {ADAPTER}`: "
            "`TxlogWriterHarness` drives the same release in the same rig, and the runner's search shrinks any "
            f"failure to a minimal counterexample), against `{PROFILE}` at `{v.settings}` settings, seed {v.seed}: "
            f"**{v.verdict}**, {v.examples} examples, {v.steps} steps, every invariant held. The harness claims no "
            "`metrics_delay`: the delay metric is wall-clock time (O1), so it is not compared; records, bytes and "
            "triggers are. T1 and T2 are declared deviations the protocol cannot reach (below: what each would "
            "need); their JUnit cases reproduce them. CI (tests/slow/test_real_txlog_protocol.py) turns red on "
            "any other verdict, and `ledgerspec run` prints it."
        ),
    ]
    for f in FINDINGS:
        lines += ["", f"#### {f.key}: {f.title}", "", f"Invariants: {f.invariants}. Why: {f.why}."]
        [case] = [c for c in CASES if c.method == f.reproduction]
        lines += ["", f"Steps (`{f.reproduction}`): {case.steps}.", "", f"Out of the protocol's reach: {f.protocol}."]
    lines += ["", "Observed, not a deviation:", ""]
    lines += [f"* {observation}" for observation in OBSERVED]
    lines += [
        "",
        (
            f"Run: `ledgerspec conform --system txlog-writer --adapter {ADAPTER}` (the verdict) and "
            f"`ledgerspec harness test` (the JUnit cases; surefire reports under the build's `real/{MODULE}/target/"
            "surefire-reports`). A Pulsar developer copies "
            f"`{MODULE}/src/test/java/org/apache/pulsar/transaction/coordinator/impl/{TEST_CLASS}.java` and "
            f"`{MODULE}/src/main/java/org/apache/pulsar/transaction/coordinator/impl/WriterRig.java` into "
            "`pulsar-transaction/coordinator/src/test/java/` at the same package."
        ),
    ]
    return "\n".join(lines) + "\n"
