package io.glassledger.core.store;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hashing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Every version of every key, one RocksDB row each, the value stored once in a {@link ValueLog}: the planned
 * storage's versioned flat index (ARCHITECTURE.md, "Storage that grows for years", item 2). A latest read, a read at
 * block b, an OCC version check and a leaf's key range are each one seek, without a tree walk. Not yet the ledger's
 * store: {@code glassledger/3}'s leaves hold their values, so this runs beside the tree (the core benchmark's
 * {@code flat} measures) until {@code glassledger/4} makes it the leaf level.
 *
 * <p><b>Files</b> in {@code dir}: {@code rows/}, a RocksDB database with column family {@code rows} ({@link FlatRows}:
 * {@code escaped key ‖ 00 00 ‖ ~block → 00 | 01 ‖ valueHash ‖ locator}; no compression, since hashes and locators do
 * not compress; a bounded block cache with index and filter blocks in it) and {@code default} (one key, {@code head}:
 * u64, the last block written); {@code values/}, the value log.
 *
 * <p><b>Crash behaviour.</b> {@link #write} appends the block's values to the log and syncs it, then writes the rows
 * and the new head in one synced RocksDB batch. A crash leaves the store at the previous head or the new one, never
 * between; a row never names a value that was not durable first. Values appended for a block whose batch the crash
 * took are unreferenced bytes in the log (one block's worth per crash), never read.
 *
 * <p><b>Threads.</b> One writer; reads run concurrently with it and see a block's rows all or none.
 */
public final class FlatStore implements AutoCloseable {
    private static final byte[] HEAD = {'h', 'e', 'a', 'd'};
    /** Rows a scan steps over with {@code next} before it seeks instead (a seek costs a few steps). */
    private static final int STEPS = 4;

    /** One key's version as a scan returns it: the key and its row, and the value read from the log. */
    public record Item(Bytes key, FlatRows.Version version, Bytes value) {
    }

    private final Path dir;
    private final ValueLog log;
    private final LRUCache cache;
    private final Statistics stats;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final RocksDB db;
    private final ColumnFamilyHandle meta;
    private final ColumnFamilyHandle rows;
    private final WriteOptions writeOptions;
    private volatile long head;

    private FlatStore(Path dir, long cacheBytes, boolean sync) throws RocksDBException, IOException {
        this.dir = dir;
        RocksDB.loadLibrary();
        Files.createDirectories(dir.resolve("rows"));
        cache = new LRUCache(cacheBytes);
        stats = new Statistics();
        BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
                .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true);
        cfOptions = new ColumnFamilyOptions().setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(table).setWriteBufferSize(64L << 20).setLevelCompactionDynamicLevelBytes(true);
        dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                .setStatistics(stats);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        db = RocksDB.open(dbOptions, dir.resolve("rows").toString(), List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor("rows".getBytes(StandardCharsets.US_ASCII), cfOptions)),
                handles);
        meta = handles.get(0);
        rows = handles.get(1);
        writeOptions = new WriteOptions().setSync(sync);
        byte[] h = db.get(meta, HEAD);
        head = h == null ? -1 : new ByteReader(h).u64();
        log = ValueLog.open(dir.resolve("values"));
    }

    /**
     * Opens (or creates) the store in {@code dir} with a RocksDB block cache of {@code cacheBytes}; with
     * {@code sync}, every {@link #write} is durable when it returns.
     */
    public static FlatStore open(Path dir, long cacheBytes, boolean sync) {
        try {
            return new FlatStore(dir, cacheBytes, sync);
        } catch (RocksDBException e) {
            throw new StoreException("opening the flat store in " + dir + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last block written; -1 if none. */
    public long head() {
        return head;
    }

    /**
     * Writes block {@code block}'s versions: a row per mutation, the value in the log. Atomic and, with sync on,
     * durable when it returns.
     *
     * @throws IllegalArgumentException {@code block} is not above the head, or a key appears twice
     */
    public void write(long block, List<Mutation> mutations) {
        commit(block, mutations, appendValues(mutations));
    }

    /**
     * The first half of a {@link #write}: appends the puts' values to the log, not yet synced, and returns each
     * mutation's version as {@link #commit} will write it (a delete's with no hash or locator), so that an owner can
     * make durable what points at them before the block commits. Values appended and never committed are garbage.
     */
    public List<FlatRows.Version> appendValues(List<Mutation> mutations) {
        List<FlatRows.Version> out = new ArrayList<>(mutations.size());
        for (Mutation m : mutations) {
            if (m.isDelete()) {
                out.add(new FlatRows.Version(head + 1, null, null));
            } else {
                byte[] v = m.value().unsafeArray();
                out.add(new FlatRows.Version(head + 1, Hashing.value(v, 0, v.length), log.append(v)));
            }
        }
        return out;
    }

    /**
     * The second half of a {@link #write}: syncs the log (with sync on), then writes the rows of {@code versions}
     * ({@link #appendValues}'s, one per mutation) and the new head in one atomic batch.
     *
     * @throws IllegalArgumentException {@code block} is not above the head, or a key appears twice
     */
    public void commit(long block, List<Mutation> mutations, List<FlatRows.Version> versions) {
        if (block <= head) {
            throw new IllegalArgumentException("block " + block + " is not above the head " + head);
        }
        if (versions.size() != mutations.size()) {
            throw new IllegalArgumentException(versions.size() + " versions for " + mutations.size() + " mutations");
        }
        Set<Bytes> seen = new HashSet<>();
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < mutations.size(); i++) {
                Mutation m = mutations.get(i);
                if (!seen.add(m.key())) {
                    throw new IllegalArgumentException("key " + m.key() + " is written twice in block " + block);
                }
                FlatRows.Version v = versions.get(i);
                batch.put(rows, FlatRows.rowKey(FlatRows.keyPrefix(m.key()), block),
                        FlatRows.encodeValue(v.valueHash(), v.at()));
            }
            batch.put(meta, HEAD, new ByteWriter(8).u64(block).toByteArray());
            if (writeOptions.sync()) {
                log.sync();
            }
            db.write(writeOptions, batch);
            head = block;
        } catch (RocksDBException e) {
            throw new StoreException("writing block " + block + " to the flat store in " + dir, e);
        }
    }

    /** The newest version of {@code key} at or before {@code block} (a delete included), if any. */
    public Optional<FlatRows.Version> at(Bytes key, long block) {
        byte[] prefix = FlatRows.keyPrefix(key);
        try (RocksIterator it = db.newIterator(rows)) {
            it.seek(FlatRows.rowKey(prefix, Math.max(0, block)));
            if (!it.isValid() || !FlatRows.hasPrefix(it.key(), prefix)) {
                return Optional.empty();
            }
            return Optional.of(FlatRows.decodeValue(FlatRows.blockOf(it.key()), it.value()));
        }
    }

    /** The newest version of {@code key} (a delete included), if any. */
    public Optional<FlatRows.Version> latest(Bytes key) {
        return at(key, Long.MAX_VALUE);
    }

    /** Up to {@code limit} versions of {@code key} at or before {@code block}, newest first, deletes included. */
    public List<FlatRows.Version> versions(Bytes key, long block, int limit) {
        byte[] prefix = FlatRows.keyPrefix(key);
        List<FlatRows.Version> out = new ArrayList<>();
        try (RocksIterator it = db.newIterator(rows)) {
            for (it.seek(FlatRows.rowKey(prefix, Math.max(0, block)));
                 it.isValid() && out.size() < limit && FlatRows.hasPrefix(it.key(), prefix); it.next()) {
                out.add(FlatRows.decodeValue(FlatRows.blockOf(it.key()), it.value()));
            }
        }
        return out;
    }

    /**
     * The value of a put, read from the log and checked against the row's hash.
     *
     * @throws ValueLogCorruptedException the log's bytes there are not the value the row names
     */
    public Bytes value(FlatRows.Version v) {
        if (v.isDelete()) {
            throw new IllegalArgumentException("a delete has no value");
        }
        byte[] value = log.read(v.at());
        if (!Hashing.value(value, 0, value.length).equals(v.valueHash())) {
            throw new ValueLogCorruptedException(log.dir().resolve(ValueLog.name(v.at().segment())), v.at().offset(),
                    "the value there does not have the hash its row " + v.valueHash().hex() + " names");
        }
        return Bytes.wrap(value);
    }

    /**
     * The keys in {@code [from, to)} (null: unbounded) that hold a value at block {@code block}, in order, at most
     * {@code limit}, each with its newest version at or before {@code block} and its value. One seek per key that
     * has versions after {@code block} or older versions to pass.
     */
    public List<Item> scan(Bytes from, Bytes to, long block, int limit) {
        return scan(from, to, block, limit, true);
    }

    /** {@link #scan(Bytes, Bytes, long, int)} without the values (each item's value null): rows only, no log read. */
    public List<Item> scanRows(Bytes from, Bytes to, long block, int limit) {
        return scan(from, to, block, limit, false);
    }

    private List<Item> scan(Bytes from, Bytes to, long block, int limit, boolean withValues) {
        try (RocksIterator it = db.newIterator(rows)) {
            return scan(it, from, to, block, limit, withValues);
        }
    }

    /**
     * Reads many ranges through one RocksDB iterator, at the state of the store when it was made (later writes
     * unseen): cheaper than a scan each when a caller reads many ranges at once, such as the leaves one block
     * touched. Not thread-safe; close it.
     */
    public final class Reader implements AutoCloseable {
        private final RocksIterator it = db.newIterator(rows);

        /** {@link FlatStore#scanRows} through this reader's iterator. */
        public List<Item> scanRows(Bytes from, Bytes to, long block, int limit) {
            return scan(it, from, to, block, limit, false);
        }

        @Override
        public void close() {
            it.close();
        }
    }

    public Reader reader() {
        return new Reader();
    }

    private List<Item> scan(RocksIterator it, Bytes from, Bytes to, long block, int limit, boolean withValues) {
        List<Item> out = new ArrayList<>();
        byte[] end = to == null ? null : FlatRows.keyPrefix(to);
        {
            if (from == null) {
                it.seekToFirst();
            } else {
                it.seek(FlatRows.keyPrefix(from));
            }
            byte[] rk = it.isValid() ? it.key() : null;
            while (rk != null && out.size() < limit) {
                if (end != null && Arrays.compareUnsigned(rk, end) >= 0) {
                    break;
                }
                byte[] prefix = FlatRows.prefixOf(rk);
                if (FlatRows.blockOf(rk) > block) {
                    // Versions newer than the block come first: step over a few, seek past many.
                    rk = step(it, prefix, block);
                    continue;  // at the key's version at the block, or at the next key
                }
                FlatRows.Version v = FlatRows.decodeValue(FlatRows.blockOf(rk), it.value());
                if (!v.isDelete()) {
                    out.add(new Item(FlatRows.keyOf(rk), v, withValues ? value(v) : null));
                }
                rk = step(it, prefix, -1);
            }
        }
        return out;
    }

    /**
     * Moves past {@code prefix}'s rows newer than {@code block} (-1: all of its rows) and returns the row key it
     * stands at then (null: the end): up to {@link #STEPS} {@code next} calls, then a seek, which costs a few.
     */
    private static byte[] step(RocksIterator it, byte[] prefix, long block) {
        for (int i = 0; i < STEPS; i++) {
            it.next();
            if (!it.isValid()) {
                return null;
            }
            byte[] rk = it.key();
            if (!FlatRows.hasPrefix(rk, prefix) || (block >= 0 && FlatRows.blockOf(rk) <= block)) {
                return rk;
            }
        }
        it.seek(block >= 0 ? FlatRows.rowKey(prefix, block) : FlatRows.pastKey(prefix));
        return it.isValid() ? it.key() : null;
    }

    /** Data blocks RocksDB read from its files rather than its block cache, since open. */
    public long dataBlockReads() {
        return stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
    }

    /** Flushes the memtables and compacts the rows fully (for measuring what they take at rest). */
    public void compact() {
        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
            db.flush(f, List.of(meta, rows));
            db.compactRange(rows);
        } catch (RocksDBException e) {
            throw new StoreException("compacting the flat store in " + dir, e);
        }
    }

    /** Bytes of the rows' files ({@code .sst}) and of the value log. */
    public record Size(long rowBytes, long valueLogBytes) {
        public long total() {
            return rowBytes + valueLogBytes;
        }
    }

    public Size size() {
        try (Stream<Path> s = Files.list(dir.resolve("rows"))) {
            long sst = s.filter(p -> p.getFileName().toString().endsWith(".sst")).mapToLong(p -> p.toFile().length())
                    .sum();
            return new Size(sst, log.sizeBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            log.close();
        } finally {
            meta.close();
            rows.close();
            db.close();
            writeOptions.close();
            dbOptions.close();
            cfOptions.close();
            stats.close();
            cache.close();
        }
    }
}
