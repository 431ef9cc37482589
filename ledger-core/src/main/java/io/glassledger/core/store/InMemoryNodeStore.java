package io.glassledger.core.store;

import io.glassledger.verify.hash.Hash;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link NodeStore} in the heap, for tests, the SDK's scratch use and auditors' dry runs. Not durable. */
public final class InMemoryNodeStore implements NodeStore {
    private final Map<Hash, byte[]> nodes = new ConcurrentHashMap<>();
    private final Map<Long, byte[]> blocks = new ConcurrentHashMap<>();
    private final Map<StoreBatch.UpperKey, Hash> upper = new ConcurrentHashMap<>();
    private final Map<String, byte[]> meta = new ConcurrentHashMap<>();
    private final Map<Long, byte[]> blockTxs = new ConcurrentHashMap<>();
    private volatile long blockCount;
    private long bytes;

    @Override
    public byte[] node(Hash hash) {
        return nodes.get(hash);
    }

    @Override
    public byte[] block(long number) {
        return blocks.get(number);
    }

    @Override
    public byte[] blockTransactions(long number) {
        return blockTxs.get(number);
    }

    @Override
    public Hash upper(int level, long index) {
        return upper.get(new StoreBatch.UpperKey(level, index));
    }

    @Override
    public byte[] meta(String key) {
        return meta.get(key);
    }

    @Override
    public long blockCount() {
        return blockCount;
    }

    @Override
    public synchronized void write(StoreBatch batch) {
        long next = blockCount;
        for (long n : batch.blocks.keySet()) {
            if (n != next++) {
                throw new IllegalStateException("blocks must be appended in order: expected " + (next - 1) + ", got " + n);
            }
        }
        Map<Hash, byte[]> fresh = new HashMap<>(batch.nodes);
        fresh.keySet().removeAll(nodes.keySet());
        fresh.forEach((h, b) -> bytes += b.length + Hash.LENGTH);
        nodes.putAll(fresh);
        upper.putAll(batch.upper);
        meta.putAll(batch.meta);
        batch.blocks.forEach((n, b) -> bytes += b.length + 8);
        batch.blockTxs.forEach((n, b) -> bytes += b.length + 8);
        blockTxs.putAll(batch.blockTxs);
        blocks.putAll(batch.blocks);
        blockCount = next;
    }

    @Override
    public synchronized long sizeBytes() {
        return bytes + upper.size() * 41L;
    }

    @Override
    public void close() {
    }
}
