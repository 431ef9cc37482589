package io.glassledger.core.ledger;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of keys, values and hashes that answers may still collect: each is charged as it is taken, before the answer
 * is encoded, so an answer over budget stops at the part that crosses it. One budget may be shared by the several
 * answers of one request (the items of a proof batch). Thread-safe.
 */
public final class ByteBudget {
    private final long limit;
    private final String what;
    private final AtomicLong used = new AtomicLong();

    /** @param what names the answer in the refusal, e.g. "the proofs of this request" */
    public ByteBudget(long limit, String what) {
        if (limit < 0) {
            throw new IllegalArgumentException("negative byte budget");
        }
        this.limit = limit;
        this.what = what;
    }

    /** Charges {@code n} bytes; throws {@link ProofTooLargeException} if that takes the total over the limit. */
    public void charge(long n) {
        if (used.addAndGet(n) > limit) {
            throw new ProofTooLargeException(what + " would hold more than " + limit
                    + " bytes of keys, values and hashes", limit);
        }
    }

    public long remaining() {
        return Math.max(0, limit - used.get());
    }

    public long used() {
        return used.get();
    }
}
