package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.entry.Mutation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Deterministic block formation (FORMAT.md §15.2): a pure function of the log. Committed transactions, in log
 * order, fill the blocks of the open epoch; a seal closes the epoch. A transaction goes to the lowest block of the
 * epoch that is
 * <ul>
 *   <li>above every block holding a version of a key it writes (write-write),</li>
 *   <li>not below the block holding the version of any key it read (write-read), and</li>
 *   <li>not below the block of any earlier transaction of the epoch that read a key it writes (read-write: that
 *       reader saw the version this transaction overwrites, so it precedes it in every serial order).</li>
 * </ul>
 * Every transaction's predecessors in the log's dependency graph are therefore in its block or below, and within a
 * block in log order before it: the transactions of blocks ≤ b are closed under those dependencies, and replaying
 * the blocks in order (each block's transactions in log order) reproduces every read. So every block's state is
 * that of a prefix of one serial order. A block holds at most one version of each key, and versions of a key go to
 * increasing blocks in commit order. A replica or an auditor replaying the same log forms the same blocks.
 *
 * <p>Not thread-safe.
 */
public final class BlockSequencer {
    /** A sealed epoch: blocks firstBlock, firstBlock+1, ..., all stamped with the seal's timestamp. */
    public record Epoch(long firstBlock, long timestamp, List<List<SignedTransaction>> blocks) {
        public Epoch {
            blocks = blocks.stream().map(List::copyOf).toList();
        }

        public long lastBlock() {
            return firstBlock + blocks.size() - 1;
        }

        /** The ledger's view of the epoch: per block its transaction ids, writes and signed-transaction record. */
        public List<BlockSpec> specs() {
            List<BlockSpec> out = new ArrayList<>(blocks.size());
            for (List<SignedTransaction> txs : blocks) {
                out.add(BlockSpec.of(timestamp, txs));
            }
            return out;
        }
    }

    private long epochBase;
    private final boolean batching;
    /** Per key written in the open epoch: one above the block of its latest version (relative to the epoch). */
    private final Map<Bytes, Integer> nextFree = new HashMap<>();
    /** Per key read in the open epoch: the highest block (relative) of a transaction that read it. */
    private final Map<Bytes, Integer> readFloor = new HashMap<>();
    private final List<List<SignedTransaction>> blocks = new ArrayList<>();

    /** @param epochBase the number of the first block the open epoch will form */
    public BlockSequencer(long epochBase) {
        this(epochBase, true);
    }

    /**
     * @param batching false: every transaction gets a block of its own, above all the epoch's others (GlassDB without
     *                 transaction batching; the same invariants hold trivially)
     */
    public BlockSequencer(long epochBase, boolean batching) {
        this.batching = batching;
        if (epochBase < 1) {
            throw new IllegalArgumentException("block 0 is the genesis block");
        }
        this.epochBase = epochBase;
    }

    /** Places a committed transaction that writes something; returns its block number. */
    public long assign(SignedTransaction stx) {
        Transaction tx = stx.tx();
        if (tx.writes().isEmpty()) {
            throw new IllegalArgumentException("a read-only transaction goes in no block");
        }
        int j = batching ? 0 : blocks.size();
        for (Transaction.Read r : tx.reads()) {
            Integer nf = nextFree.get(r.key());
            if (nf != null) {
                j = Math.max(j, nf - 1);
            }
        }
        for (Mutation m : tx.writes()) {
            Integer nf = nextFree.get(m.key());
            if (nf != null) {
                j = Math.max(j, nf);
            }
            Integer rf = readFloor.get(m.key());
            if (rf != null) {
                j = Math.max(j, rf);
            }
        }
        for (Mutation m : tx.writes()) {
            nextFree.put(m.key(), j + 1);
        }
        for (Transaction.Read r : tx.reads()) {
            readFloor.merge(r.key(), j, Math::max);
        }
        while (blocks.size() <= j) {
            blocks.add(new ArrayList<>());
        }
        blocks.get(j).add(stx);
        return epochBase + j;
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** Closes the open epoch; null if it holds no transaction (an empty epoch is never sealed). */
    public Epoch seal(long timestamp) {
        if (blocks.isEmpty()) {
            return null;
        }
        Epoch e = new Epoch(epochBase, timestamp, blocks);
        epochBase += blocks.size();
        blocks.clear();
        nextFree.clear();
        readFloor.clear();
        return e;
    }

    /** The first block of the open epoch. */
    public long epochBase() {
        return epochBase;
    }

    /** One past the highest block number promised so far. */
    public long nextBlockBound() {
        return epochBase + blocks.size();
    }
}
