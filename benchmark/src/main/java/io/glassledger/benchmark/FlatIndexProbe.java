package io.glassledger.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@code benchmark/run flat}: a measurement for a design, not of the ledger. ARCHITECTURE.md's planned storage
 * ("Planned: storage that grows for years") keeps every version of every key as one row of a RocksDB column family
 * keyed by {@code key ‖ ~version} (the version inverted, so the newest sorts first), holding a value hash and a
 * locator, and reads a leaf of the tree as the rows of a key range. Its byte budget assumes about 78 bytes a row on
 * disk, one store read per latest read, and one or two per leaf. This probe writes such rows with this project's
 * RocksDB (the shapes of the core benchmark: N random 32-byte keys, then blocks of 1,000 random updates, each one
 * batch) and measures what the design assumes, so that the format decision rests on figures:
 * <ul>
 *   <li>{@code flat.storage / bytes_per_row}: SST bytes after a full compaction ÷ rows (every version);</li>
 *   <li>{@code flat.storage / bytes_per_put_over_raw}: the same ÷ 160, a put's raw key and value bytes;</li>
 *   <li>{@code flat.read / data_reads_per_latest_read}: data blocks read from the files (block cache misses) per
 *       seek to a random key's newest row, with a block cache far smaller than the data;</li>
 *   <li>{@code flat.leaf / data_reads_per_leaf}: the same per leaf, the newest row of {@code --leaf} consecutive
 *       keys from a random one (the versions between skipped by a seek each);</li>
 *   <li>{@code microseconds_per_*}: the median wall time of one such read, on a page cache that holds the files
 *       (the operating system's, not RocksDB's).</li>
 * </ul>
 * Data blocks are RocksDB's default 4 KiB, no compression (hashes do not compress), a 10-bit Bloom filter on the
 * 32-byte key prefix, index and filter blocks pinned in the block cache.
 */
public final class FlatIndexProbe {
    private static final PrintStream OUT = System.out;
    private static final int KEY = 32;
    private static final int ROW_VALUE = 38; // value hash 32 + locator 6
    private static final int BLOCK_PUTS = 1_000;

