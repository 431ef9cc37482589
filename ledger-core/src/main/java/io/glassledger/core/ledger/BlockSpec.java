package io.glassledger.core.ledger;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.postree.Mutation;
import java.util.List;

/**
 * A block to append: its timestamp, the transactions it holds, their writes (at most one per key), and optionally
 * the record of the signed transactions (FORMAT.md §14.3), which the ledger keeps beside the block and binds into
 * its body through the meta entry {@code txs}.
 */
public record BlockSpec(long timestamp, List<Bytes> txIds, List<Mutation> writes, Bytes transactions) {
    public BlockSpec {
        txIds = List.copyOf(txIds);
        writes = List.copyOf(writes);
    }

    public BlockSpec(long timestamp, List<Bytes> txIds, List<Mutation> writes) {
        this(timestamp, txIds, writes, null);
    }
}
