package io.glassledger.core.store;

import io.glassledger.verify.hash.Hash;

/**
 * Where a ledger keeps its bytes: tree nodes by hash, block records by number, the upper tree's complete
 * subtree hashes, and a little metadata.
 *
 * <p>Contract: {@link #write} is atomic (after a crash, all of a batch or none of it is visible) and, when the
 * store is durable, the batch is on stable storage when it returns. Reads are thread-safe and may run
 * concurrently with one writer. Blocks are written in order, without gaps.
 */
public interface NodeStore extends AutoCloseable {
    /** The encoded node, or null. */
    byte[] node(Hash hash);

    /** The block record, or null. */
    byte[] block(long number);

    /** The record of a block's signed transactions, or null if the block has none. */
    byte[] blockTransactions(long number);

    /** A complete-subtree hash of the upper tree, or null. */
    Hash upper(int level, long index);

    byte[] meta(String key);

    /** Blocks stored: the next block's number. */
    long blockCount();

    void write(StoreBatch batch);

    /** Bytes this store occupies on disk (or in memory, for the in-memory store). */
    long sizeBytes();

    @Override
    void close();
}
