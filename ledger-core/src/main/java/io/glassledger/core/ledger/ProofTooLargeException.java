package io.glassledger.core.ledger;

import io.glassledger.verify.LedgerException;

/**
 * A proof, history or scan would hold more than the byte budget its caller gave. Thrown while the answer is being
 * collected, before it is encoded, so an oversized answer stops early instead of filling the heap. Nothing changed.
 */
public final class ProofTooLargeException extends LedgerException {
    private final long limitBytes;

    public ProofTooLargeException(String message, long limitBytes) {
        super(message);
        this.limitBytes = limitBytes;
    }

    /** The budget that was exceeded, in bytes of keys, values and hashes (before any wire encoding). */
    public long limitBytes() {
        return limitBytes;
    }
}
