package io.glassledger.core.postree;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Runs independent work over the indexes of a list on the caller's thread and, when one is free, a helper thread:
 * both take the next index until none is left. The work for one index must touch nothing another index's work
 * writes; results go into slots owned by their index, so the outcome is the same whatever the interleaving, and the
 * caller sees every write once this returns (each index's completion is counted down on a latch the caller awaits).
 *
 * <p>The helpers are one daemon thread per processor beyond the first. A helper busy with another caller's work
 * costs nothing but the help: the caller then does every index itself. With one processor, or fewer than
 * {@link #MIN_ITEMS} items, everything runs on the caller's thread.
 */
public final class SplitWork {
    /** Below this, handing work over costs more than it saves. */
    static final int MIN_ITEMS = 32;

    private static final ExecutorService HELPERS = helpers(Runtime.getRuntime().availableProcessors() - 1);

    private SplitWork() {
    }

    private static ExecutorService helpers(int n) {
        if (n < 1) {
            return null;
        }
        // A share queued behind a busy helper finds no index left when it runs; the caller never waits for it.
        ThreadPoolExecutor pool = new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "glassledger-tree-helper");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Calls {@code work} once for every index of {@code items}, on this thread and possibly a helper. */
    public static void forEachIndex(List<?> items, IntConsumer work) {
        int n = items.size();
        if (HELPERS == null || n < MIN_ITEMS) {
            for (int i = 0; i < n; i++) {
                work.accept(i);
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Runs of indexes rather than single ones: neighbouring slots share cache lines (and the collector's card
        // table), which two threads writing alternate indexes would pass back and forth.
        int run = Math.max(1, n / (8 * MIN_ITEMS / 4));
        Runnable share = () -> {
            for (int from = next.getAndAdd(run); from < n; from = next.getAndAdd(run)) {
                for (int i = from; i < Math.min(n, from + run); i++) {
                    try {
                        work.accept(i);
                    } catch (RuntimeException | Error e) {
                        if (!failure.compareAndSet(null, e)) {
                            failure.get().addSuppressed(e);
                        }
                    } finally {
                        done.countDown();
                    }
                }
            }
        };
        HELPERS.execute(share);
        share.run();
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a helper finished its share", e);
        }
        Throwable f = failure.get();
        if (f instanceof RuntimeException re) {
            throw re;
        }
        if (f instanceof Error er) {
            throw er;
        }
    }
}
