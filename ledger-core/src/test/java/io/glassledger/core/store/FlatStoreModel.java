package io.glassledger.core.store;

import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * The reference model of a {@link FlatStore}: a TreeMap of keys to a TreeMap of block to value ({@link #DELETED}
 * for a delete), and the blocks a seed generates: keys over the bytes {@code 00 01 7f ff} of 1 to 4 bytes, so that
 * keys are prefixes of one another and hold the escape byte, values of 0 to 300 bytes, one write in five a delete.
 */
final class FlatStoreModel {
    static final Bytes DELETED = Bytes.utf8("<deleted>");
    private static final byte[] ALPHABET = {0x00, 0x01, 0x7f, (byte) 0xff};
    final TreeMap<Bytes, TreeMap<Long, Bytes>> versions = new TreeMap<>();

    static Bytes randomKey(Random r) {
        byte[] k = new byte[1 + r.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            k[i] = ALPHABET[r.nextInt(ALPHABET.length)];
        }
        return Bytes.wrap(k);
    }

    /** Block {@code block} of a run with {@code seed}: 1 to 30 writes of distinct keys. */
    static List<Mutation> block(long seed, long block) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + block);
        Map<Bytes, Mutation> m = new LinkedHashMap<>();
        int n = 1 + r.nextInt(30);
        while (m.size() < n) {
            Bytes k = randomKey(r);
            if (r.nextInt(5) == 0) {
                m.put(k, Mutation.delete(k));
            } else {
                byte[] v = new byte[r.nextInt(301)];
                r.nextBytes(v);
                m.put(k, Mutation.put(k, Bytes.wrap(v)));
            }
        }
        return new ArrayList<>(m.values());
    }

    void apply(long block, List<Mutation> mutations) {
        for (Mutation m : mutations) {
            versions.computeIfAbsent(m.key(), k -> new TreeMap<>()).put(block, m.isDelete() ? DELETED : m.value());
        }
    }

    /** The newest version of {@code key} at or before {@code block}: its block and value (DELETED for a delete). */
    Optional<Map.Entry<Long, Bytes>> at(Bytes key, long block) {
        TreeMap<Long, Bytes> v = versions.get(key);
        return v == null ? Optional.empty() : Optional.ofNullable(v.floorEntry(block));
    }

    List<Map.Entry<Long, Bytes>> versions(Bytes key, long block, int limit) {
        TreeMap<Long, Bytes> v = versions.get(key);
        List<Map.Entry<Long, Bytes>> out = new ArrayList<>();
        if (v != null) {
            for (Map.Entry<Long, Bytes> e : v.headMap(block, true).descendingMap().entrySet()) {
                if (out.size() == limit) {
                    break;
                }
                out.add(e);
            }
        }
        return out;
    }

    /** Keys in [from, to) with a value at {@code block}, and that value, at most {@code limit}. */
    List<Map.Entry<Bytes, Bytes>> scan(Bytes from, Bytes to, long block, int limit) {
        NavigableMap<Bytes, TreeMap<Long, Bytes>> range = versions;
        if (from != null && to != null && from.compareTo(to) >= 0) {
            return List.of();
        }
        if (from != null) {
            range = range.tailMap(from, true);
        }
        if (to != null) {
            range = range.headMap(to, false);
        }
        List<Map.Entry<Bytes, Bytes>> out = new ArrayList<>();
        for (Map.Entry<Bytes, TreeMap<Long, Bytes>> e : range.entrySet()) {
            Map.Entry<Long, Bytes> v = e.getValue().floorEntry(block);
            if (v != null && v.getValue() != DELETED && out.size() < limit) {
                out.add(Map.entry(e.getKey(), v.getValue()));
            }
        }
        return out;
    }
}
