package io.glassledger.core.ledger;

import io.glassledger.verify.block.Block;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Version;
import io.glassledger.core.store.NodeStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A ledger under test together with a plain model of what it should hold: the live key-value state after every
 * block, and every key's versions. Shared by the proof, ledger and store tests.
 *
 * <p>The model follows the ledger's documented write semantics: a put always writes a new version; a delete of a
 * live key writes a tombstone version; a delete of an absent or already deleted key changes nothing.
 */
public final class LedgerModel {
    public static final long GENESIS_TS = 1_000;

    private final Ledger ledger;
    private final List<Bytes> pool;
    private final List<TreeMap<Bytes, Bytes>> states = new ArrayList<>();
    /** Versions per key, oldest first. */
    private final Map<Bytes, List<Version>> versions = new HashMap<>();

    private LedgerModel(Ledger ledger, List<Bytes> pool) {
        this.ledger = ledger;
        this.pool = List.copyOf(pool);
        states.add(new TreeMap<>());
    }

    /** A fresh ledger in {@code store} whose writes draw keys from {@code pool}. */
    public static LedgerModel create(NodeStore store, TreeParams params, List<Bytes> pool) {
        return new LedgerModel(Ledger.openOrCreate(store, params, GENESIS_TS), pool);
    }

    /** A ledger of {@code blocks} random blocks over a pool of {@code poolSize} random keys. */
    public static LedgerModel random(NodeStore store, TreeParams params, Random r, int blocks, int poolSize,
            int maxWrites) {
        List<Bytes> pool = new ArrayList<>();
        java.util.Set<Bytes> seen = new java.util.HashSet<>();
        while (pool.size() < poolSize) {
            Bytes k = randomKey(r);
            if (seen.add(k)) {
                pool.add(k);
            }
        }
        LedgerModel m = create(store, params, pool);
        for (int b = 0; b < blocks; b++) {
            m.appendRandomBlock(r, maxWrites);
        }
        return m;
    }

    /** Keys of 1..12 bytes; about a third are short keys over a tiny alphabet, so keys share prefixes. */
    public static Bytes randomKey(Random r) {
        byte[] k = new byte[1 + r.nextInt(12)];
        if (r.nextInt(3) == 0) {
            for (int i = 0; i < k.length; i++) {
                k[i] = (byte) "ab\0\u00ff".charAt(r.nextInt(4));
            }
        } else {
            r.nextBytes(k);
        }
        return Bytes.wrap(k);
    }

    public static Bytes randomValue(Random r) {
        byte[] v = new byte[r.nextInt(40)];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }

    /** Appends one block of 1..maxWrites writes (about one in four a delete) to pool keys. */
    public List<Block> appendRandomBlock(Random r, int maxWrites) {
        return append(randomSpec(r, pool, head() + 1, maxWrites));
    }

    /** Block {@code number}: 1..maxWrites writes (about one in four a delete) to pool keys, in random order. */
    public static BlockSpec randomSpec(Random r, List<Bytes> pool, long number, int maxWrites) {
        TreeMap<Bytes, Mutation> writes = new TreeMap<>();
        int n = 1 + r.nextInt(maxWrites);
        for (int i = 0; i < n; i++) {
            Bytes k = pool.get(r.nextInt(pool.size()));
            writes.put(k, r.nextInt(4) == 0 ? Mutation.delete(k) : Mutation.put(k, randomValue(r)));
        }
        List<Mutation> shuffled = new ArrayList<>(writes.values());
        Collections.shuffle(shuffled, r);
        return new BlockSpec(GENESIS_TS + number, List.of(Bytes.utf8("tx" + number)), shuffled);
    }

    /** Appends one block to the ledger and to the model. */
    public List<Block> append(BlockSpec spec) {
        List<Block> out = ledger.append(List.of(spec));
        long number = states.size();
        TreeMap<Bytes, Bytes> state = new TreeMap<>(states.get(states.size() - 1));
        for (Mutation m : spec.writes()) {
            List<Version> vs = versions.computeIfAbsent(m.key(), k -> new ArrayList<>());
            if (m.isDelete()) {
                if (state.remove(m.key()) != null) {
                    vs.add(new Version(null, number));
                }
            } else {
                state.put(m.key(), m.value());
                vs.add(new Version(m.value(), number));
            }
        }
        states.add(state);
        return out;
    }

    public Ledger ledger() {
        return ledger;
    }

    public List<Bytes> pool() {
        return pool;
    }

    public long head() {
        return states.size() - 1;
    }

    /** The live value of {@code key} at block {@code b}, or null. */
    public Bytes value(Bytes key, long b) {
        return states.get((int) b).get(key);
    }

    public TreeMap<Bytes, Bytes> state(long b) {
        return states.get((int) b);
    }

    /** Up to {@code limit} versions of {@code key} as of block {@code b}, newest first. */
    public List<Version> history(Bytes key, long b, int limit) {
        List<Version> all = versions.getOrDefault(key, List.of());
        List<Version> out = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
            if (all.get(i).blockNo() <= b) {
                out.add(all.get(i));
            }
        }
        return out;
    }

    /** Number of versions {@code key} has by block {@code b}. */
    public int versionCount(Bytes key, long b) {
        return history(key, b, Integer.MAX_VALUE).size();
    }
}
