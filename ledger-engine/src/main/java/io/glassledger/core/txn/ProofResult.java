package io.glassledger.core.txn;

import io.glassledger.verify.txn.BlockProof;

/** The answer to a proof request: the proof, or "pending" when the block is not yet in the ledger. */
public sealed interface ProofResult permits ProofResult.Ready, ProofResult.Pending {
    record Ready(BlockProof proof) implements ProofResult {
    }

    /** Block {@code blockNo} is promised but not yet persisted; the ledger holds blocks up to {@code persisted}. */
    record Pending(long blockNo, long persisted) implements ProofResult {
    }
}
