package io.glassledger.core.store;

import io.glassledger.verify.LedgerException;
import java.nio.file.Path;

/**
 * The store was closed (the service is shutting down) before or while a read or write reached it. The operation had
 * no effect; a service answers it as {@code unavailable} (503, retry elsewhere or later).
 */
public final class StoreClosedException extends LedgerException {
    public StoreClosedException(Path dir) {
        super("the store at " + dir + " is closed (shutting down)");
    }
}
