package io.glassledger.core.txn;

import io.glassledger.core.store.StoreException;
import java.util.function.Consumer;

/**
 * Whether the engine runs, degrades or has stopped, and who hears of it ({@link TxnEngine.Health},
 * {@link TxnEngine.Observer}). Every field is volatile: any thread reads them without a lock. {@code failure} is set
 * once ({@link #markFailed}); {@code storeFailure} only by the persisting thread; {@code closing} and
 * {@code stopSequencer} only by the closing thread.
 */
final class Lifecycle {
    private static final TxnEngine.Observer SILENT = new TxnEngine.Observer() { };

    volatile boolean closing;
    volatile boolean stopSequencer;
    volatile Throwable failure;
    /** Set while a failing block write is retried. */
    volatile StoreException storeFailure;
    private volatile TxnEngine.Observer observer = SILENT;
    private final Object failureLock = new Object();

    TxnEngine.Health health() {
        return failure != null ? TxnEngine.Health.FAILED : storeFailure != null ? TxnEngine.Health.DEGRADED
                : TxnEngine.Health.UP;
    }

    Throwable failureCause() {
        Throwable f = failure;
        return f != null ? f : storeFailure;
    }

    /** The observer; its callbacks must be fast and must not throw or block. */
    TxnEngine.Observer observer() {
        return observer;
    }

    void observe(TxnEngine.Observer o) {
        this.observer = o == null ? new TxnEngine.Observer() { } : o;
    }

    /** Calls the observer, ignoring what it throws: the engine's own state still says what happened. */
    void notifyObserver(Consumer<TxnEngine.Observer> call) {
        try {
            call.accept(observer);
        } catch (RuntimeException ignored) {
            // an observer must not throw; if it does, the engine's own state still says what happened
        }
    }

    /** Records {@code t} as the failure; true only for the first call, which then tells the observer. */
    boolean markFailed(Throwable t) {
        boolean first;
        synchronized (failureLock) {
            first = failure == null;
            if (first) {
                failure = t;
            }
        }
        if (first) {
            notifyObserver(o -> o.failed(t, true));
        }
        return first;
    }

    /** The refusal of a request once the engine has failed. */
    TxnException unavailable() {
        return new TxnException(TxnException.Reason.UNAVAILABLE, "shard engine failed: " + failure);
    }
}
