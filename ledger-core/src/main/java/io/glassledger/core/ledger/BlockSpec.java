package io.glassledger.core.ledger;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.postree.Mutation;
import java.util.List;

/** A block to append: its timestamp, the transactions it holds, and their writes (at most one per key). */
public record BlockSpec(long timestamp, List<Bytes> txIds, List<Mutation> writes) {
    public BlockSpec {
        txIds = List.copyOf(txIds);
        writes = List.copyOf(writes);
    }
}
