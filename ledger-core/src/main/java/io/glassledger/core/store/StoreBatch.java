package io.glassledger.core.store;

import io.glassledger.verify.hash.Hash;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Everything one ledger append writes, applied by {@link NodeStore#write} all at once or not at all. */
public final class StoreBatch {
    /** Position of a complete subtree of the upper tree: 2^level blocks starting at index * 2^level. */
    public record UpperKey(int level, long index) {
    }

    final Map<Hash, byte[]> nodes = new LinkedHashMap<>();
    final TreeMap<Long, byte[]> blocks = new TreeMap<>();
    final Map<UpperKey, Hash> upper = new LinkedHashMap<>();
    final Map<String, byte[]> meta = new LinkedHashMap<>();
    final TreeMap<Long, byte[]> blockTxs = new TreeMap<>();

    public StoreBatch putNode(Hash hash, byte[] encoded) {
        nodes.put(hash, encoded);
        return this;
    }

    public boolean hasNode(Hash hash) {
        return nodes.containsKey(hash);
    }

    public StoreBatch putBlock(long number, byte[] record) {
        blocks.put(number, record);
        return this;
    }

    /** The signed transactions of block {@code number}, kept for auditors (FORMAT.md §14.3). */
    public StoreBatch putBlockTransactions(long number, byte[] record) {
        blockTxs.put(number, record);
        return this;
    }

    public StoreBatch putUpper(int level, long index, Hash hash) {
        upper.put(new UpperKey(level, index), hash);
        return this;
    }

    public Hash pendingUpper(int level, long index) {
        return upper.get(new UpperKey(level, index));
    }

    public StoreBatch putMeta(String key, byte[] value) {
        meta.put(key, value);
        return this;
    }

}
