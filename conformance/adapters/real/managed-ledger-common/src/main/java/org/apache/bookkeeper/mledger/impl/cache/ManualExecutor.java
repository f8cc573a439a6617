package org.apache.bookkeeper.mledger.impl.cache;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * An executor that runs nothing until told: what the real code submits (a size eviction scheduled by
 * an insert) waits for the {@code evict_size} operation, as the protocol wants. Like any executor, it
 * keeps a task's exception from the one who asked it to run the tasks; the exception goes to stderr.
 */
final class ManualExecutor {
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();

    /** A Mockito mock of {@code type} whose {@code execute(Runnable)} queues the task here. */
    <T extends Executor> T as(Class<T> type) {
        T executor = mock(type);
        doAnswer(call -> queued.add(call.getArgument(0))).when(executor).execute(any(Runnable.class));
        return executor;
    }

    void add(Runnable task) {
        queued.add(task);
    }

    boolean isEmpty() {
        return queued.isEmpty();
    }

    void clear() {
        queued.clear();
    }

    /** Run every queued task, in order; {@code who} names the harness in what goes to stderr. */
    void runAll(String who) {
        while (!queued.isEmpty()) {
            try {
                queued.poll().run();
            } catch (RuntimeException error) {
                System.err.println(who + ": a queued task threw (the executor keeps it): " + error);
            }
        }
    }
}
