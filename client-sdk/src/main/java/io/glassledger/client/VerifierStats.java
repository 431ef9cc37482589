package io.glassledger.client;

/**
 * What the background verifier has received: proof-batch answers, the keys proofs in them with their encoded
 * bytes and claims, and the bytes of the append-only proofs that came with them; and how many promises went
 * {@link PromiseOverdue overdue}, of which how many were proven later.
 */
public record VerifierStats(long batches, long proofs, long proofBytes, long claims, long appendOnlyBytes,
                            long overdue, long overdueProven) {
    /** Keys-proof bytes per claimed key (0 before the first proof). */
    public double proofBytesPerKey() {
        return claims == 0 ? 0 : (double) proofBytes / claims;
    }

    VerifierStats plus(VerifierStats o) {
        return new VerifierStats(batches + o.batches, proofs + o.proofs, proofBytes + o.proofBytes,
                claims + o.claims, appendOnlyBytes + o.appendOnlyBytes, overdue + o.overdue,
                overdueProven + o.overdueProven);
    }
}
