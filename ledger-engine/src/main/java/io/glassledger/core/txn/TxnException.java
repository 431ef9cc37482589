package io.glassledger.core.txn;

import io.glassledger.verify.LedgerException;

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
        UNAVAILABLE(true),
        /**
         * This replica does not lead its shard's group (or has not yet applied what its term began with): send the
         * request to the leader ({@link TxnException#leader()} when known). Nothing was done.
         */
        NOT_LEADER(true),
        /**
         * The leader lost its leadership before the group confirmed the request: it may or may not have committed.
         * Ask the transaction's status at the new leader; never re-send it blindly.
         */
        OUTCOME_UNKNOWN(true);

        private final boolean retryable;

        Reason(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    private final Reason reason;
    private final String leader;

    public TxnException(Reason reason, String message) {
        this(reason, message, null);
    }

    /** @param leader the id of the group's leader as this replica knows it, or null */
    public TxnException(Reason reason, String message, String leader) {
        super(message);
        this.reason = reason;
        this.leader = leader;
    }

    /** For {@link Reason#NOT_LEADER} and {@link Reason#OUTCOME_UNKNOWN}: the leader's id when known, else null. */
    public String leader() {
        return leader;
    }

    public Reason reason() {
        return reason;
    }

    public boolean retryable() {
        return reason.retryable();
    }
}
