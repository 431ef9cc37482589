package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Generators and model helpers shared by the POS-tree property tests. Parameters are small so that a few hundred
 * keys give trees of several levels, and both boundary rules (pattern and maximum size) fire. Collection sizes are
 * uniform over their range (jqwik's default favours small collections, which here means one-leaf trees).
 */
final class TreeGen {
    private TreeGen() {
    }

    /** One write of a batch: a put, or (value null) a delete, of the key in slot {@code slot % pool size}. */
    record Op(int slot, Bytes value) {
    }

    static Arbitrary<TreeParams> params() {
        Arbitrary<Integer> leafTarget = Arbitraries.of(2, 4, 8);
        // Sometimes leafMax == leafTarget, so leaves often close on their count rather than on the pattern.
        Arbitrary<Integer> leafMax = Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(0)),
                Tuple.of(3, Arbitraries.integers().between(16, 32)));
        Arbitrary<Integer> indexTarget = Arbitraries.of(2, 4, 8);
        Arbitrary<Integer> indexExtra = Arbitraries.integers().between(0, 12);
        return Combinators.combine(leafTarget, leafMax, indexTarget, indexExtra)
                .as((lt, lm, it, ie) -> new TreeParams(lt, Math.max(lt, lm), it, Math.max(2, it) + ie));
    }

    /**
     * Parameters with room between the target and maximum fanout (maximum at least twice the target), so that
     * an edit disturbs O(1) nodes per level. With a maximum equal to the target, index boundaries are mostly
     * forced by count and an edit can re-cut many nodes.
     */
    static Arbitrary<TreeParams> roomyParams() {
        return Combinators.combine(Arbitraries.of(2, 4, 8), Arbitraries.integers().between(16, 32),
                Arbitraries.of(2, 4), Arbitraries.integers().between(8, 16)).as(TreeParams::new);
    }

    /**
     * Keys: arbitrary bytes; short strings over a tiny alphabet (shared prefixes, prefix keys, 0x00/0xff); or,
     * rarely, up to {@link Entry#MAX_KEY_BYTES} bytes behind a long shared prefix (long separators, entries over
     * the maximum leaf size).
     */
    static Arbitrary<Bytes> keys() {
        Arbitrary<Bytes> random = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(10).map(Bytes::wrap);
        Arbitrary<Bytes> dense = Arbitraries.of((byte) 0, (byte) 1, (byte) 'a', (byte) 0x7f, (byte) 0x80, (byte) 0xff)
                .array(byte[].class).ofMinSize(1).ofMaxSize(5).map(Bytes::wrap);
        Arbitrary<Bytes> longKeys = Combinators.combine(Arbitraries.integers().between(100, Entry.MAX_KEY_BYTES - 4),
                Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(4)).as((prefix, suffix) -> {
                    byte[] k = new byte[prefix + suffix.length];
                    java.util.Arrays.fill(k, 0, prefix, (byte) 'p');
                    System.arraycopy(suffix, 0, k, prefix, suffix.length);
                    return Bytes.wrap(k);
                });
        return Arbitraries.frequencyOf(Tuple.of(10, random), Tuple.of(10, dense), Tuple.of(1, longKeys));
    }

    /** Values, including the empty value (which is not a tombstone). */
    static Arbitrary<Bytes> values() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(60).map(Bytes::wrap);
    }

    static Arbitrary<TreeMap<Bytes, Bytes>> entryMaps(int maxSize) {
        return Arbitraries.maps(keys(), values()).ofMaxSize(maxSize).withSizeDistribution(RandomDistribution.uniform())
                .map(TreeMap::new);
    }

    static Arbitrary<List<Bytes>> keyPools(int maxSize) {
        return keys().list().uniqueElements().ofMinSize(1).ofMaxSize(maxSize)
                .withSizeDistribution(RandomDistribution.uniform());
    }

    /** About one op in four is a delete. */
    static Arbitrary<List<Op>> ops(int maxSize) {
        Arbitrary<Bytes> valueOrDelete = Arbitraries.frequencyOf(
                Tuple.of(3, values()), Tuple.of(1, Arbitraries.just((Bytes) null)));
        return Combinators.combine(Arbitraries.integers().between(0, 1_000_000), valueOrDelete).as(Op::new)
                .list().ofMaxSize(maxSize).withSizeDistribution(RandomDistribution.uniform());
    }

    static List<Entry> entries(Map<Bytes, Bytes> model) {
        List<Entry> out = new ArrayList<>(model.size());
        model.forEach((k, v) -> out.add(Entry.of(k, v, 0)));
        return out;
    }

    static Entry entry(Bytes k, Bytes v) {
        return v == null ? null : Entry.of(k, v, 0);
    }

    /** Cuts {@code items} into consecutive batches of random sizes 1..maxBatch. */
    static <T> List<List<T>> batches(List<T> items, Random random, int maxBatch) {
        List<List<T>> out = new ArrayList<>();
        int i = 0;
        while (i < items.size()) {
            int n = 1 + random.nextInt(Math.max(1, maxBatch));
            out.add(new ArrayList<>(items.subList(i, Math.min(items.size(), i + n))));
            i += n;
        }
        return out;
    }

    /** A batch's ops as mutations in key order; a later op on the same key replaces an earlier one. */
    static List<Mutation> mutations(List<Op> batch, List<Bytes> pool) {
        TreeMap<Bytes, Mutation> byKey = new TreeMap<>();
        for (Op op : batch) {
            Bytes k = pool.get(op.slot() % pool.size());
            byKey.put(k, op.value() == null ? Mutation.delete(k) : Mutation.put(k, op.value()));
        }
        return new ArrayList<>(byKey.values());
    }

    static void applyToModel(TreeMap<Bytes, Bytes> model, List<Mutation> ms) {
        for (Mutation m : ms) {
            if (m.isDelete()) {
                model.remove(m.key());
            } else {
                model.put(m.key(), m.value());
            }
        }
    }
}
