package io.glassledger.server.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Paces one load thread to at most {@code perSecond} operations a second: {@link #awaitSlot()} before each returns at
 * the operation's slot. Slots missed while an operation was slow are not made up, so a stalled cluster is not hit by
 * a burst when it returns. A paced load is the same for a restarted server to catch up with however busy the machine
 * is: unpaced, the load took every core the machine had and made each restart and catch-up take minutes (issue 33).
 * One per thread; not thread-safe.
 */
public final class Pacer {
    private final long interval;
    private long next = System.nanoTime();

    /** @param perSecond operations a second at most; 0 for no pacing */
    public Pacer(double perSecond) {
        this.interval = perSecond > 0 ? (long) (TimeUnit.SECONDS.toNanos(1) / perSecond) : 0;
    }

    /** Waits until the next operation's slot. */
    public void awaitSlot() {
        long wait = next - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        next = Math.max(next, System.nanoTime() - interval) + interval;
    }
}
