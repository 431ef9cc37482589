package io.glassledger.client;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import java.time.Duration;

/**
 * A promise checked: every write is in the promised block with its value (and that block's version), every read had
 * the value and version read, and the digests the proofs were checked against extend the client's trust.
 *
 * @param block        the promised block (0: a read-only transaction, or nothing was committed)
 * @param digest       the newest digest the proofs were checked against (null: nothing to check)
 * @param writesChecked the keys written that were checked
 * @param readsChecked  the reads that were checked
 * @param latency       from the commit's acknowledgement to the check
 */
public record VerificationOutcome(Bytes txId, long block, Digest digest, int writesChecked, int readsChecked,
                                  Duration latency) {
    @Override
    public String toString() {
        if (digest == null) {
            return "tx " + txId.hex() + " committed nothing: nothing to verify";
        }
        return "verified tx " + txId.hex() + (block > 0 ? " in block " + block : " (read-only)") + ": "
                + writesChecked + " writes, " + readsChecked + " reads against " + digest + " after "
                + latency.toMillis() + " ms";
    }
}
