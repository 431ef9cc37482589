package io.glassledger.verify.proof;

import io.glassledger.verify.hash.Hash;
import java.util.Objects;

/**
 * What a client trusts: a block number and the ledger root at that block,
 * root = H(0x20 || u64 blockNo || upperRoot(blocks 0..blockNo-1) || blockHash(blockNo)).
 */
public record Digest(long blockNo, Hash root) {
    public Digest {
        Objects.requireNonNull(root, "root");
        if (blockNo < 0) {
            throw new IllegalArgumentException("negative block number");
        }
    }

    @Override
    public String toString() {
        return "Digest[" + blockNo + ":" + root.hex() + "]";
    }
}