    record ProbeOptions(int keys, int blocks, int reads, int leaf, long cacheBytes, long seed, boolean quick, Path dir) {
        static ProbeOptions parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            int keys = quick ? 100_000 : 1_000_000;
            int blocks = quick ? 10 : 100;
            int reads = quick ? 2_000 : 20_000;
            int leaf = 50;
            long cacheMb = 8;
            long seed = 1;
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
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run flat [--quick] [--keys N] [--blocks B] [--reads R] [--leaf L]
                                                          [--cache-mb M] [--seed S] [--dir PATH]
                                  rows of a versioned flat index (key ‖ ~version → value hash ‖ locator) in RocksDB:
                                  bytes on disk per row, and store reads per latest read and per leaf
                                  --keys N      keys loaded, one version each (default 1000000; --quick 100000)
                                  --blocks B    then B batches of 1000 random updates (default 100; --quick 10)
                                  --reads R     latest reads and leaf reads measured, each (default 20000)
                                  --leaf L      keys per leaf read (default 50, the planned leaf's size)
                                  --cache-mb M  RocksDB block cache for the reads (default 8)""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--help)");
                }
            }
            return new ProbeOptions(keys, blocks, reads, leaf, cacheMb << 20, seed, quick, dir);
        }
    }

    private FlatIndexProbe() {
    }

    public static void main(String[] args) throws Exception {
        ProbeOptions o = ProbeOptions.parse(args);
        RocksDB.loadLibrary();
        WorkDir.prepare(o.dir());
        Path db = o.dir().resolve("flat");
        System.err.printf("flat: %d keys, %d blocks of %d updates, seed %d, load %s%n", o.keys(), o.blocks(),
                BLOCK_PUTS, o.seed(), WorkDir.loadAverage());
        byte[][] keys = keys(o.keys(), o.seed());
        long rows = write(db, keys, o);
        long sst = sstBytes(db);
        double perRow = (double) sst / rows;
        JsonLine.of("flat.storage", "bytes_per_row", perRow, "B").with("rows", rows).with("sst_bytes", sst)
                .with("keys", o.keys()).with("blocks", o.blocks()).with("quick", o.quick()).printTo(OUT);
        JsonLine.of("flat.storage", "bytes_per_put_over_raw", perRow / 160, "ratio")
                .with("raw_per_put", 160).with("quick", o.quick()).printTo(OUT);
        read(db, keys, o);
        WorkDir.deleteTree(o.dir().resolve("flat"));
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

    static byte[] rowKey(byte[] key, long version) {
        byte[] rk = Arrays.copyOf(key, KEY + 8);
        long inv = Long.MAX_VALUE - version;
        for (int b = 0; b < 8; b++) {
            rk[KEY + b] = (byte) (inv >>> (56 - 8 * b));
        }
        return rk;
    }

    private static Options options(Statistics stats, long cacheBytes) {
        BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(new LRUCache(cacheBytes))
                .setFilterPolicy(new BloomFilter(10, false)).setWholeKeyFiltering(false)
                .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true);
        Options opts = new Options().setCreateIfMissing(true).setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(table).useFixedLengthPrefixExtractor(KEY)
                .setWriteBufferSize(64L << 20).setLevelCompactionDynamicLevelBytes(true);
        if (stats != null) {
            opts.setStatistics(stats);
        }
        return opts;
    }

    /** Block 0 puts every key; blocks 1..B update 1,000 random keys each, one batch a block. Returns the rows. */
    private static long write(Path db, byte[][] keys, ProbeOptions o) throws RocksDBException {
        SplittableRandom r = new SplittableRandom(o.seed() ^ 0x5eed);
        long rows = 0;
        byte[] value = new byte[ROW_VALUE];
        try (Options opts = options(null, 64L << 20); RocksDB rdb = RocksDB.open(opts, db.toString());
             WriteOptions sync = new WriteOptions().setSync(true);
             WriteOptions load = new WriteOptions().setSync(false)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < keys.length; i += BLOCK_PUTS) {
                try (WriteBatch b = new WriteBatch()) {
                    for (int j = i; j < Math.min(keys.length, i + BLOCK_PUTS); j++) {
                        r.nextBytes(value);
                        b.put(rowKey(keys[j], 0), value);
                        rows++;
                    }
                    rdb.write(load, b);
                }
            }
            long t1 = System.nanoTime();
            for (int blk = 1; blk <= o.blocks(); blk++) {
                try (WriteBatch b = new WriteBatch()) {
                    java.util.BitSet put = new java.util.BitSet(keys.length); // a block writes a key once
                    for (int j = 0; j < BLOCK_PUTS; j++) {
                        int k = r.nextInt(keys.length);
                        while (put.get(k)) {
                            k = r.nextInt(keys.length);
                        }
                        put.set(k);
                        r.nextBytes(value);
                        b.put(rowKey(keys[k], blk), value);
                        rows++;
                    }
                    rdb.write(sync, b);
                }
            }
            long t2 = System.nanoTime();
            try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
                rdb.flush(f);
            }
            rdb.compactRange();
            if (o.blocks() > 0) {
                JsonLine.of("flat.write", "rows_per_second_synced_blocks",
                        o.blocks() * (double) BLOCK_PUTS / ((t2 - t1) / 1e9), "rows/s")
                        .with("load_rows_per_second", keys.length / ((t1 - t0) / 1e9))
                        .with("machine_load", WorkDir.loadAverage()).with("quick", o.quick()).printTo(OUT);
            }
        }
        return rows;
    }

    private static void read(Path db, byte[][] keys, ProbeOptions o) throws RocksDBException {
        SplittableRandom r = new SplittableRandom(o.seed() ^ 0xbead);
        long head = o.blocks();
        try (Statistics stats = new Statistics(); Options opts = options(stats, o.cacheBytes());
             RocksDB rdb = RocksDB.open(opts, db.toString()); ReadOptions ro = new ReadOptions()) {
            long[] latestNs = new long[o.reads()];
            long missesBefore = stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
            try (RocksIterator it = rdb.newIterator(ro)) {
                for (int i = 0; i < o.reads(); i++) {
                    byte[] k = keys[r.nextInt(keys.length)];
                    long t = System.nanoTime();
                    it.seek(rowKey(k, head));
                    if (!it.isValid() || !startsWith(it.key(), k)) {
                        throw new IllegalStateException("the newest row of a loaded key is missing");
                    }
                    latestNs[i] = System.nanoTime() - t;
                }
            }
            long missesLatest = stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS) - missesBefore;
            JsonLine.of("flat.read", "data_reads_per_latest_read", (double) missesLatest / o.reads(), "reads")
                    .with("cache_mb", o.cacheBytes() >> 20).with("reads", o.reads()).with("quick", o.quick())
                    .printTo(OUT);
            Stats latest = micros(latestNs);
            JsonLine.of("flat.read", "microseconds_per_latest_read", latest.median(), "us").spread(latest).with("machine_load", WorkDir.loadAverage())
                    .with("quick", o.quick()).printTo(OUT);

            long[] leafNs = new long[o.reads()];
            missesBefore = stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
            long rowsSkipped = 0;
            try (RocksIterator it = rdb.newIterator(ro)) {
                for (int i = 0; i < o.reads(); i++) {
                    int first = r.nextInt(Math.max(1, keys.length - o.leaf()));
                    long t = System.nanoTime();
                    it.seek(rowKey(keys[first], head));
                    for (int n = 0; n < o.leaf() && it.isValid(); n++) {
                        byte[] k = Arrays.copyOf(it.key(), KEY);
                        // The newest row of this key is where the iterator stands; the next key's newest row
                        // follows its older versions: step over a few, seek past many.
                        int steps = 0;
                        it.next();
                        while (it.isValid() && startsWith(it.key(), k) && steps < 4) {
                            it.next();
                            steps++;
                            rowsSkipped++;
                        }
                        if (it.isValid() && startsWith(it.key(), k)) {
                            it.seek(rowKey(successor(k), head));
                        }
                    }
                    leafNs[i] = System.nanoTime() - t;
                }
            }
            long missesLeaf = stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS) - missesBefore;
            JsonLine.of("flat.leaf", "data_reads_per_leaf", (double) missesLeaf / o.reads(), "reads")
                    .with("leaf_keys", o.leaf()).with("older_rows_stepped", rowsSkipped)
                    .with("cache_mb", o.cacheBytes() >> 20).with("quick", o.quick()).printTo(OUT);
            Stats leaf = micros(leafNs);
            JsonLine.of("flat.leaf", "microseconds_per_leaf", leaf.median(), "us").spread(leaf).with("machine_load", WorkDir.loadAverage())
                    .with("quick", o.quick()).printTo(OUT);
        }
    }

    private static Stats micros(long[] nanos) {
        return new Stats(Arrays.stream(nanos).mapToDouble(n -> n / 1e3).toArray());
    }

    private static boolean startsWith(byte[] rowKey, byte[] key) {
        return rowKey.length >= KEY && Arrays.equals(rowKey, 0, KEY, key, 0, KEY);
    }

    /** The smallest 32-byte key greater than {@code k} (k is never all ff here: random keys). */
    private static byte[] successor(byte[] k) {
        byte[] s = k.clone();
        for (int i = KEY - 1; i >= 0; i--) {
            if (++s[i] != 0) {
                return s;
            }
        }
        throw new IllegalStateException("no successor of the largest key");
    }

    private static long sstBytes(Path db) {
        try (Stream<Path> s = Files.list(db)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".sst")).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
