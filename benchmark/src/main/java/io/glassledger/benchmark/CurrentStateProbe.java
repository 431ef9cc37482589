package io.glassledger.benchmark;

import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.state.CurrentState;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The planned storage's write path as one piece ({@link CurrentState}: values and versions in the flat store, the
 * current leaves in the leaf log, the index levels in memory), with DEFAULT tree parameters: keys loaded in blocks
 * of 10,000, the state reopened (its index levels rebuilt from the leaf log), then synced blocks of 1,000 random
 * value updates and blocks with a tenth of new keys, the leaf log collected to half live after each (timed with the
 * block). Reports keys a second and the writing thread's CPU a put over the blocks' apply and collection only (the
 * probe's making of each batch, a sorted map of random keys and values, is left out: about a third of the
 * thread's time), and the growth on disk a put. Not the ledger: no
 * proofs, no block records.
 */
final class CurrentStateProbe {
    private static final PrintStream OUT = System.out;
    private static final int LOAD_BLOCK = 10_000;
    private static final int BLOCK_PUTS = 1_000;
    private static final int VALUE = 128;
    /** The leaf log is collected after every block down to this share of live bytes, as the leaf-log probe does. */
    private static final double LIVE_SHARE = 0.5;

    private CurrentStateProbe() {
    }

    static void run(Path dir, byte[][] keys, int blocks, long cacheBytes, long seed, boolean quick) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x57a7e);
        TreeParams params = TreeParams.DEFAULT;
        long t0 = System.nanoTime();
        try (CurrentState s = CurrentState.open(dir, params, cacheBytes, false)) {
            s.apply(0, List.of());
            for (int i = 0; i < keys.length; i += LOAD_BLOCK) {
                List<Mutation> batch = new ArrayList<>(LOAD_BLOCK);
                for (int j = i; j < Math.min(keys.length, i + LOAD_BLOCK); j++) {
                    batch.add(Mutation.put(Bytes.wrap(keys[j]), value(r)));
                }
                s.apply(s.block() + 1, batch);
            }
        }
        double loadS = (System.nanoTime() - t0) / 1e9;
        long t1 = System.nanoTime();
        try (CurrentState s = CurrentState.open(dir, params, cacheBytes, true)) {
            double openMs = (System.nanoTime() - t1) / 1e6;
            JsonLine.of("state.load", "keys_per_second", keys.length / loadS, "keys/s").with("keys", keys.length)
                    .with("open_ms", openMs).with("leaves", s.leafCount())
                    .with("index_heap_bytes_per_key", (double) s.indexHeapBytes() / keys.length)
                    .with("params", params.toString()).with("quick", quick).printTo(OUT);
            phase(s, keys, blocks, 0, r, quick);
            phase(s, keys, blocks, 0.1, r, quick);
        }
    }

    /** {@code blocks} synced blocks of 1,000 puts, a share {@code inserts} of them new keys. */
    private static void phase(CurrentState s, byte[][] keys, int blocks, double inserts, SplittableRandom r,
                              boolean quick) {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long diskBefore = disk(s);
        long[] ns = new long[blocks];
        long applyCpu = 0;
        CurrentState.Spent spent0 = s.spent();
        long collectNs = 0;
        long t0 = System.nanoTime();
        for (int b = 0; b < blocks; b++) {
            TreeMap<Bytes, Mutation> batch = new TreeMap<>();
            while (batch.size() < BLOCK_PUTS) {
                Bytes k;
                if (r.nextDouble() < inserts) {
                    byte[] nk = new byte[keys[0].length];
                    r.nextBytes(nk);
                    k = Bytes.wrap(nk);
                } else {
                    k = Bytes.wrap(keys[r.nextInt(keys.length)]);
                }
                batch.put(k, Mutation.put(k, value(r)));
            }
            List<Mutation> ms = new ArrayList<>(batch.values());
            long c0 = cpu.getCurrentThreadCpuTime();
            long b0 = System.nanoTime();
            s.apply(s.block() + 1, ms);
            long c1 = System.nanoTime();
            s.collect(LIVE_SHARE, 4);
            collectNs += System.nanoTime() - c1;
            ns[b] = System.nanoTime() - b0;
            applyCpu += cpu.getCurrentThreadCpuTime() - c0;
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        long puts = (long) blocks * BLOCK_PUTS;
        long applyNs = Arrays.stream(ns).sum();
        long[] sorted = ns.clone();
        Arrays.sort(sorted);
        JsonLine.of("state.persist", "keys_per_second", puts / (applyNs / 1e9), "keys/s").with("inserts", inserts)
                .with("with_batch_making_keys_per_second", puts / secs)
                .with("blocks", blocks).with("block_ms_p50", sorted[blocks / 2] / 1e6)
                .with("block_ms_p90", sorted[(int) (blocks * 0.9)] / 1e6)
                .with("thread_cpu_us_per_put", applyCpu / 1e3 / puts)
                .with("disk_growth_bytes_per_put", (double) (disk(s) - diskBefore) / puts)
                .with("leaves", s.leafCount()).with("quick", quick)
                .with("us_per_put_values", (s.spent().values() - spent0.values()) / 1e3 / puts)
                .with("us_per_put_leaves", (s.spent().leaves() - spent0.leaves()) / 1e3 / puts)
                .with("us_per_put_index", (s.spent().index() - spent0.index()) / 1e3 / puts)
                .with("us_per_put_leaf_sync", (s.spent().leafSync() - spent0.leafSync()) / 1e3 / puts)
                .with("us_per_put_commit", (s.spent().commit() - spent0.commit()) / 1e3 / puts)
                .with("us_per_put_collect", collectNs / 1e3 / puts).printTo(OUT);
    }

    private static long disk(CurrentState s) {
        return s.flatSize().total() + s.leafLogBytes();
    }

    private static Bytes value(SplittableRandom r) {
        byte[] v = new byte[VALUE];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }
}
