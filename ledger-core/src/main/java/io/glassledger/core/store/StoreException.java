package io.glassledger.core.store;

import io.glassledger.verify.LedgerException;

/**
 * A {@link NodeStore} call failed in the storage layer (RocksDB's I/O, for example "Too many open files" or a full
 * disk), not because of what was asked. Contract: the failed call changed nothing that a reader can see (a
 * {@link NodeStore#write} is atomic), so the same call may be repeated, and may succeed once the cause is gone.
 */
public class StoreException extends LedgerException {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
