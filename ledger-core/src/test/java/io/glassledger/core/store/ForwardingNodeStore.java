package io.glassledger.core.store;

import io.glassledger.verify.hash.Hash;

/**
 * A store that hands every call to another, an in-memory one unless given; tests override the calls they watch or
 * break. The one forwarding base of the test stores: a new {@link NodeStore} method is forwarded here, once.
 */
public abstract class ForwardingNodeStore implements NodeStore {
    protected final NodeStore inner;

    /** Over a fresh in-memory store. */
    protected ForwardingNodeStore() {
        this(new InMemoryNodeStore());
    }

    /** Over {@code inner}, which {@link #close} closes. */
    protected ForwardingNodeStore(NodeStore inner) {
        this.inner = inner;
    }

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
        inner.close();
    }
}
