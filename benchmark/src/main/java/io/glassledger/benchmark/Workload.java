package io.glassledger.benchmark;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.entry.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The data of the core benchmark: N random 32-byte keys with random 128-byte values, and blocks of random updates
 * to existing keys. It also keeps the model of the current value of every key, so that proofs are checked against
 * what was written rather than against what the ledger reads back.
 *
 * <p>Deterministic: the same seed gives the same keys, values and updates. Not thread-safe.
 */
final class Workload {
    static final int KEY_BYTES = 32;
    static final int VALUE_BYTES = 128;

    private final Bytes[] keys;
    private final byte[] values;
    private final SplittableRandom random;
    private final int[] picked;
    private int pickEpoch;

    Workload(int n, long seed) {
        random = new SplittableRandom(seed);
        keys = new Bytes[n];
        values = new byte[Math.multiplyExact(n, VALUE_BYTES)];
        for (int i = 0; i < n; i++) {
            byte[] k = new byte[KEY_BYTES];
            random.nextBytes(k);
            keys[i] = Bytes.wrap(k);
        }
        random.nextBytes(values);
        picked = new int[n];
    }

    int size() {
        return keys.length;
    }

    Bytes key(int i) {
        return keys[i];
    }

    /** The value last written to key {@code i}. */
    Bytes value(int i) {
        return Bytes.of(values, i * VALUE_BYTES, (i + 1) * VALUE_BYTES);
    }

    /** A block that puts every key with its current value. */
    BlockSpec bulkBlock(long timestamp) {
        List<Mutation> writes = new ArrayList<>(keys.length);
        for (int i = 0; i < keys.length; i++) {
            writes.add(Mutation.put(keys[i], value(i)));
        }
        return new BlockSpec(timestamp, List.of(), writes);
    }

    /** A block that puts keys {@code from} (inclusive) to {@code to} (exclusive) with their current values. */
    BlockSpec loadBlock(long timestamp, int from, int to) {
        List<Mutation> writes = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            writes.add(Mutation.put(keys[i], value(i)));
        }
        return new BlockSpec(timestamp, List.of(), writes);
    }

    /** A block that gives {@code count} distinct random keys new random values; the model is updated at once. */
    BlockSpec updateBlock(long timestamp, int count) {
        int[] idx = distinct(random, count);
        List<Mutation> writes = new ArrayList<>(count);
        for (int i : idx) {
            byte[] v = new byte[VALUE_BYTES];
            random.nextBytes(v);
            System.arraycopy(v, 0, values, i * VALUE_BYTES, VALUE_BYTES);
            writes.add(Mutation.put(keys[i], Bytes.wrap(v)));
        }
        return new BlockSpec(timestamp, List.of(), writes);
    }

    /** {@code count} distinct key indices drawn uniformly with {@code r}. */
    int[] distinct(SplittableRandom r, int count) {
        if (count > keys.length) {
            throw new IllegalArgumentException("cannot pick " + count + " distinct keys of " + keys.length);
        }
        if (++pickEpoch == 0) {
            java.util.Arrays.fill(picked, 0);
            pickEpoch = 1;
        }
        int[] out = new int[count];
        int n = 0;
        while (n < count) {
            int i = r.nextInt(keys.length);
            if (picked[i] != pickEpoch) {
                picked[i] = pickEpoch;
                out[n++] = i;
            }
        }
        return out;
    }
}
