package io.glassledger.verify.block;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.txn.SignedTransaction;
import java.util.ArrayList;
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

    /**
     * What the ledger appends for a block of these transactions (FORMAT.md §14.3): their ids in order, the union of
     * their writes, and their records. An auditor re-executes a block with it.
     */
    public static BlockSpec of(long timestamp, List<SignedTransaction> txs) {
        List<Bytes> ids = new ArrayList<>(txs.size());
        List<Mutation> writes = new ArrayList<>();
        int bytes = 8;
        for (SignedTransaction s : txs) {
            ids.add(s.txId());
            writes.addAll(s.tx().writes());
            bytes += s.size() + 5;
        }
        return new BlockSpec(timestamp, ids, writes, Bytes.wrap(transactionsRecord(txs, bytes)));
    }

    /** {@code varint n || n × (varint len || signed transaction record)} (FORMAT.md §14.3). */
    private static byte[] transactionsRecord(List<SignedTransaction> txs, int sizeHint) {
        ByteWriter w = new ByteWriter(sizeHint);
        w.varint(txs.size());
        for (SignedTransaction s : txs) {
            w.lengthPrefixed(s.recordUnsafe());
        }
        return w.toByteArray();
    }
}
