package io.glassledger.verify.block;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.txn.SignedTransaction;
import java.util.ArrayList;
import java.util.List;

/**
 * A block to append: its timestamp, the transactions it holds, their writes (at most one per key), and optionally
 * the record of the signed transactions (FORMAT.md §14.3), which the ledger keeps beside the block and binds into
 * its body through the meta entry {@code txs}.
 */
public record BlockSpec(long timestamp, List<Bytes> txIds, List<Mutation> writes, Bytes transactions,
                        Hash transactionsHash) {
    /**
     * @param transactions     the block's signed-transaction record (FORMAT.md §14.3), or null
     * @param transactionsHash its {@code txs} hash ({@link SignedTransaction#transactionsHash}); null to compute it
     *                         from {@code transactions}
     */
    public BlockSpec {
        txIds = List.copyOf(txIds);
        writes = List.copyOf(writes);
        if (transactions == null) {
            transactionsHash = null;
        } else if (transactionsHash == null) {
            transactionsHash = SignedTransaction.transactionsHash(SignedTransaction.decodeList(transactions));
        }
    }

    public BlockSpec(long timestamp, List<Bytes> txIds, List<Mutation> writes) {
        this(timestamp, txIds, writes, null, null);
    }

    public BlockSpec(long timestamp, List<Bytes> txIds, List<Mutation> writes, Bytes transactions) {
        this(timestamp, txIds, writes, transactions, null);
    }

    /**
     * What the ledger appends for a block of these transactions (FORMAT.md §14.3): their ids in order, the union of
     * their writes, and their records. An auditor re-executes a block with it.
     */
    public static BlockSpec of(long timestamp, List<SignedTransaction> txs) {
        List<Bytes> ids = new ArrayList<>(txs.size());
        List<Mutation> writes = new ArrayList<>();
        for (SignedTransaction s : txs) {
            ids.add(s.txId());
            writes.addAll(s.tx().writes());
        }
        return new BlockSpec(timestamp, ids, writes, Bytes.wrap(SignedTransaction.encodeList(txs)),
                SignedTransaction.transactionsHash(txs));
    }
}
