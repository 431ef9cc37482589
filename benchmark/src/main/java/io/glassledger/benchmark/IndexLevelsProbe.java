package io.glassledger.benchmark;

import io.glassledger.core.postree.IndexLevels;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code benchmark/run flat --only index}: what the POS-tree's index levels cost when they are held in memory in
 * the compact encoding of {@link IndexLevels} (the planned storage's item 5): heap per leaf and per key, the time to
 * hash a block's changed leaves up to the root, and a route from the root to a leaf.
 *
 * <p>The leaves are synthetic, as the planned format has them: keys-only chunking, so a value update replaces one
 * leaf by one leaf of the same count and separator (a new hash), and an insert adds one entry to its leaf and now and
 * then splits it. Leaf sizes are geometric with mean {@code --index-leaf-keys} (the leaf log measured fastest at 4);
 * lead separators have the length they have between uniformly random 32-byte keys at that many keys (the first
 * bytes where neighbours differ, plus one).
 */
final class IndexLevelsProbe {
    private static final PrintStream OUT = System.out;
    private static final int BLOCK = 1_000;
    /** Unmeasured blocks before each measure, per 100 measured: the JIT's C2 compiler still takes most of the second core for the first second or two. */
    private static final int WARM_UP_BLOCKS = Integer.getInteger("glassledger.bench.index.warmup", 300);

    private IndexLevelsProbe() {
    }

    static void run(long keys, int leafKeys, int fanout, int blocks, long seed, boolean quick) throws IOException {
        SplittableRandom r = new SplittableRandom(seed ^ 0x1d3e);
        TreeParams d = TreeParams.DEFAULT;
        TreeParams params = new TreeParams(d.leafTargetKeys(), d.leafMaxKeys(), fanout, Math.min(8 * fanout,
                TreeParams.MAX_FANOUT));
        long heap0 = ColdPersist.usedHeapAfterGc();
        List<IndexLevels.Leaf> leaves = leaves(keys, leafKeys, r);
        long total = 0;
        for (IndexLevels.Leaf l : leaves) {
            total += l.count();
        }
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long t0 = System.nanoTime();
        long c0 = cpu.getCurrentThreadCpuTime();
        IndexLevels levels = IndexLevels.build(params, leaves);
        long buildNs = System.nanoTime() - t0;
        long buildCpu = cpu.getCurrentThreadCpuTime() - c0;
        int n = leaves.size();
        leaves = null;
        long heap = ColdPersist.usedHeapAfterGc() - heap0;
        JsonLine.of("index.levels", "heap_bytes_per_leaf", (double) heap / n, "B")
                .with("estimated_bytes_per_leaf", (double) levels.heapBytes() / n)
                .with("heap_bytes_per_key", (double) heap / total).with("heap_mb", heap / 1e6)
                .with("leaves", n).with("keys", total).with("mean_keys_per_leaf", (double) total / n)
                .with("height", levels.height()).with("build_ms", buildNs / 1e6).with("build_cpu_ms", buildCpu / 1e6)
                .with("index_target_fanout", params.indexTargetFanout()).with("machine_load", WorkDir.loadAverage())
                .with("quick", quick).printTo(OUT);
        for (String share : System.getProperty("glassledger.bench.index.inserts", "0,0.1").split(",")) {
            levels = update(levels, blocks, Double.parseDouble(share), r, quick);
        }
        route(levels, quick ? 100_000 : 1_000_000, r, quick);
    }

    /**
     * Blocks of {@value #BLOCK} updates to distinct random leaves: each gets a new hash; with probability
     * {@code insertShare} the update is an insert (count + 1), and one insert in 20 splits its leaf in two.
     */
    private static IndexLevels update(IndexLevels levels, int blocks, double insertShare, SplittableRandom r,
            boolean quick) throws IOException {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        int warm = Math.max(2, WARM_UP_BLOCKS * blocks / 100);
        long ns = 0;
        long cpuNs = 0;
        long patched = 0;
        long sameShape = 0;
        long recut = 0;
        long ticks = 0;
        long gcMs = 0;
        long pid = ProcessHandle.current().pid();
        int next = Integer.MAX_VALUE / 2;
        for (int b = 0; b < warm + blocks; b++) {
            int n = levels.leafCount();
            int[] at = r.ints(0, n).distinct().limit(Math.min(BLOCK, n)).toArray();
            Arrays.sort(at);
            List<IndexLevels.LeafRun> runs = new ArrayList<>(at.length);
            for (int p : at) {
                IndexLevels.Leaf old = levels.leaf(p);
                long count = old.count();
                List<IndexLevels.Leaf> made = new ArrayList<>(2);
                boolean insert = r.nextDouble() < insertShare;
                if (insert && count >= 2 && r.nextInt(20) == 0) {
                    long left = 1 + r.nextLong(count);
                    made.add(new IndexLevels.Leaf(hash(r), left, old.leadSeparator(), old.number()));
                    made.add(new IndexLevels.Leaf(hash(r), count + 1 - left, splitSep(old.leadSeparator(), r),
                            next++));
                } else {
                    made.add(new IndexLevels.Leaf(hash(r), insert ? count + 1 : count, old.leadSeparator(),
                            old.number()));
                }
                runs.add(new IndexLevels.LeafRun(p, p + 1, made));
            }
            CpuSnapshot p0 = CpuSnapshot.read(pid);
            long g0 = gcMillis();
            long t0 = System.nanoTime();
            long c0 = cpu.getCurrentThreadCpuTime();
            levels = levels.apply(runs);
            if (b >= warm) {
                ns += System.nanoTime() - t0;
                cpuNs += cpu.getCurrentThreadCpuTime() - c0;
                ticks += CpuSnapshot.read(pid).processTicks() - p0.processTicks();
                gcMs += gcMillis() - g0;
                patched += levels.work().patched();
                sameShape += levels.work().sameShape();
                recut += levels.work().recut();
            }
        }
        long updates = (long) blocks * BLOCK;
        JsonLine.of("index.update", "leaf_updates_per_second", updates / (ns / 1e9), "updates/s")
                .with("cpu_us_per_leaf_update", cpuNs / 1e3 / updates)
                .with("process_cpu_us_per_leaf_update", ticks * 1e6 / TaskStat.TICKS_PER_SECOND / updates)
                .with("gc_pause_us_per_leaf_update", gcMs * 1e3 / updates).with("insert_share", insertShare)
                .with("nodes_patched_per_block", (double) patched / blocks)
                .with("nodes_same_shape_per_block", (double) sameShape / blocks)
                .with("nodes_recut_per_block", (double) recut / blocks).with("blocks", blocks)
                .with("warm_up_blocks", warm).with("leaves", levels.leafCount()).with("height", levels.height())
                .with("index_target_fanout", levels.params().indexTargetFanout()).with("root", levels.root().hex())
                .with("machine_load", WorkDir.loadAverage()).with("quick", quick).printTo(OUT);
        return levels;
    }

    private static void route(IndexLevels levels, int routes, SplittableRandom r, boolean quick) {
        byte[][] keys = new byte[routes][32];
        for (byte[] k : keys) {
            r.nextBytes(k);
        }
        long sink = 0;
        for (int i = 0; i < Math.min(routes, 100_000); i++) {
            sink += levels.route(keys[i]);
        }
        long t0 = System.nanoTime();
        for (byte[] k : keys) {
            sink += levels.route(k);
        }
        long ns = System.nanoTime() - t0;
        JsonLine.of("index.route", "ns_per_route", (double) ns / routes, "ns").with("routes", routes)
                .with("height", levels.height()).with("checksum", sink).with("machine_load", WorkDir.loadAverage())
                .with("quick", quick).printTo(OUT);
    }

    private static List<IndexLevels.Leaf> leaves(long keys, int leafKeys, SplittableRandom r) {
        // Neighbouring keys among `keys` uniform 32-byte keys differ from about byte log256(keys) on.
        int shared = Math.max(0, (int) Math.floor(Math.log(keys) / Math.log(256)));
        List<IndexLevels.Leaf> out = new ArrayList<>((int) (keys / leafKeys) + 16);
        long left = keys;
        int number = 0;
        while (left > 0) {
            long count = Math.min(left, 1 + (long) Math.floor(Math.log(1 - r.nextDouble()) / Math.log(1 - 1.0
                    / leafKeys)));
            Bytes sep = out.isEmpty() ? Bytes.EMPTY : sep(shared + (r.nextInt(4) == 0 ? 2 : 1), r);
            out.add(new IndexLevels.Leaf(hash(r), count, sep, number++));
            left -= count;
        }
        return out;
    }

    private static Bytes sep(int length, SplittableRandom r) {
        byte[] s = new byte[length];
        r.nextBytes(s);
        s[length - 1] |= 1;
        return Bytes.wrap(s);
    }

    private static Bytes splitSep(Bytes lead, SplittableRandom r) {
        byte[] s = Arrays.copyOf(lead.unsafeArray(), lead.length() + 1);
        s[s.length - 1] = (byte) (1 + r.nextInt(255));
        return Bytes.wrap(s);
    }

    private static Hash hash(SplittableRandom r) {
        byte[] h = new byte[Hash.LENGTH];
        r.nextBytes(h);
        return Hash.of(h);
    }

    /** Milliseconds the collectors have reported (G1: its pauses, young and mixed). */
    private static long gcMillis() {
        long ms = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }
}
