package io.glassledger.verify.txn;

import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import java.util.List;

/**
 * One batched proof for keys of block {@code blockNo} against the shard's digest {@code digest}: the claims (the
 * value of each key in that block's state, sorted by key) and the proof. Requests for the same block that arrive
 * together share one traversal, but each gets a proof and claims of its own keys only.
 */
public record BlockProof(long blockNo, Digest digest, List<KeyClaim> claims, KeysProof proof) {
    public BlockProof {
        claims = List.copyOf(claims);
    }
}
