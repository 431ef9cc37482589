package io.glassledger.verify.txn;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;

/**
 * What a commit returns (GlassDB §3.3.3): the transaction's writes will be in block {@code blockNo} of shard
 * {@code shard}, and {@code served} is the digest the shard had when it acknowledged. blockNo is 0 for a
 * read-only transaction, which lands in no block.
 */
public record Promise(Bytes txId, int shard, long blockNo, Digest served) {
    public boolean readOnly() {
        return blockNo == 0;
    }
}
