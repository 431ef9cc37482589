package io.glassledger.benchmark;

import io.glassledger.core.postree.TreeParams;

import io.glassledger.core.store.FlatRows;
import io.glassledger.core.store.FlatStore;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code benchmark/run flat}: a measurement of the planned storage's two built parts, not of the ledger.
 * ARCHITECTURE.md's planned storage ("Storage that grows for years") keeps every version of every key as one row of
 * a versioned flat index ({@link FlatStore}: {@code escaped key ‖ ~block → value hash ‖ locator}) and each value
 * once in a {@link io.glassledger.core.store.ValueLog}, and reads a leaf of the tree as the rows of a key range. This
 * probe writes such a store with the core benchmark's shapes (N random 32-byte keys with 128-byte values, then
 * blocks of 1,000 random updates, each block one synced write: the log's fsync, then RocksDB's) and measures what the
 * design's byte budget and read costs assume:
 * <ul>
 *   <li>{@code flat.storage / bytes_per_row}: the rows' SST bytes after a full compaction ÷ rows (every version);</li>
 *   <li>{@code flat.storage / bytes_per_put_over_raw}: rows and value log together ÷ (puts × 160), a put's raw key and
 *       value bytes: the floor of the design's disk ratio without the tree's index levels;</li>
 *   <li>{@code flat.write / rows_per_second_synced_blocks}: puts per second of the update blocks;</li>
 *   <li>{@code flat.read / data_reads_per_latest_read}: data blocks read from the files (block cache misses) per
 *       latest read of a random key, with a block cache far smaller than the data;</li>
 *   <li>{@code flat.leaf / data_reads_per_leaf}: the same per leaf, a scan of {@code --leaf} consecutive keys;</li>
 *   <li>{@code microseconds_per_*}: the median wall time of one such read, its values read from the log and
 *       checked against their hashes, on a page cache that holds the files (the operating system's).</li>
 * </ul>
 */
public final class FlatIndexProbe {
    private static final PrintStream OUT = System.out;
    private static final int KEY = 32;
    private static final int VALUE = 128;
    /** Keys per block of the load (not synced), so that a batch stays small whatever N is. */
    private static final int LOAD_BLOCK = 100_000;
    private static final int RAW_PER_PUT = KEY + VALUE;
    private static final int BLOCK_PUTS = 1_000;

    record ProbeOptions(int keys, int blocks, int reads, int leaf, long cacheBytes, long seed, boolean quick, Path dir,
            List<Integer> leafTargets, int hashBlocks, double liveShare, List<String> only, int indexLeafKeys, int indexFanout) {
        static ProbeOptions parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            int keys = quick ? 100_000 : 1_000_000;
            int blocks = quick ? 10 : 100;
            int reads = quick ? 2_000 : 20_000;
            int leaf = 50;
            long cacheMb = 8;
            long seed = 1;
            List<Integer> leafTargets = List.of(16, 32, 64);
            int hashBlocks = quick ? 5 : 20;
            double liveShare = 0.5;
            List<String> only = List.of("store", "leaves", "index", "state");
            int indexLeafKeys = 4;
            int indexFanout = TreeParams.DEFAULT.indexTargetFanout();
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/flat"));
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--keys" -> keys = (int) Args.number(args[i], Args.value(args, ++i), 1_000, 100_000_000);
                    case "--blocks" -> blocks = (int) Args.number(args[i], Args.value(args, ++i), 0, 100_000);
                    case "--reads" -> reads = (int) Args.number(args[i], Args.value(args, ++i), 1, 10_000_000);
                    case "--leaf" -> leaf = (int) Args.number(args[i], Args.value(args, ++i), 1, 10_000);
                    case "--cache-mb" -> cacheMb = Args.number(args[i], Args.value(args, ++i), 1, 65_536);
                    case "--seed" -> seed = Args.number(args[i], Args.value(args, ++i), 0, Long.MAX_VALUE);
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "--leaf-targets" -> leafTargets = Arrays.stream(Args.value(args, ++i).split(","))
                            .map(t -> (int) Args.number("--leaf-targets", t, 2, 4096)).toList();
                    case "--hash-blocks" -> hashBlocks = (int) Args.number(args[i], Args.value(args, ++i), 1, 10_000);
                    case "--live-share" -> liveShare = Args.number(args[i], Args.value(args, ++i), 10, 95) / 100.0;
                    case "--only" -> {
                        only = List.of(Args.value(args, ++i).split(","));
                        for (String part : only) {
                            if (!List.of("store", "leaves", "index", "state").contains(part)) {
                                throw new IllegalArgumentException("--only takes store, leaves, index, state: " + part);
                            }
                        }
                    }
                    case "--index-fanout" -> indexFanout = 1 << (63 - Long.numberOfLeadingZeros(
                            Args.number(args[i], Args.value(args, ++i), 2, 128)));
                    case "--index-leaf-keys" -> indexLeafKeys = (int) Args.number(args[i], Args.value(args, ++i), 1,
                            4096);
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run flat [--quick] [--keys N] [--blocks B] [--reads R] [--leaf L]
                                                          [--cache-mb M] [--seed S] [--dir PATH]
                                  a versioned flat index (key ‖ ~block → value hash ‖ locator) in RocksDB beside a
                                  value log of 128-byte values: bytes on disk per put, puts/s in synced blocks of 1000,
                                  and store reads and microseconds per latest read and per leaf, values included
                                  --keys N      keys loaded, one version each (default 1000000; --quick 100000)
                                  --blocks B    then B batches of 1000 random updates (default 100; --quick 10)
                                  --reads R     latest reads and leaf reads measured, each (default 20000)
                                  --leaf L      keys per leaf read (default 50, the planned leaf's size)
                                  --cache-mb M  RocksDB block cache for the reads (default 8)
                                  --leaf-targets T,...  mean keys per leaf of the leaf-hashing measure (16,32,64)
                                  --hash-blocks H       its blocks of 1000 updates, per target (20; --quick 5);
                                                        the leaf log's, after it has wrapped, 5 H
                                  --live-share P        the leaf log is collected down to P % live (default 50)
                                  --only PARTS          of store (flat store and value log), leaves (leaf layouts),
                                                        index (index levels in memory), state (the three composed:
                                                        core.state.CurrentState); default all four
                                  --index-leaf-keys K   mean keys per leaf of the index levels' measure (default 4)
                                  --index-fanout F      its indexTargetFanout, a power of two (default 64, the
                                                        DEFAULT parameters'; the maximum fanout stays 8 F)""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--help)");
                }
            }
            return new ProbeOptions(keys, blocks, reads, leaf, cacheMb << 20, seed, quick, dir, leafTargets, hashBlocks,
                    liveShare, only, indexLeafKeys, indexFanout);
        }
    }

    private FlatIndexProbe() {
    }

    public static void main(String[] args) throws Exception {
        ProbeOptions o = ProbeOptions.parse(args);
        WorkDir.prepare(o.dir());
        Path db = o.dir().resolve("flat");
        System.err.printf("flat: %d keys, %d blocks of %d updates, seed %d, load %s%n", o.keys(), o.blocks(),
                BLOCK_PUTS, o.seed(), WorkDir.loadAverage());
        if (o.only().contains("index")) {
            IndexLevelsProbe.run(o.keys(), o.indexLeafKeys(), o.indexFanout(), 5 * o.hashBlocks(), o.seed(), o.quick());
        }
        if (!o.only().contains("store") && !o.only().contains("leaves") && !o.only().contains("state")) {
            return;
        }
        byte[][] keys = keys(o.keys(), o.seed());
        if (o.only().contains("state")) {
            Path state = o.dir().resolve("state");
            CurrentStateProbe.run(state, keys, o.blocks(), o.cacheBytes(), o.seed(), o.quick());
            WorkDir.deleteTree(state);
        }
        if (o.only().contains("store")) {
            write(db, keys, o);
            read(db, keys, o);
            for (int target : o.leafTargets()) {
                leafHashing(db, keys, o, target);
            }
            WorkDir.deleteTree(o.dir().resolve("flat"));
        }
        for (int target : o.only().contains("leaves") ? o.leafTargets() : List.<Integer>of()) {
            Path leaves = o.dir().resolve("leaves-" + target);
            CurrentLeafProbe.run(leaves, keys, leafStarts(keys, target), target, o.hashBlocks(), o.cacheBytes(),
                    o.seed(), o.quick());
            WorkDir.deleteTree(leaves);
            Path leafLog = o.dir().resolve("leaflog-" + target);
            CurrentLeafProbe.runLog(leafLog, keys, leafStarts(keys, target), target, 5 * o.hashBlocks(),
                    o.liveShare(), o.seed(), o.quick());
            WorkDir.deleteTree(leafLog);
        }
    }

    /** N distinct random keys, sorted (so that a leaf is a run of neighbours). */
    static byte[][] keys(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[][] k = new byte[n][];
        for (int i = 0; i < n; i++) {
            k[i] = new byte[KEY];
            for (int j = 0; j < KEY; j += 8) {
                long v = r.nextLong();
                for (int b = 0; b < 8; b++) {
                    k[i][j + b] = (byte) (v >>> (8 * b));
                }
            }
        }
        Arrays.sort(k, Arrays::compareUnsigned);
        return k;
    }

    /** The load puts every key, 100,000 a block; then B blocks update 1,000 random keys each. Returns the rows written. */
    private static long write(Path db, byte[][] keys, ProbeOptions o) {
        SplittableRandom r = new SplittableRandom(o.seed() ^ 0x5eed);
        long rows = 0;
        try (FlatStore load = FlatStore.open(db, 64L << 20, false)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < keys.length; i += LOAD_BLOCK) {
                List<Mutation> batch = new ArrayList<>(LOAD_BLOCK);
                for (int j = i; j < Math.min(keys.length, i + LOAD_BLOCK); j++) {
                    batch.add(Mutation.put(Bytes.wrap(keys[j]), value(r)));
                }
                load.write(load.head() + 1, batch);
                rows += batch.size();
            }
            long t1 = System.nanoTime();
            JsonLine.of("flat.write", "load_rows_per_second", keys.length / ((t1 - t0) / 1e9), "rows/s")
                    .with("quick", o.quick()).printTo(OUT);
        }
        try (FlatStore store = FlatStore.open(db, 64L << 20, true)) {
            long t1 = System.nanoTime();
            long first = store.head() + 1;
            for (long blk = first; blk < first + o.blocks(); blk++) {
                BitSet put = new BitSet(keys.length); // a block writes a key once
                List<Mutation> batch = new ArrayList<>(BLOCK_PUTS);
                for (int j = 0; j < BLOCK_PUTS; j++) {
                    int k = r.nextInt(keys.length);
                    while (put.get(k)) {
                        k = r.nextInt(keys.length);
                    }
                    put.set(k);
                    batch.add(Mutation.put(Bytes.wrap(keys[k]), value(r)));
                }
                store.write(blk, batch);
                rows += BLOCK_PUTS;
            }
            long t2 = System.nanoTime();
            store.compact();
            if (o.blocks() > 0) {
                JsonLine.of("flat.write", "rows_per_second_synced_blocks",
                        o.blocks() * (double) BLOCK_PUTS / ((t2 - t1) / 1e9), "rows/s")
                        .with("machine_load", WorkDir.loadAverage()).with("quick", o.quick()).printTo(OUT);
            }
            FlatStore.Size size = store.size();
            JsonLine.of("flat.storage", "bytes_per_row", (double) size.rowBytes() / rows, "B").with("rows", rows)
                    .with("sst_bytes", size.rowBytes()).with("keys", o.keys()).with("blocks", o.blocks())
                    .with("quick", o.quick()).printTo(OUT);
            JsonLine.of("flat.storage", "bytes_per_put_over_raw", (double) size.total() / rows / RAW_PER_PUT, "ratio")
                    .with("value_log_bytes", size.valueLogBytes()).with("value_log_bytes_per_put",
                            (double) size.valueLogBytes() / rows).with("raw_per_put", RAW_PER_PUT)
                    .with("quick", o.quick()).printTo(OUT);
        }
        return rows;
    }

    private static Bytes value(SplittableRandom r) {
        byte[] v = new byte[VALUE];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }

    private static void read(Path db, byte[][] keys, ProbeOptions o) {
        SplittableRandom r = new SplittableRandom(o.seed() ^ 0xbead);
        try (FlatStore store = FlatStore.open(db, o.cacheBytes(), false)) {
            long[] latestNs = new long[o.reads()];
            long missesBefore = store.dataBlockReads();
            for (int i = 0; i < o.reads(); i++) {
                Bytes k = Bytes.wrap(keys[r.nextInt(keys.length)]);
                long t = System.nanoTime();
                FlatRows.Version v = store.latest(k).orElseThrow(
                        () -> new IllegalStateException("the newest row of a loaded key is missing"));
                if (store.value(v).length() != VALUE) {
                    throw new IllegalStateException("a value of another length");
                }
                latestNs[i] = System.nanoTime() - t;
            }
            long missesLatest = store.dataBlockReads() - missesBefore;
            JsonLine.of("flat.read", "data_reads_per_latest_read", (double) missesLatest / o.reads(), "reads")
                    .with("cache_mb", o.cacheBytes() >> 20).with("reads", o.reads()).with("quick", o.quick())
                    .printTo(OUT);
            Stats latest = micros(latestNs);
            JsonLine.of("flat.read", "microseconds_per_latest_read", latest.median(), "us").spread(latest)
                    .with("with_value", true).with("machine_load", WorkDir.loadAverage()).with("quick", o.quick())
                    .printTo(OUT);

            long[] leafNs = new long[o.reads()];
            missesBefore = store.dataBlockReads();
            long head = store.head();
            for (int i = 0; i < o.reads(); i++) {
                int first = r.nextInt(Math.max(1, keys.length - o.leaf()));
                long t = System.nanoTime();
                List<FlatStore.Item> leaf = store.scan(Bytes.wrap(keys[first]), null, head, o.leaf());
                if (leaf.size() != Math.min(o.leaf(), keys.length - first)) {
                    throw new IllegalStateException("a leaf of " + leaf.size() + " keys");
                }
                leafNs[i] = System.nanoTime() - t;
            }
            long missesLeaf = store.dataBlockReads() - missesBefore;
            JsonLine.of("flat.leaf", "data_reads_per_leaf", (double) missesLeaf / o.reads(), "reads")
                    .with("leaf_keys", o.leaf()).with("cache_mb", o.cacheBytes() >> 20).with("quick", o.quick())
                    .printTo(OUT);
            Stats leaf = micros(leafNs);
            JsonLine.of("flat.leaf", "microseconds_per_leaf", leaf.median(), "us").spread(leaf)
                    .with("with_values", true).with("machine_load", WorkDir.loadAverage()).with("quick", o.quick())
                    .printTo(OUT);
        }
    }

    /**
     * What the planned tree's leaf level would cost to hash, over these rows: leaves cut after every key whose hash
     * is 0 modulo {@code target} (keys-only chunking, so an update never moves a boundary), their starts held in
     * memory as the index levels would. Each block of 1,000 random updates is written (synced), then every leaf it
     * touched is read back as a row scan at the block (no values) and hashed: an entry hash per row (H(00 ‖ lp(key)
     * ‖ 01 ‖ valueHash ‖ varint version ‖ 32 zero bytes): today's entry hash with a zero {@code prev}, so an upper
     * bound of the planned one, which drops those 32 bytes) and a binary routing tree of inner hashes over them, as
     * today's leaves are hashed. Measures: {@code flat.tree / microseconds_per_put_leaf_hashing} (the scans and hashes
     * of a block ÷ its puts, one thread), split into the scans, the entry hashes and the routing trees, and {@code keys_per_second_write_and_leaf_hashing} (the
     * synced writes and the hashing together, one thread: what a persist would pay before the index levels).
     */
    private static void leafHashing(Path db, byte[][] keys, ProbeOptions o, int target) {
        int[] starts = leafStarts(keys, target);
        SplittableRandom r = new SplittableRandom(o.seed() ^ target);
        long writeNs = 0;
        long scanNs = 0;
        long hashNs = 0;
        long entryNs = 0;
        long leaves = 0;
        long rowsHashed = 0;
        long puts = 0;
        try (FlatStore store = FlatStore.open(db, o.cacheBytes(), true)) {
            long readsBefore = store.dataBlockReads();
            for (int h = 0; h < o.hashBlocks(); h++) {
                long blk = store.head() + 1;
                BitSet put = new BitSet(keys.length);
                List<Mutation> batch = new ArrayList<>(BLOCK_PUTS);
                for (int j = 0; j < BLOCK_PUTS; j++) {
                    int k = r.nextInt(keys.length);
                    while (put.get(k)) {
                        k = r.nextInt(keys.length);
                    }
                    put.set(k);
                    batch.add(Mutation.put(Bytes.wrap(keys[k]), value(r)));
                }
                long t0 = System.nanoTime();
                store.write(blk, batch);
                long t1 = System.nanoTime();
                writeNs += t1 - t0;
                BitSet touched = new BitSet(starts.length);
                for (int k = put.nextSetBit(0); k >= 0; k = put.nextSetBit(k + 1)) {
                    int leaf = Arrays.binarySearch(starts, k);
                    touched.set(leaf >= 0 ? leaf : -leaf - 2);
                }
                FlatStore.Reader reader = store.reader();
                for (int leaf = touched.nextSetBit(0); leaf >= 0; leaf = touched.nextSetBit(leaf + 1)) {
                    int first = starts[leaf];
                    int end = leaf + 1 < starts.length ? starts[leaf + 1] : keys.length;
                    long s0 = System.nanoTime();
                    List<FlatStore.Item> rows = reader.scanRows(Bytes.wrap(keys[first]),
                            end < keys.length ? Bytes.wrap(keys[end]) : null, blk, end - first);
                    long s1 = System.nanoTime();
                    List<Hash> entries = entryHashes(rows);
                    long s2 = System.nanoTime();
                    routingRoot(rows, entries);
                    long s3 = System.nanoTime();
                    scanNs += s1 - s0;
                    entryNs += s2 - s1;
                    hashNs += s3 - s1;
                    leaves++;
                    rowsHashed += rows.size();
                }
                reader.close();
                puts += BLOCK_PUTS;
            }
            long reads = store.dataBlockReads() - readsBefore;
            double perPut = (scanNs + hashNs) / 1e3 / puts;
            JsonLine.of("flat.tree", "microseconds_per_put_leaf_hashing", perPut, "us")
                    .with("leaf_target", target).with("leaves", starts.length)
                    .with("mean_leaf_keys", (double) keys.length / starts.length)
                    .with("touched_leaves_per_block", (double) leaves / o.hashBlocks())
                    .with("rows_hashed_per_put", (double) rowsHashed / puts)
                    .with("scan_us_per_put", scanNs / 1e3 / puts).with("entry_hash_us_per_put", entryNs / 1e3 / puts)
                    .with("routing_hash_us_per_put", (hashNs - entryNs) / 1e3 / puts)
                    .with("data_reads_per_touched_leaf", (double) reads / leaves)
                    .with("cache_mb", o.cacheBytes() >> 20).with("machine_load", WorkDir.loadAverage())
                    .with("quick", o.quick()).printTo(OUT);
            JsonLine.of("flat.tree", "keys_per_second_write_and_leaf_hashing",
                    puts / ((writeNs + scanNs + hashNs) / 1e9), "keys/s").with("leaf_target", target)
                    .with("write_keys_per_second", puts / (writeNs / 1e9)).with("quick", o.quick()).printTo(OUT);
        }
    }

    /** The index of the first key of every leaf: a leaf ends after a key whose hash is 0 modulo {@code target}. */
    static int[] leafStarts(byte[][] keys, int target) {
        int[] starts = new int[keys.length];
        int n = 0;
        starts[n++] = 0;
        for (int i = 0; i + 1 < keys.length; i++) {
            if (Integer.remainderUnsigned(Arrays.hashCode(keys[i]) * 0x9E3779B1, target) == 0) {
                starts[n++] = i + 1;
            }
        }
        return Arrays.copyOf(starts, n);
    }

    private static List<Hash> entryHashes(List<FlatStore.Item> rows) {
        List<Hash> out = new ArrayList<>(rows.size());
        for (FlatStore.Item it : rows) {
            byte[] k = it.key().unsafeArray();
            out.add(Hashing.entry(k, 0, k.length, it.version().valueHash(), it.version().block()));
        }
        return out;
    }

    /** A binary routing tree of inner hashes over the entries, as today's leaves are hashed. */
    private static Hash routingRoot(List<FlatStore.Item> rows, List<Hash> entries) {
        List<Hash> level = entries;
        List<byte[]> seps = new ArrayList<>(rows.size());
        for (FlatStore.Item it : rows) {
            seps.add(it.key().unsafeArray());
        }
        while (level.size() > 1) {
            List<Hash> up = new ArrayList<>((level.size() + 1) / 2);
            List<byte[]> upSeps = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i < level.size(); i += 2) {
                if (i + 1 < level.size()) {
                    up.add(Hashing.inner(seps.get(i + 1), level.get(i), level.get(i + 1)));
                } else {
                    up.add(level.get(i));
                }
                upSeps.add(seps.get(i));
            }
            level = up;
            seps = upSeps;
        }
        return level.isEmpty() ? Hash.ZERO : level.get(0);
    }

    private static Stats micros(long[] nanos) {
        return new Stats(Arrays.stream(nanos).mapToDouble(n -> n / 1e3).toArray());
    }
}
