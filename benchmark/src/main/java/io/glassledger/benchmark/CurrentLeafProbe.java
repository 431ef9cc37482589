package io.glassledger.benchmark;

import io.glassledger.core.store.LeafLog;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The other way to store the planned tree's leaf level, measured beside {@link FlatIndexProbe}'s rows: a **full
 * current leaf** per leaf (one RocksDB value keyed by the leaf's first key: every entry's key, value hash, locator
 * and version), rewritten whole when a block touches it, and a **reverse delta** row per put for the past (the
 * version it replaces, keyed {@code key ‖ ~version}). A cold update is then one read (the leaf, found through the
 * in-memory index levels), a latest read too, and re-hashing a leaf needs no scan. What it costs instead is written
 * bytes: the whole leaf per touched leaf. Measured with the same keys, leaf cut (keys only) and update blocks as the
 * rows' leaf-hashing measure; the values themselves are not written (the value log's 137 bytes a put are measured by
 * {@link FlatIndexProbe}), locators are zeros of their size.
 * <ul>
 *   <li>{@code leaves.update / keys_per_second}: blocks of 1,000 puts, each one synced batch (the touched leaves
 *       read with one multi-get, decoded, updated, their entries and routing trees hashed, re-encoded);</li>
 *   <li>{@code cpu_us_per_put}: the whole process's CPU (RocksDB's flush and compaction threads included) ÷ puts;</li>
 *   <li>{@code user_bytes_written_per_put}: what the batches hand RocksDB ÷ puts (before the LSM's own rewriting),
 *       and {@code flush_and_compaction_bytes_per_put} what flushes and compactions wrote during the blocks;</li>
 *   <li>{@code leaves.storage / bytes_per_key_at_rest}: SST bytes after a full compaction ÷ keys.</li>
 * </ul>
 */
final class CurrentLeafProbe {
    private static final PrintStream OUT = System.out;
    private static final int LOCATOR = 7;
    private static final int BLOCK_PUTS = 1_000;
    /** Blocks between the checkpoint and the open that {@code leaflog.open} measures: a checkpoint interval. */
    private static final int CHECKPOINT_EVERY = 10;

    static {
        RocksDB.loadLibrary();  // FlatStore loads it too, but --only leaves runs without one
    }

    private CurrentLeafProbe() {
    }

    static void run(Path dir, byte[][] keys, int[] starts, int target, int blocks, long cacheBytes, long seed,
            boolean quick) throws RocksDBException, IOException {
        Files.createDirectories(dir);
        SplittableRandom r = new SplittableRandom(seed ^ 0x1eaf ^ target);
        try (LRUCache cache = new LRUCache(cacheBytes); Statistics stats = new Statistics();
             ColumnFamilyOptions cf = new ColumnFamilyOptions().setCompressionType(CompressionType.NO_COMPRESSION)
                     .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache)
                             .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true))
                     .setWriteBufferSize(64L << 20).setLevelCompactionDynamicLevelBytes(true);
             DBOptions db = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                     .setStatistics(stats);
             WriteOptions sync = new WriteOptions().setSync(true);
             WriteOptions load = new WriteOptions().setSync(false)) {
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try (RocksDB rdb = RocksDB.open(db, dir.toString(), List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf),
                    new ColumnFamilyDescriptor("past".getBytes(StandardCharsets.US_ASCII), cf)), handles)) {
                ColumnFamilyHandle leaves = handles.get(0);
                ColumnFamilyHandle past = handles.get(1);
                long[] versions = new long[keys.length];
                byte[][] valueHashes = new byte[keys.length][];
                for (int leaf = 0; leaf < starts.length; leaf += 1_000) {
                    try (WriteBatch b = new WriteBatch()) {
                        for (int l = leaf; l < Math.min(starts.length, leaf + 1_000); l++) {
                            int first = starts[l];
                            int end = l + 1 < starts.length ? starts[l + 1] : keys.length;
                            for (int k = first; k < end; k++) {
                                valueHashes[k] = randomHash(r);
                            }
                            b.put(leaves, keys[first], encode(keys, Arrays.copyOfRange(valueHashes, first, end),
                                    versions, first, end));
                        }
                        rdb.write(load, b);
                    }
                }
                flushAndCompact(rdb, leaves, past);
                valueHashes = null; // the store holds them now; the blocks below read them back

                long userBefore = stats.getTickerCount(TickerType.BYTES_WRITTEN);
                long lsmBefore = stats.getTickerCount(TickerType.FLUSH_WRITE_BYTES)
                        + stats.getTickerCount(TickerType.COMPACT_WRITE_BYTES);
                long readsBefore = stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
                long pid = ProcessHandle.current().pid();
                CpuSnapshot cpu0 = CpuSnapshot.read(pid);
                long t0 = System.nanoTime();
                long touchedLeaves = 0;
                for (int blk = 1; blk <= blocks; blk++) {
                    BitSet put = randomPuts(keys.length, r);
                    BitSet touched = touchedLeaves(put, starts);
                    List<byte[]> leafKeys = new ArrayList<>();
                    List<ColumnFamilyHandle> cfs = new ArrayList<>();
                    for (int l = touched.nextSetBit(0); l >= 0; l = touched.nextSetBit(l + 1)) {
                        leafKeys.add(keys[starts[l]]);
                        cfs.add(leaves);
                    }
                    List<byte[]> records = rdb.multiGetAsList(cfs, leafKeys);
                    try (WriteBatch b = new WriteBatch()) {
                        int i = 0;
                        for (int l = touched.nextSetBit(0); l >= 0; l = touched.nextSetBit(l + 1), i++) {
                            int first = starts[l];
                            int end = l + 1 < starts.length ? starts[l + 1] : keys.length;
                            byte[][] hashes = decodeHashes(records.get(i), end - first);
                            for (int k = put.nextSetBit(first); k >= 0 && k < end; k = put.nextSetBit(k + 1)) {
                                byte[] old = new byte[1 + Hash.LENGTH + LOCATOR];
                                old[0] = 1;
                                System.arraycopy(hashes[k - first], 0, old, 1, Hash.LENGTH);
                                b.put(past, pastKey(keys[k], versions[k]), old);
                                hashes[k - first] = randomHash(r);
                                versions[k] = blk;
                            }
                            leafRoot(keys, hashes, versions, first, end);
                            b.put(leaves, keys[first], encode(keys, hashes, versions, first, end));
                            touchedLeaves++;
                        }
                        rdb.write(sync, b);
                    }
                }
                long ns = System.nanoTime() - t0;
                CpuSnapshot cpu1 = CpuSnapshot.read(pid);
                long puts = (long) blocks * BLOCK_PUTS;
                double cpuUs = (cpu1.processTicks() - cpu0.processTicks()) * 1e6 / TaskStat.TICKS_PER_SECOND / puts;
                long user = stats.getTickerCount(TickerType.BYTES_WRITTEN) - userBefore;
                long lsm = stats.getTickerCount(TickerType.FLUSH_WRITE_BYTES)
                        + stats.getTickerCount(TickerType.COMPACT_WRITE_BYTES) - lsmBefore;
                JsonLine.of("leaves.update", "keys_per_second", puts / (ns / 1e9), "keys/s")
                        .with("leaf_target", target).with("cpu_us_per_put", cpuUs)
                        .with("user_bytes_written_per_put", (double) user / puts)
                        .with("flush_and_compaction_bytes_per_put", (double) lsm / puts)
                        .with("touched_leaves_per_block", (double) touchedLeaves / blocks)
                        .with("data_reads_per_touched_leaf",
                                (double) (stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS) - readsBefore)
                                        / touchedLeaves)
                        .with("cache_mb", cacheBytes >> 20).with("machine_load", WorkDir.loadAverage())
                        .with("quick", quick).printTo(OUT);
                flushAndCompact(rdb, leaves, past);
                JsonLine.of("leaves.storage", "bytes_per_key_at_rest", (double) sstBytes(dir) / keys.length, "B")
                        .with("leaf_target", target).with("puts_after_load", puts).with("quick", quick)
                        .printTo(OUT);
                handles.forEach(ColumnFamilyHandle::close);
            }
        }
    }

    /**
     * The leaf log measure ({@code leaflog.update}): the same leaves and blocks, each leaf's current version a
     * record of a {@link LeafLog} (8 MiB segments), collected after every block down to {@code liveShare} live.
     * Blocks run first until the log has wrapped (collected at least as many bytes as were live), at most 20,000,
     * so that the measured {@code blocks} pay collection at its steady rate.
     */
    static void runLog(Path dir, byte[][] keys, int[] starts, int target, int blocks, double liveShare, long seed,
            boolean quick) throws IOException {
        SplittableRandom r = new SplittableRandom(seed ^ 0x10c ^ target);
        long[] versions = new long[keys.length];
        long persisted;
        long logBytes;
        long checkpointBytes;
        long checkpointNs;
        try (LeafLog log = LeafLog.open(dir, 8L << 20, 0)) {
            for (int l = 0; l < starts.length; l++) {
                int first = starts[l];
                int end = l + 1 < starts.length ? starts[l + 1] : keys.length;
                byte[][] hashes = new byte[end - first][];
                for (int k = 0; k < hashes.length; k++) {
                    hashes[k] = randomHash(r);
                }
                log.put(l, 0, encode(keys, hashes, versions, first, end));
            }
            log.sync();
            long live = log.liveBytes();
            long blk = 1;
            int warm = 0;
            for (; warm < 20_000 && log.deletedBytes() < live; warm++) {
                updateBlock(log, keys, starts, versions, blk++, liveShare, r);
            }
            long appended0 = appended(log);
            long copied0 = log.copiedBytes();
            long pid = ProcessHandle.current().pid();
            CpuSnapshot cpu0 = CpuSnapshot.read(pid);
            long t0 = System.nanoTime();
            for (int b = 0; b < blocks; b++) {
                updateBlock(log, keys, starts, versions, blk++, liveShare, r);
            }
            long ns = System.nanoTime() - t0;
            CpuSnapshot cpu1 = CpuSnapshot.read(pid);
            long puts = (long) blocks * BLOCK_PUTS;
            JsonLine.of("leaflog.update", "keys_per_second", puts / (ns / 1e9), "keys/s").with("leaf_target", target)
                    .with("cpu_us_per_put", (cpu1.processTicks() - cpu0.processTicks()) * 1e6
                            / TaskStat.TICKS_PER_SECOND / puts)
                    .with("bytes_appended_per_put", (double) (appended(log) - appended0) / puts)
                    .with("collection_bytes_per_put", (double) (log.copiedBytes() - copied0) / puts)
                    .with("live_share", (double) log.liveBytes() / log.sizeBytes()).with("target_live_share", liveShare)
                    .with("current_leaf_bytes_per_key", (double) log.liveBytes() / keys.length)
                    .with("warm_up_blocks", warm).with("machine_load", WorkDir.loadAverage()).with("quick", quick)
                    .printTo(OUT);
            long c0 = System.nanoTime();
            checkpointBytes = log.checkpoint(blk - 1);
            checkpointNs = System.nanoTime() - c0;
            for (int b = 0; b < CHECKPOINT_EVERY; b++) {
                updateBlock(log, keys, starts, versions, blk++, liveShare, r);
            }
            persisted = blk - 1;
            logBytes = log.sizeBytes();
        }
        measureOpen(dir, persisted, logBytes, checkpointBytes, checkpointNs, target, quick);
    }

    /**
     * The leaf log's open ({@code leaflog.open}), a checkpoint {@link #CHECKPOINT_EVERY} blocks old: replaying the
     * whole log (the checkpoint moved aside) against loading the checkpoint and replaying what follows it. Both
     * read a log just written, from the page cache; the whole replay's bytes read are the log's, the checkpoint's
     * are its file and the records after it.
     */
    private static void measureOpen(Path dir, long persisted, long logBytes, long checkpointBytes, long checkpointNs,
            int target, boolean quick) throws IOException {
        Path cp = dir.resolve(LeafLog.CHECKPOINT_FILE);
        Path aside = dir.resolveSibling(dir.getFileName() + ".checkpoint");
        Files.move(cp, aside);
        long w0 = System.nanoTime();
        LeafLog.Recovery whole = openAndClose(dir, persisted);
        long wholeNs = System.nanoTime() - w0;
        Files.move(aside, cp);
        long f0 = System.nanoTime();
        LeafLog.Recovery fromCheckpoint = openAndClose(dir, persisted);
        long fromNs = System.nanoTime() - f0;
        if (fromCheckpoint.checkpointBlock() < 0 || whole.leaves() != fromCheckpoint.leaves()) {
            throw new IllegalStateException("the checkpoint was not used, or found other leaves: " + whole + " / "
                    + fromCheckpoint);
        }
        JsonLine.of("leaflog.open", "whole_replay_ms", wholeNs / 1e6, "ms").with("leaf_target", target)
                .with("from_checkpoint_ms", fromNs / 1e6).with("checkpoint_write_ms", checkpointNs / 1e6)
                .with("checkpoint_bytes", checkpointBytes).with("log_bytes", logBytes)
                .with("records_whole", whole.records()).with("records_after_checkpoint", fromCheckpoint.records())
                .with("blocks_after_checkpoint", CHECKPOINT_EVERY).with("leaves", whole.leaves())
                .with("machine_load", WorkDir.loadAverage()).with("quick", quick).printTo(OUT);
    }

    private static LeafLog.Recovery openAndClose(Path dir, long persisted) {
        try (LeafLog log = LeafLog.open(dir, 8L << 20, persisted)) {
            return log.recovery();
        }
    }

    /** Bytes ever appended: what the log holds plus what collection deleted (appends and copies). */
    private static long appended(LeafLog log) {
        return log.sizeBytes() + log.deletedBytes();
    }

    /** A block's puts: {@link #BLOCK_PUTS} distinct keys of {@code n}, at random. */
    private static BitSet randomPuts(int n, SplittableRandom r) {
        BitSet put = new BitSet(n);
        for (int j = 0; j < BLOCK_PUTS; j++) {
            int k = r.nextInt(n);
            while (put.get(k)) {
                k = r.nextInt(n);
            }
            put.set(k);
        }
        return put;
    }

    /** The leaves (numbered by {@code starts}, their first keys) that hold a key of {@code put}. */
    private static BitSet touchedLeaves(BitSet put, int[] starts) {
        BitSet touched = new BitSet(starts.length);
        for (int k = put.nextSetBit(0); k >= 0; k = put.nextSetBit(k + 1)) {
            int leaf = Arrays.binarySearch(starts, k);
            touched.set(leaf >= 0 ? leaf : -leaf - 2);
        }
        return touched;
    }

    private static void updateBlock(LeafLog log, byte[][] keys, int[] starts, long[] versions, long blk,
            double liveShare, SplittableRandom r) {
        BitSet put = randomPuts(keys.length, r);
        BitSet touched = touchedLeaves(put, starts);
        for (int l = touched.nextSetBit(0); l >= 0; l = touched.nextSetBit(l + 1)) {
            int first = starts[l];
            int end = l + 1 < starts.length ? starts[l + 1] : keys.length;
            byte[][] hashes = decodeHashes(log.get(l), end - first);
            for (int k = put.nextSetBit(first); k >= 0 && k < end; k = put.nextSetBit(k + 1)) {
                hashes[k - first] = randomHash(r);
                versions[k] = blk;
            }
            leafRoot(keys, hashes, versions, first, end);
            log.put(l, blk, encode(keys, hashes, versions, first, end));
        }
        log.sync();
        log.collect(liveShare, Integer.MAX_VALUE);
    }

    /**
     * Per entry: {@code varint len key ‖ key ‖ valueHash ‖ locator ‖ varint version}; {@code hashes} holds the
     * leaf's entries from index 0, {@code keys} and {@code versions} all keys.
     */
    private static byte[] encode(byte[][] keys, byte[][] hashes, long[] versions, int first, int end) {
        ByteWriter w = new ByteWriter((end - first) * 80);
        for (int k = first; k < end; k++) {
            w.varint(keys[k].length).raw(keys[k]).raw(hashes[k - first]).raw(new byte[LOCATOR]).varint(versions[k]);
        }
        return w.toByteArray();
    }

    /** The reverse delta's row key: {@code key ‖ ~version}, as the flat rows (without the escape: fixed keys). */
    private static byte[] pastKey(byte[] key, long version) {
        byte[] rk = Arrays.copyOf(key, key.length + 8);
        long inv = Long.MAX_VALUE - version;
        for (int i = 0; i < 8; i++) {
            rk[key.length + i] = (byte) (inv >>> (56 - 8 * i));
        }
        return rk;
    }

    private static byte[][] decodeHashes(byte[] record, int n) {
        if (record == null) {
            throw new IllegalStateException("a leaf record is missing");
        }
        ByteReader rd = new ByteReader(record);
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            rd.skip(rd.varint(1024));
            out[i] = rd.hash().toByteArray();
            rd.skip(LOCATOR);
            rd.varint();
        }
        rd.expectEnd();
        return out;
    }

    /** Every entry hashed and a binary routing tree over them, as {@link FlatIndexProbe}'s rows are hashed. */
    private static Hash leafRoot(byte[][] keys, byte[][] hashes, long[] versions, int first, int end) {
        List<Hash> level = new ArrayList<>(end - first);
        List<byte[]> seps = new ArrayList<>(end - first);
        for (int k = first; k < end; k++) {
            level.add(Hashing.entry(keys[k], 0, keys[k].length, Hash.of(hashes[k - first]), versions[k]));
            seps.add(keys[k]);
        }
        while (level.size() > 1) {
            List<Hash> up = new ArrayList<>((level.size() + 1) / 2);
            List<byte[]> upSeps = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i < level.size(); i += 2) {
                up.add(i + 1 < level.size() ? Hashing.inner(seps.get(i + 1), level.get(i), level.get(i + 1))
                        : level.get(i));
                upSeps.add(seps.get(i));
            }
            level = up;
            seps = upSeps;
        }
        return level.isEmpty() ? Hash.ZERO : level.get(0);
    }

    private static byte[] randomHash(SplittableRandom r) {
        byte[] h = new byte[Hash.LENGTH];
        r.nextBytes(h);
        return h;
    }

    private static void flushAndCompact(RocksDB rdb, ColumnFamilyHandle... cfs) throws RocksDBException {
        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
            rdb.flush(f, List.of(cfs));
        }
        for (ColumnFamilyHandle cf : cfs) {
            rdb.compactRange(cf);
        }
    }

    private static long sstBytes(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".sst")).mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }
}
