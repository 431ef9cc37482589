package io.glassledger.core.txn;

import io.glassledger.core.LedgerException;

/**
 * A transaction request the engine did not carry out. {@link #reason()} is machine-readable; {@link #retryable()}
 * says whether the same request may succeed later (a full queue), or whether the client must re-run the transaction
 * with fresh reads and a new id (a conflict), or must not retry at all (bad input).
 */
public final class TxnException extends LedgerException {
    public enum Reason {
        /** The request queue is full; retry after a pause. Nothing was done. */
        OVERLOADED(true),
        /** A version read is no longer the latest, or a key is held by a prepared transaction. Re-run the transaction. */
        CONFLICT(false),
        /** The signature does not verify against the transaction's client key. */
        BAD_SIGNATURE(false),
        /** The transaction id was already used (a replayed or repeated request). */
        DUPLICATE(false),
        /** The transaction id's clock reading is outside the replay window. */
        STALE(false),
        /** The transaction is addressed to another shard. */
        WRONG_SHARD(false),
        /** Malformed or over a configured limit. */
        INVALID(false),
        /** A prepared transaction was already decided the other way. */
        ALREADY_DECIDED(false),
        /** No prepared transaction has that id. */
        UNKNOWN_TRANSACTION(false),
        /** The engine is closed or has failed (for example, the disk); nothing more is accepted. */
        UNAVAILABLE(true);

        private final boolean retryable;

        Reason(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    private final Reason reason;

    public TxnException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    public boolean retryable() {
        return reason.retryable();
    }
}
