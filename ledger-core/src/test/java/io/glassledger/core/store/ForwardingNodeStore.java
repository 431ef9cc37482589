package io.glassledger.core.store;

import io.glassledger.verify.hash.Hash;

/** A store that hands every call to an in-memory store; tests override the calls they watch. */
public abstract class ForwardingNodeStore implements NodeStore {
    protected final InMemoryNodeStore inner = new InMemoryNodeStore();

    @Override
    public byte[] node(Hash hash) {
        return inner.node(hash);
    }

    @Override
    public byte[] block(long number) {
        return inner.block(number);
    }

    @Override
    public byte[] blockTransactions(long number) {
        return inner.blockTransactions(number);
    }

    @Override
    public Hash upper(int level, long index) {
        return inner.upper(level, index);
    }

    @Override
    public byte[] meta(String key) {
        return inner.meta(key);
    }

    @Override
    public long blockCount() {
        return inner.blockCount();
    }

    @Override
    public void write(StoreBatch batch) {
        inner.write(batch);
    }

    @Override
    public long sizeBytes() {
        return inner.sizeBytes();
    }

    @Override
    public void close() {
    }
}
