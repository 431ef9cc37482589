package io.glassledger.benchmark;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.store.RocksDbNodeStore;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Persist into a state ten times the node cache ({@code persist_cold}), and the heap the ledger then retains after
 * full collections ({@code heap}). A ledger of its own, in {@code dir/cold}: {@code --cold-keys} keys loaded in
 * blocks of at most 1,000,000, with a node cache of a tenth of the state's raw key and value bytes; then untimed
 * warm-up blocks and timed blocks of 1,000 random updates, fsync on, as {@code persist}.
 */
final class ColdPersist {
    /**
     * Keys per load block, so that a large state is not built by one append holding every node at once. An append
     * keeps each node it creates, and the version that node replaced (the base of its delta record), until the
     * records are made at its end; with compact leaves the two versions of a re-cut leaf no longer share entries,
     * and 1,000,000 random keys into a 9,000,000-key tree (every leaf rewritten) ran an 8 GB heap out of memory, so
     * the full run now has 12 GB (benchmark/run). Smaller load appends are no way out: each rewrites most leaves as
     * deltas, the chains deepen, and 250,000-key appends had not loaded the state after 26 minutes.
     */
    static final int LOAD_BLOCK_KEYS = 1_000_000;

    private ColdPersist() {
    }

    static void measure(CoreOptions opts, Path dir, PrintStream out, Consumer<String> log) {
        int keys = opts.coldKeys();
        long raw = (long) keys * (Workload.KEY_BYTES + Workload.VALUE_BYTES);
        long cache = Math.max(1L << 20, raw / 10);
        Workload data = new Workload(keys, opts.seed() ^ 0xC01DL);
        // The harness's own data (the workload and its model) stays out of the retained figure.
        long baseline = usedHeapAfterGc();
        try (RocksDbNodeStore store = new RocksDbNodeStore(dir)) {
            Ledger ledger = Ledger.openOrCreate(store, opts.tree(), 0, cache);
            long t0 = System.nanoTime();
            long ts = 1;
            for (int from = 0; from < keys; from += LOAD_BLOCK_KEYS) {
                ledger.append(List.of(data.loadBlock(ts++, from, Math.min(keys, from + LOAD_BLOCK_KEYS))));
            }
            log.accept(String.format("cold: loaded %d keys in %.1f s, node cache %d MiB", keys,
                    (System.nanoTime() - t0) / 1e9, cache >> 20));
            for (int i = 0; i < opts.coldWarmup(); i++) {
                ledger.append(List.of(data.updateBlock(ts++, CoreOptions.UPDATE_KEYS)));
            }
            double[] ms = new double[opts.coldTimed()];
            for (int i = 0; i < ms.length; i++) {
                BlockSpec spec = data.updateBlock(ts++, CoreOptions.UPDATE_KEYS);
                long t1 = System.nanoTime();
                ledger.append(List.of(spec));
                ms[i] = (System.nanoTime() - t1) / 1e6;
            }
            Stats s = new Stats(ms);
            double k = CoreOptions.UPDATE_KEYS;
            JsonLine.of("persist_cold", "keys_per_second", k / s.median() * 1000, "keys/s")
                    .with("p10", k / s.p90() * 1000).with("p90", k / s.p10() * 1000).with("n", s.count())
                    .with("ms_per_block", s.median()).with("keys", keys).with("cache_bytes", cache)
                    .with("raw_state_bytes", raw).with("sync", true).printTo(out);
            long retained = usedHeapAfterGc() - baseline;
            Reference.reachabilityFence(ledger);
            long cacheMb = cache >> 20;
            // The target is "the configured cache + 256 MB": the second line carries what the table can compare.
            JsonLine.of("heap", "retained_mb", retained / 1048576.0, "MB")
                    .with("cache_mb", cacheMb).with("keys", keys).with("after", "persist_cold").printTo(out);
            JsonLine.of("heap", "retained_over_cache_mb", retained / 1048576.0 - cacheMb, "MB")
                    .with("cache_mb", cacheMb).with("keys", keys).with("after", "persist_cold").printTo(out);
        }
        Reference.reachabilityFence(data);
    }

    /** Heap in use after full collections: the least of a few, so that a collection still running does not count. */
    static long usedHeapAfterGc() {
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            least = Math.min(least, mx.getHeapMemoryUsage().getUsed());
        }
        return least;
    }
}
