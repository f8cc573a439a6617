package ledgerspec.world;

import com.google.common.util.concurrent.MoreExecutors;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.common.util.OrderedExecutor;

/**
 * Every thread of the harness's brokers, bookies and metadata store, as one: a single worker that runs each task
 * in the order it was submitted, and counts them, so that {@link #settle()} returns exactly when nothing is left
 * to run. No sleep, no poll, no wall clock: the same steps give the same task order on an idle or a loaded
 * machine. The executors the released classes create for themselves are redirected here by {@link #capture}
 * (their own threads shut down), a crashed broker's included, so its late callbacks run to quiescence too.
 * A task given a delay is a timer: the cursor-state protocol has no clock, so timers are kept, counted in
 * {@link #timers()}, and never run (the factory's periodic flush and statistics, retries with a backoff).
 */
public final class World extends AbstractExecutorService implements ScheduledExecutorService {
    private final ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "ledgerspec-world");
                thread.setDaemon(true);
                return thread;
            });
    private final Object lock = new Object();
    private long pending;
    private long timers;
    private volatile boolean shutdown;
    private final Set<Object> captured = Collections.newSetFromMap(new IdentityHashMap<>());

    @Override
    public void execute(Runnable task) {
        synchronized (lock) {
            pending++;
        }
        worker.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) { // as an executor thread would: the task failed, the world goes on
                System.err.println("a task failed: " + e);
            } finally {
                synchronized (lock) {
                    if (--pending == 0) {
                        lock.notifyAll();
                    }
                }
            }
        });
    }

    /** Run every task there is, and every task those tasks start, until none is left. */
    public void settle() {
        if (Thread.currentThread().getName().equals("ledgerspec-world")) {
            throw new IllegalStateException("settle() on the world's own thread would never return");
        }
        do {
            synchronized (lock) {
                while (pending > 0) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while settling", e);
                    }
                }
            }
            // a CompletableFuture continuation without an executor runs on the common pool: it may submit more
            ForkJoinPool.commonPool().awaitQuiescence(Long.MAX_VALUE, TimeUnit.DAYS);
        } while (!idle());
    }

    private boolean idle() {
        synchronized (lock) {
            return pending == 0;
        }
    }

    /** The future's value once the world has settled; that it is not done by then is the harness's error. */
    public <T> T await(CompletableFuture<T> future, String what) {
        settle();
        if (!future.isDone()) {
            throw new IllegalStateException(what + " did not complete: nothing was left to run");
        }
        return future.join();
    }

    /** How many timers were set and never run. */
    public long timers() {
        synchronized (lock) {
            return timers;
        }
    }

    /**
     * Redirect every executor {@code owner} holds in its fields (its class and superclasses) to this world and
     * shut its own down: an {@link OrderedExecutor}'s threads are replaced in place, so every object that holds
     * the OrderedExecutor uses the world from then on. Returns how many executors were captured.
     */
    public int capture(Object owner) throws ReflectiveOperationException {
        int n = 0;
        for (Class<?> type = owner.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                Class<?> fieldType = field.getType();
                if (OrderedExecutor.class.isAssignableFrom(fieldType)) {
                    field.setAccessible(true);
                    Object ordered = field.get(owner);
                    if (ordered != null && captureOrdered((OrderedExecutor) ordered)) {
                        n++;
                    }
                } else if (fieldType == ExecutorService.class || fieldType == ScheduledExecutorService.class
                        || fieldType == java.util.concurrent.Executor.class) {
                    field.setAccessible(true);
                    Object old = field.get(owner);
                    if (old != null && old != this) {
                        field.set(owner, this);
                        if (old instanceof ExecutorService service && !(old instanceof World)) {
                            service.shutdownNow();
                        }
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** {@link #capture} of {@code owner} and of the objects its fields {@code parts} hold (a factory's store, its cache). */
    public int captureWith(Object owner, String... parts) throws ReflectiveOperationException {
        int n = capture(owner);
        for (String name : parts) {
            Field field = null;
            for (Class<?> type = owner.getClass(); field == null && type != null; type = type.getSuperclass()) {
                for (Field declared : type.getDeclaredFields()) {
                    if (declared.getName().equals(name)) {
                        field = declared;
                    }
                }
            }
            if (field == null) {
                throw new NoSuchFieldException(owner.getClass().getName() + "." + name);
            }
            field.setAccessible(true);
            Object part = field.get(owner);
            if (part != null) {
                n += capture(part);
            }
        }
        return n;
    }

    /** The OrderedExecutor's threads, each replaced by the world (as a Guava listening executor, as OrderedScheduler casts). */
    public boolean captureOrdered(OrderedExecutor ordered) throws ReflectiveOperationException {
        synchronized (captured) {
            if (!captured.add(ordered)) {
                return false;
            }
        }
        Field field = OrderedExecutor.class.getDeclaredField("threads");
        field.setAccessible(true);
        ExecutorService[] threads = (ExecutorService[]) field.get(ordered);
        for (int i = 0; i < threads.length; i++) {
            threads[i].shutdownNow();
            threads[i] = MoreExecutors.listeningDecorator((ScheduledExecutorService) this);
        }
        return true;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (delay <= 0) {
            Timer<Object> now = new Timer<>();
            execute(() -> {
                command.run();
                now.complete(null);
            });
            return now;
        }
        return timer();
    }

    @Override
    public <V> ScheduledFuture<V> schedule(java.util.concurrent.Callable<V> callable, long delay, TimeUnit unit) {
        if (delay <= 0) {
            Timer<V> now = new Timer<>();
            execute(() -> {
                try {
                    now.complete(callable.call());
                } catch (Exception e) {
                    now.completeExceptionally(e);
                }
            });
            return now;
        }
        return timer();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return timer();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return timer();
    }

    private <V> ScheduledFuture<V> timer() {
        synchronized (lock) {
            timers++;
        }
        return new Timer<>();
    }

    @Override
    public void shutdown() {
        // the brokers shut their executors down when they close; the world ends with the example (end())
    }

    @Override
    public List<Runnable> shutdownNow() {
        return new ArrayList<>();
    }

    /** The example is over: the worker thread ends. */
    public void end() {
        shutdown = true;
        worker.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && worker.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    /** A timer that never fires (or a task run now, completed when it has run). */
    private static final class Timer<V> extends CompletableFuture<V> implements ScheduledFuture<V> {
        @Override
        public long getDelay(TimeUnit unit) {
            return isDone() ? 0 : Long.MAX_VALUE;
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
