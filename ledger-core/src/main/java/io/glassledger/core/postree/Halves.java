package io.glassledger.core.postree;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * Runs independent work over the indexes of a list on two cores: the caller takes the first half, one helper
 * thread the second. The work for one index must touch nothing another index's work writes; results go into slots
 * owned by their index, so the outcome is the same whatever the interleaving, and the caller sees every write once
 * this returns (the join orders them before).
 *
 * <p>With one processor, or fewer than {@link #MIN_ITEMS} items, everything runs on the caller's thread.
 */
public final class Halves {
    /** Below this, handing half the work over costs more than it saves. */
    static final int MIN_ITEMS = 32;

    private static final ExecutorService HELPER = Runtime.getRuntime().availableProcessors() < 2 ? null
            : Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "glassledger-tree-helper");
                t.setDaemon(true);
                return t;
            });

    private Halves() {
    }

    /** Calls {@code work} for every index of {@code items}, the second half possibly on another thread. */
    public static void forEachIndex(List<?> items, IntConsumer work) {
        int n = items.size();
        if (HELPER == null || n < MIN_ITEMS) {
            for (int i = 0; i < n; i++) {
                work.accept(i);
            }
            return;
        }
        int mid = n / 2;
        Future<?> other = HELPER.submit(() -> {
            for (int i = mid; i < n; i++) {
                work.accept(i);
            }
        });
        Throwable mine = null;
        try {
            for (int i = 0; i < mid; i++) {
                work.accept(i);
            }
        } catch (RuntimeException | Error e) {
            mine = e;
        }
        try {
            other.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the other half ran", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (mine == null) {
                mine = c;
            } else {
                mine.addSuppressed(c);
            }
        }
        if (mine instanceof RuntimeException re) {
            throw re;
        }
        if (mine instanceof Error er) {
            throw er;
        }
    }
}
